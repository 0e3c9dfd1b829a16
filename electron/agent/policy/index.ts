/**
 * Policies by spec: `oracle`, `replay:FILE`, `openai:BASE_URL#MODEL`, `onnx:CHECKPOINT`. The same options
 * object carries what the CLI and the Runs page let a user set; each policy takes what applies to it.
 */
import { LabError } from '../../ipc/common/errors';
import { createOpenAiPolicy } from './openai';
import { createOraclePolicy } from './oracle';
import { createReplayPolicy } from './replay';
import type { Policy, PolicyOptions } from './types';

/** Makes `onnx:` policies; supplied by the layer that owns the policy worker (absent until it exists). */
export type OnnxPolicyFactory = (checkpoint: string, options: PolicyOptions) => Promise<Policy>;

export const POLICY_SPECS = 'oracle | replay:FILE | openai:BASE_URL#MODEL | onnx:CHECKPOINT';

export async function createPolicy(
  spec: string,
  options: PolicyOptions = {},
  onnx?: OnnxPolicyFactory,
): Promise<Policy> {
  if (spec === 'oracle') return createOraclePolicy({ protocol: options.protocol });
  if (spec.startsWith('replay:'))
    return createReplayPolicy(spec.slice('replay:'.length), { protocol: options.protocol });
  if (spec.startsWith('openai:')) return createOpenAiPolicy(spec, options);
  if (spec.startsWith('onnx:')) {
    if (!onnx)
      throw new LabError(
        'UNAVAILABLE',
        `policy '${spec}': the local ONNX policy is not available in this build (it comes with the policy engine)`,
      );
    return onnx(spec.slice('onnx:'.length), options);
  }
  throw new LabError('INVALID_PARAMS', `unknown policy '${spec}': use ${POLICY_SPECS}`);
}

export {
  PolicyError,
  type Policy,
  type PolicyEpisode,
  type PolicyOptions,
  type PolicyReply,
  type PolicyRequest,
  type EpisodeInfo,
} from './types';
