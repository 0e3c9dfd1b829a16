/** The Runs page's address: a saved report's (`#/runs/report/ID`), and a run's kept on the tab shown. */
import { describe, expect, test } from 'vitest';
import { reportRouteOf, runAddress } from '../../../renderer/src/components/runs/runs-address';

describe('reportRouteOf', () => {
  test("a report's address and its id; a run's address is none", () => {
    expect(reportRouteOf(['report', 'seeds'])).toEqual({ reportRoute: true, reportId: 'seeds' });
    expect(reportRouteOf(['report'])).toEqual({ reportRoute: true, reportId: null });
    expect(reportRouteOf(['run-a', 'report'])).toEqual({ reportRoute: false, reportId: null });
    expect(reportRouteOf([])).toEqual({ reportRoute: false, reportId: null });
  });
});

describe('runAddress', () => {
  test('another run opens on the tab shown; an open episode means its tab; the overview has no segment', () => {
    expect(runAddress('b', [])).toEqual(['b']);
    expect(runAddress('b', ['a'])).toEqual(['b']);
    expect(runAddress('b', ['a', 'overview'])).toEqual(['b']);
    expect(runAddress('b', ['a', 'statistics'])).toEqual(['b', 'statistics']);
    expect(runAddress('b', ['a', 't0@0', '3'])).toEqual(['b', 'episodes']);
  });
});
