/**
 * The saved reports' store (electron/lab/runs/reports.ts): reports saved under names, listed, found by name
 * or id, saved over, renamed (the id, so the address, stays) and removed; a duplicate name, an unknown name
 * and a damaged file each give an error naming the report, file or field, and leave every file as it was.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { reportHash, reportIdFor, type ReportContent } from '../../../electron/domain/reports';
import {
  createReport,
  findReport,
  getReport,
  listReports,
  removeReport,
  renameReport,
  reportFile,
  reportsDir,
  updateReport,
} from '../../../electron/lab/runs/reports';
import { makeTempDir } from '../../helpers/tmp';

const content = (over: Partial<ReportContent> = {}): ReportContent => ({
  title: 'Seeds',
  notes: '# Notes',
  evalRuns: ['eval-1'],
  trainingRuns: ['ppo-1', 'ppo-2'],
  metrics: ['reward_dense'],
  poolSeeds: true,
  columns: ['config.seed'],
  ...over,
});

let home: ReturnType<typeof makeTempDir>;
let data: string;
beforeEach(() => {
  home = makeTempDir();
  data = join(home.path, 'data');
});
afterEach(() => home.remove());

/** Every report file's bytes: what "nothing lost" is checked against. */
const files = () =>
  Object.fromEntries(readdirSync(reportsDir(data)).map((f) => [f, readFileSync(join(reportsDir(data), f), 'utf8')]));

