/**
 * The task's own verdict: `/logs/verifier/reward.json` (`{"reward": 0.75}` or named values) or
 * `reward.txt` (one number), read first-json-then-txt like Harbor. Kept beside our per-assertion reward,
 * never instead of it.
 */
import { z } from 'zod';
import { readReport } from './safe-read';

export const TaskReward = z.object({
  source: z.enum(['reward.json', 'reward.txt']),
  /** The single reward: `reward` in reward.json, the number in reward.txt, else null. */
  value: z.number().nullable(),
  /** All numeric values of reward.json (named rewards), or `{reward: value}` for reward.txt. */
  values: z.record(z.string(), z.number()),
});
export type TaskReward = z.infer<typeof TaskReward>;

export async function readTaskReward(logsDir: string): Promise<{ reward: TaskReward | null; notes: string[] }> {
  const notes: string[] = [];
  const json = await readReport(logsDir, 'reward.json', 1024 * 1024);
  if (json.kind === 'refused') notes.push(json.reason);
  if (json.kind === 'ok') {
    try {
      const value = JSON.parse(json.text) as unknown;
      if (typeof value === 'number')
        return { reward: { source: 'reward.json', value, values: { reward: value } }, notes };
      if (value && typeof value === 'object' && !Array.isArray(value)) {
        const values = Object.fromEntries(
          Object.entries(value).filter((e): e is [string, number] => typeof e[1] === 'number' && Number.isFinite(e[1])),
        );
        const single =
          typeof values.reward === 'number'
            ? values.reward
            : Object.keys(values).length === 1
              ? (Object.values(values)[0] ?? null)
              : null;
        return { reward: { source: 'reward.json', value: single, values }, notes };
      }
      notes.push('reward.json is neither a number nor an object of named values; ignored');
    } catch (error) {
      notes.push(`reward.json is not valid JSON (${(error as Error).message}); ignored`);
    }
  }
  const txt = await readReport(logsDir, 'reward.txt', 64 * 1024);
  if (txt.kind === 'refused') notes.push(txt.reason);
  if (txt.kind === 'ok') {
    const value = Number(txt.text.trim());
    if (txt.text.trim() !== '' && Number.isFinite(value))
      return { reward: { source: 'reward.txt', value, values: { reward: value } }, notes };
    notes.push(`reward.txt does not hold a number ('${txt.text.trim().slice(0, 40)}'); ignored`);
  }
  return { reward: null, notes };
}
