/**
 * The draft a report form edits. Without a report id it is the browser's draft, stored on every change; with
 * one (a saved report's address) the saved report is read once and the form edits it until Save.
 */
import { useEffect, useState } from 'react';
import type { SavedReport } from '../../../../../electron/domain/reports';
import { useReports } from '../../../stores/reports';
import { draftOf, loadDraft, storeDraft, type ReportDraft } from './report-draft';

export function useReportDraft(reportId: string | null, onOpened: (report: SavedReport) => void) {
  const [draft, setDraft] = useState(loadDraft);
  const [saved, setSaved] = useState<SavedReport | null>(null);
  const [unreadable, setUnreadable] = useState<string | null>(null);
  const getReport = useReports((s) => s.get);
  useEffect(() => {
    if (!reportId) storeDraft(draft);
  }, [draft, reportId]);
  useEffect(() => {
    if (!reportId) return;
    let live = true;
    setUnreadable(null);
    void getReport(reportId).then((r) => {
      if (!live) return;
      if (!r) return setUnreadable(useReports.getState().error ?? `cannot read report '${reportId}'`);
      setSaved(r);
      setDraft(draftOf(r));
      onOpened(r);
    });
    return () => {
      live = false;
    };
    // Read when the address names another report only: the form's edits must not be overwritten.
  }, [reportId]);
  const change = (patch: Partial<ReportDraft>) => setDraft((d) => ({ ...d, ...patch }));
  return { draft, change, saved, setSaved, unreadable };
}
