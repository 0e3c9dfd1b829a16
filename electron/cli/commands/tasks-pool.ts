/**
 * `t1lab tasks pool --probe RUNDIR --suite PACK --out PACK [--reward dense] [--min-mixed 1] [--json]`: the
 * tasks of PACK in the families where the probe's episodes disagreed (lab/tasks/ppo-pool.ts says why).
 * The probe is an eval run with several attempts per task, at PPO's sampling temperature, of the policy
 * PPO starts from. `--json` prints `{families, kept, tasks, out}` plus the probe and the suite.
 */
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { formatRate } from '../../domain/rates';
import { loadTaskSource, writePack } from '../../lab/tasks';
import { keptFamilies, probeFamilies, type PoolReward } from '../../lab/tasks/ppo-pool';
import { familyOf } from '../../lab/tasks/synth/corpus-mix';
import { readRun } from '../../lab/runs/library';
import { UsageError, WorkFailed } from '../errors';
import { printJson, table, type Io } from '../output';
import { positiveInt } from './policy-options';

const REWARDS: readonly PoolReward[] = ['dense', 'fraction', 'binary'];

export function registerPool(tasks: Command, io: Io): void {
  tasks
    .command('pool')
    .description(
      "PPO's task pool: the tasks of a suite in the families where a probe's sampled episodes disagreed (some solved, some not)",
    )
    .requiredOption(
      '--probe <dir>',
      'an eval run of the policy with --attempts K >= 2 at the PPO temperature, on train tasks of the families',
    )
    .requiredOption(
      '--suite <path>',
      "the tasks to choose from (a folder, a folder of tasks or a pack); the probe run's own suite counts too, for families",
    )
    .requiredOption('--out <pack>', 'the pack to write (.jsonl)')
    .option('--reward <kind>', 'which reward must differ between attempts: dense | fraction | binary', 'dense')
    .option('--min-mixed <n>', 'probe tasks with differing rewards a family needs (default 1)')
    .option('--all-if-none', 'when no family qualifies, write the whole suite (with a warning) instead of failing')
    .option('--json', 'print JSON: {families, kept, tasks, out, probe, suite, fallback}')
    .action(
      async (o: {
        probe: string;
        suite: string;
        out: string;
        reward: string;
        minMixed?: string;
        allIfNone?: boolean;
        json?: boolean;
      }) => {
        if (!REWARDS.includes(o.reward as PoolReward))
          throw new UsageError(`--reward: '${o.reward}' is not one of ${REWARDS.join(', ')}`);
        const minMixed = positiveInt('--min-mixed', o.minMixed) ?? 1;
        const probeDir = resolve(o.probe);
        if (!existsSync(join(probeDir, 'run.json')))
          throw new UsageError(`--probe: ${probeDir} is not an eval run folder (no run.json)`);
        if (!o.out.endsWith('.jsonl')) throw new UsageError(`--out: '${o.out}' is not a pack path (.jsonl)`);
        const probe = readRun(probeDir);
        if (probe.episodes.length === 0) throw new WorkFailed(`${probeDir}: the probe has no finished episode`);
        const source = await loadTaskSource(o.suite);
        for (const bad of source.invalid) io.err(`t1lab: skipped invalid task '${bad.id}'\n`);
        if (source.tasks.length === 0) throw new UsageError(`--suite ${o.suite}: no valid task found`);
        // The probe's tasks are usually other tasks of the same families: their families come from the probe's suite.
        const families = new Map(source.tasks.map((t) => [t.id, familyOf(t)]));
        const probeSuite = probe.manifest.config.suite;
        if (probeSuite && existsSync(probeSuite))
          for (const t of (await loadTaskSource(probeSuite)).tasks) families.set(t.id, familyOf(t));
        const stats = probeFamilies(probe.episodes, (id) => families.get(id), o.reward as PoolReward);
        if (Object.keys(stats).length === 0)
          throw new WorkFailed(
            `${probeDir}: none of the probe's tasks has a known family (its suite ${probeSuite || '(none)'} is not readable)`,
          );
        if (!Object.values(stats).some((f) => f.probedTasks > 0))
          throw new UsageError(
            `--probe: ${probeDir} ran each task once; a probe needs --attempts 2 or more to see attempts disagree`,
          );
        const kept = keptFamilies(stats, minMixed);
        let chosen = source.tasks.filter((t) => kept.includes(familyOf(t)));
        const none = `no family of ${o.suite} had ${minMixed}+ probe tasks whose attempts earned different ${o.reward} rewards: PPO with group advantages would get no signal from any of them`;
        const fallback = chosen.length === 0 && o.allIfNone === true;
        if (chosen.length === 0 && !fallback) throw new WorkFailed(none);
        if (fallback) {
          io.err(`t1lab: warning: ${none}; --all-if-none: the pool is the whole suite\n`);
          chosen = source.tasks;
        }
        const out = resolve(o.out);
        await writePack(out, chosen);
        const result = {
          families: stats,
          kept,
          tasks: chosen.length,
          out,
          probe: probeDir,
          suite: resolve(o.suite),
          reward: o.reward,
          minMixed,
          fallback,
        };
        if (o.json) printJson(io, result);
        else {
          const rows = [
            ['family', 'probe tasks', 'episodes', 'resolved', `mean ${o.reward}`, 'mixed tasks', 'kept'],
            ...Object.entries(stats).map(([f, s]) => [
              f,
              s.tasks,
              s.episodes,
              formatRate(s.resolved),
              s.meanReward.toFixed(2),
              s.mixedTasks,
              kept.includes(f) ? 'yes' : '',
            ]),
          ];
          io.out(
            `${table(rows)}\n${chosen.length} of ${source.tasks.length} tasks in ${kept.length} families -> ${out}\n`,
          );
        }
      },
    );
}
