/**
 * Where an evaluated checkpoint came from: an `onnx:` policy inside a training run's folder
 * (`…/training/<run>/checkpoints/step-NNNNNNN`) names its run and step; the run's run.json names its stage.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

export interface RunLineage {
  trainingRun: string;
  stage: string | null;
  step: number;
}

const CHECKPOINT_PATH = /(^|[\\/])training[\\/]([^\\/]+)[\\/](?:checkpoints|policy)[\\/](step|v)-(\d+)[\\/]?$/;

/** A folder inside a training run: a checkpoint (`checkpoints/step-N`) or a policy worker snapshot (`policy/v-N`). */
export function trainingFolderLineage(path: string): (RunLineage & { snapshot: boolean }) | null {
  const match = CHECKPOINT_PATH.exec(path);
  if (!match) return null;
  const snapshot = match[3] === 'v';
  const lineage = checkpointLineage(
    snapshot ? path.replace(/[\\/]policy[\\/]v-(\d+)[\\/]?$/, '/checkpoints/step-$1') : path,
  );
  return lineage ? { ...lineage, snapshot } : null;
}

export function checkpointLineage(policy: string): RunLineage | null {
  const path = policy.replace(/^onnx:/, '');
  const match = CHECKPOINT_PATH.exec(path);
  if (!match || match[3] !== 'step') return null;
  const trainingRun = match[2] as string;
  let stage: string | null = null;
  try {
    const root = join(path.slice(0, match.index + (match[1] ?? '').length), 'training', trainingRun);
    const manifest = JSON.parse(readFileSync(join(root, 'run.json'), 'utf8')) as { stage?: unknown };
    stage = typeof manifest.stage === 'string' ? manifest.stage : null;
  } catch {
    // the training run was removed or moved: its name and step are still known
  }
  return { trainingRun, stage, step: Number(match[4]) };
}

function lastPart(path: string): string {
  const parts = path.split(/[\\/]/).filter(Boolean);
  return parts.at(-1) ?? path;
}

/** A readable run title: `nano-rl-dense on examples`, `ppo-0412 step 3 on nano-bench`. */
export function runTitle(policy: string, suite: string, lineage: RunLineage | null): string {
  const suiteName = lastPart(suite).replace(/\.jsonl$/, '');
  if (lineage) return `${lineage.trainingRun} step ${lineage.step} on ${suiteName}`;
  const colon = policy.indexOf(':');
  const scheme = colon > 0 ? policy.slice(0, colon) : '';
  const rest = colon > 0 ? policy.slice(colon + 1) : policy;
  const name = scheme === 'onnx' ? lastPart(rest) : scheme ? `${scheme} ${lastPart(rest)}` : rest;
  return `${name} on ${suiteName}`;
}
