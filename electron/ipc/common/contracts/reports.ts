/** Saved reports: the Runs page's reports kept under a name in the data folder, as `t1lab runs reports`. */
import { z } from 'zod';
import { defineContract, method } from '../define';
import { ReportContent, ReportId, ReportList, ReportName, ReportRemoved, SavedReport } from '../../../domain/reports';

export const reportsContract = defineContract({
  methods: {
    'reports.list': method(
      z.object({}),
      ReportList,
      'The saved reports by name, and the report files that cannot be read (each named, with what is wrong).',
    ),
    'reports.get': method(z.object({ id: ReportId }), SavedReport, 'A saved report by its id (its address).'),
    'reports.create': method(
      z.object({ name: ReportName, content: ReportContent }),
      SavedReport,
      'Save a report under a new name (a name another report has is refused: CONFLICT).',
    ),
    'reports.update': method(
      z.object({ id: ReportId, content: ReportContent }),
      SavedReport,
      'Save over a report: its content replaced, its name and id kept.',
    ),
    'reports.rename': method(
      z.object({ id: ReportId, name: ReportName }),
      SavedReport,
      'Rename a report; its id and address stay (a name another report has is refused: CONFLICT).',
    ),
    'reports.remove': method(z.object({ id: ReportId }), ReportRemoved, "Delete a saved report's file."),
  },
  events: {},
});
