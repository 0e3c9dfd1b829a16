/** A finished two-cell ablation written to disk: PPO metrics per seed and eval runs, for report tests. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CellReport } from '../../electron/lab/experiments/ablate-report';
import { writeRunFolder } from './runs';

export async function writeAblationFixture(
  root: string,
  solvedBy: { dense: number; binary: number } = { dense: 7, binary: 3 },
): Promise<CellReport[]> {
  const cells: CellReport[] = [];
  const tasks = Array.from({ length: 10 }, (_, i) => `task-${i}`);
  for (const [name, reward, solved] of [
    ['reward-dense', 'dense', solvedBy.dense],
    ['reward-binary', 'binary', solvedBy.binary],
  ] as const) {
    const seeds: CellReport['seeds'] = [];
    for (const seed of [1, 2]) {
      const trainDir = join(root, name, `seed-${seed}`, 'train');
      mkdirSync(trainDir, { recursive: true });
      const rows = Array.from({ length: 8 }, (_, i) => ({
        step: i + 1,
        reward_dense: (reward === 'dense' ? 0.4 : 0.2) * (i + 1) + seed * 0.05,
        resolved: Math.min(1, 0.05 * (i + 1) * (reward === 'dense' ? 1.5 : 1)),
        train_infer_gap_r3: 2e-6,
        train_infer_gap_free: 3e-3,
        loss_drift: 0,
      }));
      writeFileSync(join(trainDir, 'metrics.jsonl'), rows.map((r) => JSON.stringify(r)).join('\n') + '\n');
      writeFileSync(
        join(trainDir, 'summary.json'),
        JSON.stringify({
          flaggedAssertions:
            reward === 'dense'
              ? [
                  {
                    taskId: 'task-3',
                    assertion: 'output exists',
                    passRateBefore: 0.2,
                    passRateAfter: 0.9,
                    binaryBefore: 0,
                    binaryAfter: 0,
                  },
                ]
              : [],
        }),
      );
      const evalDir = await writeRunFolder(
        join(root, name, `seed-${seed}`),
        'eval-nano-bench',
        tasks.map((task, i) => ({ task, category: i % 2 ? 'security' : 'debugging', resolved: [i < solved] })),
      );
      seeds.push({ seed, trainDir, checkpoint: join(trainDir, 'final'), evals: { 'nano-bench': evalDir } });
    }
    cells.push({ cell: { reward }, name, seeds });
  }
  return cells;
}
