/**
 * The families of the second set, audited for real (bubblewrap sandboxes: oracle, no-op, oracle again):
 * one seed each must be `ok`, i.e. the oracle passes every assertion and the untouched workspace none.
 * All of them take ~4 min on a loaded 2-core machine, over the CI budget, so a run audits a rotating third of the
 * families (by UTC day; every family is covered every three days); T1LAB_AUDIT_ALL_FAMILIES=1 audits all.
 * Families whose tasks need a command this machine lacks (git, sqlite3, make, gcc: see build/bootstrap.sh)
 * are skipped with the reason printed.
 */
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { auditTasks, type Task } from '../../../electron/lab/tasks';
import { SCENARIO_FAMILIES } from '../../../tasks/families/scenarios';
import { generateFamilyTask, loadFamilyTask } from '../../helpers/family-tasks';

const SEED = 1;
const GROUPS = 3;
const group = Math.floor(Date.now() / 86_400_000) % GROUPS;
const all = process.env.T1LAB_AUDIT_ALL_FAMILIES === '1';
const families = SCENARIO_FAMILIES.filter((_, i) => all || i % GROUPS === group);
console.warn(
  `scenario-families audit: ${all ? 'all families' : `group ${group + 1}/${GROUPS}`}: ${families.map((f) => f.name).join(', ')}`,
);

function hasCommand(name: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${name}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const tasks: Task[] = [];
for (const family of families) {
  const task = loadFamilyTask(generateFamilyTask(family, SEED));
  const missing = task.environment.requires.filter((c) => !hasCommand(c));
  if (missing.length)
    console.warn(
      `scenario-families audit: skipping ${family.name}: needs ${missing.join(', ')} (installed by npm run bootstrap)`,
    );
  else tasks.push(task);
}

describe('scenario task families under the real audit', () => {
  it(`audits seed ${SEED} of each selected family as ok`, async () => {
    const outcomes = await auditTasks(tasks, { concurrency: 2 });
    const bad = outcomes
      .filter((o) => o.result.verdict !== 'ok')
      .map((o) => `${o.result.id}: ${o.result.verdict} ${o.result.reason}`);
    expect(bad).toEqual([]);
    for (const o of outcomes) {
      expect(o.result.oracle!.passed, o.result.id).toBe(o.result.oracle!.total);
      expect(o.result.noop!.passed, o.result.id).toBe(0);
    }
    expect(outcomes).toHaveLength(tasks.length);
  }, 600_000);
});