describe('saved reports', () => {
  it('saves reports under names, lists them by name, finds one by name or id', () => {
    expect(listReports(data)).toEqual({ dir: reportsDir(data), reports: [], problems: [] });
    const seeds = createReport(data, 'Seeds, PPO', content(), new Date('2026-12-01T10:00:00Z'));
    const base = createReport(data, ' baseline ', content({ title: 'Base', trainingRuns: [] }));
    expect(seeds).toMatchObject({ id: 'seeds-ppo', name: 'Seeds, PPO', createdAt: '2026-12-01T10:00:00.000Z' });
    expect(base).toMatchObject({ id: 'baseline', name: 'baseline', title: 'Base' });
    expect(JSON.parse(readFileSync(reportFile(data, 'seeds-ppo'), 'utf8'))).toEqual(seeds);
    const list = listReports(data);
    expect(list.reports.map((r) => r.name)).toEqual(['baseline', 'Seeds, PPO']);
    expect(list.problems).toEqual([]);
    expect(findReport(data, 'seeds, ppo').id).toBe('seeds-ppo');
    expect(findReport(data, 'seeds-ppo').name).toBe('Seeds, PPO');
    expect(getReport(data, 'baseline')).toEqual(base);
    expect(reportHash('seeds-ppo')).toBe('#/runs/report/seeds-ppo');
  });

  it('makes ids from names, numbered past the ids taken', () => {
    expect(reportIdFor('Résumé: lr 3e-5!', new Set())).toBe('resume-lr-3e-5');
    expect(reportIdFor('***', new Set())).toBe('report');
    expect(reportIdFor('a b', new Set(['a-b', 'a-b-2']))).toBe('a-b-3');
    createReport(data, 'A b', content());
    expect(createReport(data, 'a  b!', content()).id).toBe('a-b-2');
  });

  it('saves over a report and renames it, keeping its id and creation time', () => {
    const made = createReport(data, 'Seeds', content(), new Date('2026-12-01T10:00:00Z'));
    const saved = updateReport(data, made.id, content({ notes: 'later' }), new Date('2026-12-02T10:00:00Z'));
    expect(saved).toMatchObject({ id: 'seeds', name: 'Seeds', notes: 'later', createdAt: made.createdAt });
    expect(saved.updatedAt).toBe('2026-12-02T10:00:00.000Z');
    const renamed = renameReport(data, 'seeds', 'Seeds (final)');
    expect(renamed).toMatchObject({ id: 'seeds', name: 'Seeds (final)', notes: 'later' });
    expect(findReport(data, 'Seeds (final)').id).toBe('seeds');
    // The same name in other case is the report's own: allowed.
    expect(renameReport(data, 'seeds', 'SEEDS (FINAL)').name).toBe('SEEDS (FINAL)');
    expect(Object.keys(files())).toEqual(['seeds.json']);
  });

  it('refuses a duplicate name (ignoring case and spaces) and changes nothing', () => {
    createReport(data, 'Seeds', content());
    createReport(data, 'Other', content({ title: 'Other' }));
    const before = files();
    expect(() => createReport(data, ' seeds ', content())).toThrow(
      `a report named 'Seeds' exists (${reportFile(data, 'seeds')})`,
    );
    expect(() => renameReport(data, 'other', 'SEEDS')).toThrow("a report named 'Seeds' exists");
    expect(() => createReport(data, '  ', content())).toThrow("name: field '(root)': a report name is not empty");
    expect(() => createReport(data, 'x', { ...content(), poolSeeds: 'yes' } as never)).toThrow(
      "report: field 'poolSeeds'",
    );
    expect(files()).toEqual(before);
  });

  it('says which reports exist when a name is unknown', () => {
    expect(() => findReport(data, 'nope')).toThrow(`no report 'nope' in ${reportsDir(data)} (none saved)`);
    createReport(data, 'Seeds', content());
    expect(() => findReport(data, 'nope')).toThrow(`no report 'nope' in ${reportsDir(data)} (saved: Seeds)`);
    expect(() => getReport(data, 'nope')).toThrow("no report 'nope'");
    expect(() => getReport(data, '../x')).toThrow("'../x' is not a report id");
    expect(() => removeReport(data, 'nope')).toThrow("no report 'nope'");
  });

  it('lists a damaged file as a problem naming the file and field, keeps it, and never writes over it', () => {
    createReport(data, 'Good', content());
    const notJson = join(reportsDir(data), 'broken.json');
    const wrongField = join(reportsDir(data), 'seeds.json');
    writeFileSync(notJson, '{"schema": "t1lab.report/1", ');
    writeFileSync(wrongField, JSON.stringify({ ...createReportLike('seeds'), evalRuns: 'eval-1' }));
    const before = files();
    const list = listReports(data);
    expect(list.reports.map((r) => r.name)).toEqual(['Good']);
    expect(list.problems).toEqual([
      { file: notJson, message: expect.stringMatching(new RegExp(`^${notJson}: not JSON \\(`)) },
      { file: wrongField, message: `${wrongField}: field 'evalRuns': Invalid input: expected array, received string` },
    ]);
    // Opening, saving over, renaming or removing it says what is wrong with it.
    expect(() => getReport(data, 'seeds')).toThrow(`${wrongField}: field 'evalRuns'`);
    expect(() => updateReport(data, 'seeds', content())).toThrow(`${wrongField}: field 'evalRuns'`);
    expect(() => renameReport(data, 'broken', 'Fixed')).toThrow(`${notJson}: not JSON`);
    expect(() => removeReport(data, 'broken')).toThrow(`${notJson}: not JSON`);
    // A new report named like it gets another id.
    expect(createReport(data, 'Seeds', content()).id).toBe('seeds-2');
    expect(createReport(data, 'Broken', content()).id).toBe('broken-2');
    const after = files();
    expect(after['broken.json']).toBe(before['broken.json']);
    expect(after['seeds.json']).toBe(before['seeds.json']);
    expect(after['good.json']).toBe(before['good.json']);
  });

  it("refuses a file whose id is not its file's name", () => {
    createReport(data, 'Seeds', content());
    const copy = join(reportsDir(data), 'copy.json');
    writeFileSync(copy, readFileSync(reportFile(data, 'seeds')));
    expect(listReports(data).problems).toEqual([
      { file: copy, message: `${copy}: field 'id': 'seeds' is not the file's name ('copy')` },
    ]);
  });

  it('removes a report and only it', () => {
    createReport(data, 'Seeds', content());
    createReport(data, 'Other', content());
    expect(removeReport(data, 'seeds')).toEqual({
      id: 'seeds',
      name: 'Seeds',
      file: reportFile(data, 'seeds'),
      removed: true,
    });
    expect(listReports(data).reports.map((r) => r.name)).toEqual(['Other']);
  });
});

function createReportLike(id: string) {
  return {
    schema: 't1lab.report/1',
    id,
    name: 'Seeds',
    ...content(),
    createdAt: '2026-12-01T10:00:00Z',
    updatedAt: '2026-12-01T10:00:00Z',
  };
}
