/**
 * `oracle`: the task's reference solution, run through the harness as one tool call per top-level command,
 * then `submit`. Observations are real (the commands run in the episode's shell), so oracle trajectories are
 * SFT data in exactly the format the policy will be trained to produce.
 */
import { LabError } from '../../ipc/common/errors';
import type { ProtocolName } from '../../domain/trajectory';
import { withoutPreamble } from './oracle-preamble';
import { PolicyError, ZERO_USAGE, type Policy, type PolicyEpisode } from './types';

export interface OracleOptions {
  protocol?: ProtocolName;
  /** Leave out the leading `set -…` / `cd /app` commands (SFT data shaped for a small turn budget). */
  skipPreamble?: boolean;
  /** Write each call's `timeout` (the agent's time budget; default true). SFT data leaves it out: the
   * harness bounds a command by the agent's remaining time anyway, and every call is 5 tokens shorter. */
  callTimeout?: boolean;
}

export function createOraclePolicy(options: OracleOptions = {}): Policy {
  const protocol = options.protocol ?? 'hermes';
  if (protocol === 'terminus')
    throw new LabError(
      'INVALID_PARAMS',
      'the oracle runs commands to completion: use --protocol hermes or tools (Terminus-2 only sends keystrokes)',
    );
  return {
    id: 'oracle',
    protocol,
    model: null,
    contextWindow: null,
    maxCompletionTokens: 0,
    async startEpisode(info): Promise<PolicyEpisode> {
      const all = info.solutionCommands;
      if (!all) throw new PolicyError(`task ${info.taskId} has no reference solution for the oracle`);
      const commands = options.skipPreamble ? withoutPreamble(all) : all;
      let next = 0;
      return {
        async turn(request) {
          const command = commands[next++];
          const action =
            command === undefined
              ? ({ tool: 'submit' } as const)
              : ({
                  tool: 'bash',
                  command,
                  ...(options.callTimeout === false ? {} : { timeoutSec: info.agentTimeoutSec }),
                } as const);
          return {
            ...info.protocol.writeAction(action, `call_${request.turn}`),
            usage: ZERO_USAGE,
            costUsd: null,
            finishReason: 'scripted',
          };
        },
      };
    },
    async close() {},
  };
}
