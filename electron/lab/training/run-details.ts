/**
 * What a training run ran with and what it said, for the Training page: the validated config of run.json
 * written back as TOML (the file `t1lab train --config` takes), the same values as flat hyperparameters,
 * code/machine/provider provenance, and the tails of train.log and metrics.jsonl.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'smol-toml';
import { LabError } from '../../ipc/common/errors';
import type { TrainingRunDetails } from '../../domain/training-view';
import { readRunLogTail } from './run-log';
import { VIEW_FILES } from './view-runs';
import { tailLines } from './tail-lines';

/** Lines of the log and rows of metrics.jsonl sent to the page. */
export const LOG_TAIL_LINES = 200;
export const METRICS_TAIL_ROWS = 20;

type Json = Record<string, unknown>;
const isObject = (v: unknown): v is Json => !!v && typeof v === 'object' && !Array.isArray(v);

function readJson(file: string): Json | null {
  try {
    const v: unknown = JSON.parse(readFileSync(file, 'utf8'));
    return isObject(v) ? v : null;
  } catch {
    return null;
  }
}

/** `section.key` = value for every leaf (arrays as JSON), in the config's own order. */
export function flattenConfig(config: Json, prefix = ''): { key: string; value: string }[] {
  const out: { key: string; value: string }[] = [];
  for (const [k, v] of Object.entries(config)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (isObject(v)) out.push(...flattenConfig(v, key));
    else out.push({ key, value: typeof v === 'string' ? v : JSON.stringify(v) });
  }
  return out;
}

/** TOML has no null: a null value is left out (it means "unset", the default). */
function dropNulls(v: unknown): unknown {
  if (Array.isArray(v)) return v.map(dropNulls);
  if (!isObject(v)) return v;
  return Object.fromEntries(
    Object.entries(v)
      .filter(([, x]) => x !== null && x !== undefined)
      .map(([k, x]) => [k, dropNulls(x)]),
  );
}

export function configAsToml(config: Json): string {
  try {
    return stringify(dropNulls(config) as Json);
  } catch (error) {
    return `# this config does not write as TOML (${(error as Error).message}); as JSON:\n${JSON.stringify(config, null, 2)}`;
  }
}

function provenance(manifest: Json): { key: string; value: string }[] {
  const rows: { key: string; value: string }[] = [];
  const add = (key: string, value: unknown) => {
    if (value !== null && value !== undefined && value !== '') rows.push({ key, value: String(value) });
  };
  const code = isObject(manifest.code) ? manifest.code : {};
  const machine = isObject(manifest.machine) ? manifest.machine : {};
  const provider = isObject(manifest.provider) ? manifest.provider : {};
  const init = isObject(manifest.init) ? manifest.init : {};
  add('started', manifest.createdAt);
  add('from checkpoint', init.path);
  add('code', [code.version, code.commit ? String(code.commit).slice(0, 12) : null].filter(Boolean).join(' · '));
  add('provider', [provider.name, provider.fallbackReason].filter(Boolean).join(' · '));
  add(
    'machine',
    [machine.cpu, machine.cores ? `${String(machine.cores)} cores` : null, machine.hostname]
      .filter(Boolean)
      .join(' · '),
  );
  if (Array.isArray(manifest.resumes) && manifest.resumes.length) add('resumed', `${manifest.resumes.length}×`);
  return rows;
}

export function readTrainingRunDetails(runId: string, dir: string): TrainingRunDetails {
  const manifest = readJson(join(dir, VIEW_FILES.manifest));
  if (!manifest) throw new LabError('UNAVAILABLE', `${join(dir, VIEW_FILES.manifest)}: not a JSON object`);
  const config = isObject(manifest.config) ? manifest.config : {};
  const status = readJson(join(dir, VIEW_FILES.status)) ?? {};
  const log = readRunLogTail(dir, LOG_TAIL_LINES);
  return {
    runId,
    stage: typeof manifest.stage === 'string' ? manifest.stage : '?',
    configToml: configAsToml(config),
    configSource: typeof manifest.configSource === 'string' ? manifest.configSource : null,
    hyperparameters: flattenConfig(config),
    provenance: provenance(manifest),
    log: log.lines,
    logLines: log.total,
    metricsTail: tailLines(join(dir, VIEW_FILES.metrics), METRICS_TAIL_ROWS),
    message: typeof status.message === 'string' ? status.message : null,
  };
}
