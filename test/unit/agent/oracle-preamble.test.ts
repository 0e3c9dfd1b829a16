import { describe, expect, it } from 'vitest';
import { isPreambleCommand, withoutPreamble } from '../../../electron/agent/policy/oracle-preamble';
import { createOraclePolicy } from '../../../electron/agent/policy/oracle';
import { createProtocol } from '../../../electron/agent/protocol';

describe('the oracle preamble (SFT data shaped for a small turn budget)', () => {
  it('recognises shell option lines and a cd into the workspace, nothing else', () => {
    for (const c of [
      'set -uo pipefail',
      'set -u',
      'set -o nounset -o pipefail',
      'set +x',
      'cd /app',
      "cd '/app/'",
      'cd "/app";',
    ])
      expect(isPreambleCommand(c), c).toBe(true);
    for (const c of ['cd /app/sub', 'cd app', 'set', 'set -- a b', 'ls', 'cd /app && ls', 'set -u\nls'])
      expect(isPreambleCommand(c), c).toBe(false);
  });

  it('drops only the leading preamble; a later cd /app is work', () => {
    expect(withoutPreamble(['set -uo pipefail', 'cd /app', 'ls', 'cd /app', 'wc -l x'])).toEqual([
      'ls',
      'cd /app',
      'wc -l x',
    ]);
    expect(withoutPreamble(['ls', 'set -u'])).toEqual(['ls', 'set -u']);
  });

  it('the oracle types the work as its first turn when asked to skip the preamble', async () => {
    const protocol = createProtocol('hermes');
    const first = async (skipPreamble: boolean) => {
      const episode = await createOraclePolicy({ protocol: 'hermes', skipPreamble }).startEpisode({
        taskId: 't',
        solutionCommands: ['set -uo pipefail', 'cd /app', 'wc -l a.log > n.txt'],
        protocol,
        agentTimeoutSec: 60,
      } as never);
      const reply = await episode.turn({ turn: 0 } as never);
      return protocol.parse({ text: reply.text }).actions?.[0];
    };
    expect(await first(true)).toMatchObject({ tool: 'bash', command: 'wc -l a.log > n.txt' });
    expect(await first(false)).toMatchObject({ tool: 'bash', command: 'set -uo pipefail' });
  });
});
