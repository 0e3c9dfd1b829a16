/**
 * The agent's deadline, against a real sandboxed shell: an action bounded by the agent's remaining time that
 * runs to that bound ends the episode with `agent_timeout`, never with the next turn's policy failure. The
 * command's timer and the loop's clock used to disagree by a millisecond, so the loop asked the policy for one
 * more turn after the agent's time was up, and a failure there was blamed on the policy.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShellSession, type SandboxShellSession } from '../../../native/pty/index';
import { runAgentLoop } from '../../../electron/agent/episode/loop';
import { createReplayPolicy } from '../../../electron/agent/policy/replay';
import { backend, leftoverSandboxes, specFor } from '../../helpers/sandbox';
import { makeTempDir } from '../../helpers/tmp';

const ws = makeTempDir('t1lab-deadline-');
const scripts = makeTempDir('t1lab-deadline-scripts-');
let session: SandboxShellSession;

beforeAll(async () => {
  session = await createShellSession({ backend, spec: specFor(ws.path, { wallSeconds: 0 }) });
  await session.ready();
});
afterAll(async () => {
  await session.close();
  ws.remove();
  scripts.remove();
  expect(leftoverSandboxes()).toEqual([]);
});

/** A one-turn replay script: the policy has nothing to say after it (a second turn is a policy failure). */
function oneTurn(name: string, action: object): string {
  const file = join(scripts.path, `${name}.json`);
  writeFileSync(file, JSON.stringify({ protocol: 'hermes', turns: [{ action }] }));
  return file;
}

describe('the agent deadline', () => {
  // Many short episodes: each used to end with policy_error whenever the bounded wait returned within the
  // millisecond before the loop's clock said "expired" (most of the time on some machines, rarely on others).
  it.each([
    ['keys waiting longer than the agent has', { tool: 'keys', keys: ['C-l'], durationSec: 60 }],
    ['a command running longer than the agent has', { tool: 'bash', command: 'sleep 30', timeoutSec: 60 }],
  ])('%s ends every episode with agent_timeout', async (name, action) => {
    const policy = createReplayPolicy(oneTurn(name.replaceAll(' ', '-'), action));
    const reasons: string[] = [];
    for (let i = 0; i < 15; i++) {
      const result = await runAgentLoop({
        policy,
        session,
        taskId: 't',
        instruction: 'wait',
        solutionCommands: null,
        seed: i,
        agentTimeoutSec: 0.05,
      });
      reasons.push(result.stopReason);
      expect(result.turns, JSON.stringify(result.error)).toHaveLength(1);
      expect(result.error).toMatchObject({ kind: 'timeout' });
      if (session.busy) {
        session.sendKeys([{ key: 'C-c' }]);
        while (session.busy) await new Promise((r) => setTimeout(r, 10));
      }
    }
    expect(reasons).toEqual(reasons.map(() => 'agent_timeout'));
  });
});
