/**
 * Context that fits: the compact system prompt (small windows) lists the same tools in far fewer tokens,
 * and a run whose checkpoint cannot hold a suite's first prompts is warned about, naming the tasks.
 */
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadTokenizerFile } from '../../../native/model/tokenizer';
import { chatml } from '../../../electron/agent/chat/chatml';
import { compactPrompt } from '../../../electron/agent/episode/loop';
import { createTokenizedOraclePolicy } from '../../../electron/agent/policy/tokenized-oracle';
import { createHermesProtocol } from '../../../electron/agent/protocol/hermes';
import { AGENT_TOOLS } from '../../../electron/agent/protocol/tools';
import { loadTaskSource } from '../../../electron/lab/tasks';
import { measurePromptFit, promptFitWarning } from '../../../electron/lab/runs/prompt-fit';
import { writeTinyCheckpoint } from '../../helpers/tiny-checkpoint';
import { makeTempDir } from '../../helpers/tmp';

const tmp = makeTempDir('t1lab-fit-');
afterAll(() => tmp.remove());
const dir = writeTinyCheckpoint(join(tmp.path, 'tiny'));
const tokenizer = loadTokenizerFile(dir);
const codec = { encode: (t: string) => tokenizer.encode(t), decode: (ids: readonly number[]) => tokenizer.decode(ids) };
const policy = (window: number) =>
  createTokenizedOraclePolicy({
    codec,
    template: chatml,
    endOfTurnId: tokenizer.special.imEnd!,
    contextWindow: window,
    maxCompletionTokens: Math.floor(window / 8),
  });

describe('context that fits', () => {
  it('the compact prompt names the same tools in a fraction of the tokens, and small windows get it', () => {
    const hermes = createHermesProtocol();
    const full = hermes.systemPrompt({ maxTurns: 30, timeoutSec: 600, toolsInTemplate: false });
    const compact = hermes.systemPrompt({ maxTurns: 30, timeoutSec: 600, toolsInTemplate: false, compact: true });
    for (const tool of AGENT_TOOLS) expect(compact).toContain(tool.function.name);
    expect(compact).toContain('<tool_call>');
    expect(codec.encode(compact).length).toBeLessThan(codec.encode(full).length / 4);
    expect(compactPrompt(policy(2048))).toBe(true);
    expect(compactPrompt(policy(32_768))).toBe(false);
    expect(compactPrompt({})).toBe(false);
  });

  it('warns before a run whose window cannot hold the suite prompts', async () => {
    const tasks = (await loadTaskSource(join(process.cwd(), 'tasks', 'examples'))).tasks;
    const roomy = measurePromptFit(policy(8192), tasks, 30)!;
    expect(roomy.tooLong).toEqual([]);
    expect(promptFitWarning(policy(8192), tasks, 30)).toBeNull();
    // A window just below the longest prompt: that task (at least) is named.
    const window = Math.floor(((roomy.longest + 1) * 8) / 7) - 8;
    const tight = measurePromptFit(policy(window), tasks, 30)!;
    expect(tight.tooLong.length).toBeGreaterThan(0);
    expect(tight.tooLong.length).toBeLessThan(tasks.length);
    const warning = promptFitWarning(policy(window), tasks, 30)!;
    expect(warning).toContain(`${tight.tooLong.length} of ${tasks.length} task prompts do not fit`);
    expect(warning).toContain(tight.tooLong[0]!);
  });
});
