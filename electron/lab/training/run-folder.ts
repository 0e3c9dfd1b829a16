/**
 * A training run folder: `run.json` (manifest: config, git commit, machine, provider, checkpoints with
 * their hashes' id), `metrics.jsonl` (one row per step, appended and fsync'd), TensorBoard event files
 * (`events.out.tfevents.*`) and `checkpoints/step-NNNNNNN/` training checkpoints. Default location:
 * `$T1LAB_HOME/training/<id>`.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { closeSync, existsSync, fsyncSync, mkdirSync, openSync, readFileSync, readdirSync, writeSync } from 'node:fs';
import { cpus, hostname, totalmem } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { readManifest } from '../../../native/model/checkpoint';
import { MetricsRow, TRAINING_RUN_SCHEMA, TrainingRunManifest } from '../../domain/training';
import { LabError } from '../../ipc/common/errors';
import { appRoot, appVersion } from '../app-paths';
import { writeFileAtomic } from '../runs/store';

export const TRAINING_FILES = {
  manifest: 'run.json',
  metrics: 'metrics.jsonl',
  checkpoints: 'checkpoints',
  status: 'status.json',
} as const;

export function trainingRunsDir(dataDir: string): string {
  return join(dataDir, 'training');
}

export function newTrainingRunId(stage: string, now = new Date()): string {
  const stamp = now.toISOString().replace(/[-:]/g, '').replace('T', '-').slice(0, 15);
  return `${stamp}-${stage}-${randomBytes(2).toString('hex')}`;
}

export function gitCommit(root = appRoot()): string | null {
  try {
    return (
      execFileSync('git', ['rev-parse', 'HEAD'], {
        cwd: root,
        encoding: 'utf8',
        timeout: 2_000,
        stdio: ['ignore', 'pipe', 'ignore'],
      }).trim() || null
    );
  } catch {
    return null;
  }
}

export function machineInfo(): TrainingRunManifest['machine'] {
  const list = cpus();
  return {
    platform: `${process.platform}-${process.arch}`,
    cpu: list[0]?.model ?? 'unknown',
    cores: list.length,
    memoryBytes: totalmem(),
    node: process.versions.node,
    hostname: hostname(),
  };
}

/**
 * The manifest of a new run in `runDir` (its id is the folder's name): what it was started from and with,
 * on which code and machine. `data`, checkpoints and resumes fill in as the run goes.
 */
export function newTrainingManifest(o: {
  runDir: string;
  stage: TrainingRunManifest['stage'];
  config: unknown;
  configSource: TrainingRunManifest['configSource'];
  initDir: string;
  paramGroups: TrainingRunManifest['paramGroups'];
}): TrainingRunManifest {
  return {
    schema: TRAINING_RUN_SCHEMA,
    id: basename(o.runDir),
    stage: o.stage,
    createdAt: new Date().toISOString(),
    config: o.config as Record<string, unknown>,
    configSource: o.configSource,
    init: { path: o.initDir, id: readManifest(o.initDir).id },
    code: { version: appVersion(), commit: gitCommit() },
    machine: machineInfo(),
    provider: null,
    paramGroups: o.paramGroups,
    data: {},
    checkpoints: [],
    resumes: [],
  };
}

export function readTrainingManifest(runDir: string): TrainingRunManifest {
  const path = join(runDir, TRAINING_FILES.manifest);
  if (!existsSync(path)) throw new LabError('NOT_FOUND', `${path}: no such training run (run.json is missing)`);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new LabError('INVALID_PARAMS', `${path}: not JSON (${(error as Error).message})`);
  }
  const parsed = TrainingRunManifest.safeParse(raw);
  if (!parsed.success)
    throw new LabError(
      'INVALID_PARAMS',
      `${path}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    );
  return parsed.data;
}

export function writeTrainingManifest(runDir: string, manifest: TrainingRunManifest): void {
  writeFileAtomic(join(runDir, TRAINING_FILES.manifest), JSON.stringify(manifest, null, 2) + '\n');
}

/** Rows of metrics.jsonl; a torn last line (a killed writer) is ignored. */
export function readMetrics(runDir: string): MetricsRow[] {
  const path = join(runDir, TRAINING_FILES.metrics);
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8');
  const lines = text.split('\n');
  if (!text.endsWith('\n')) lines.pop();
  const rows: MetricsRow[] = [];
  for (const line of lines) {
    if (!line.trim()) continue;
    rows.push(MetricsRow.parse(JSON.parse(line)));
  }
  return rows;
}

/** metrics.jsonl, appended one fsync'd line per step. */
export class MetricsLog {
  private readonly fd: number;

  /** Opens for appending; with `keepThroughStep`, rows after that step (a killed run's unsaved steps) are dropped first. */
  constructor(
    readonly runDir: string,
    keepThroughStep?: number,
  ) {
    const path = join(runDir, TRAINING_FILES.metrics);
    if (keepThroughStep !== undefined && existsSync(path)) {
      const kept = readMetrics(runDir).filter((r) => r.step <= keepThroughStep);
      writeFileAtomic(path, kept.map((r) => JSON.stringify(r) + '\n').join(''));
    }
    this.fd = openSync(path, 'a');
  }

  append(row: MetricsRow): void {
    const bytes = Buffer.from(JSON.stringify(row) + '\n');
    let done = 0;
    while (done < bytes.length) done += writeSync(this.fd, bytes, done, bytes.length - done);
    fsyncSync(this.fd);
  }

  close(): void {
    closeSync(this.fd);
  }
}

export function createRunFolder(dir: string): string {
  const runDir = resolve(dir);
  if (existsSync(runDir) && readdirSync(runDir).length > 0)
    throw new LabError(
      'CONFLICT',
      `${runDir} already exists and is not empty: pass --resume to continue it, or another --out`,
    );
  mkdirSync(join(runDir, TRAINING_FILES.checkpoints), { recursive: true });
  return runDir;
}
