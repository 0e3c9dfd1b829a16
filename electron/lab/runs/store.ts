/**
 * A run folder (DESIGN.md): `run.json` (the manifest: config, seed, code version), append-only fsync'd
 * `episodes.jsonl` (one record per finished episode, written after its folder is complete), `episodes/<key>/`
 * (trajectory, ATIF export, recording, verifier output) and `summary.json` once done. A run killed at any
 * moment reopens to exactly its finished episodes: a torn last line is cut off, an episode folder without its
 * record is redone from scratch.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  openSync,
  closeSync,
  fsyncSync,
  readFileSync,
  renameSync,
  rmSync,
  truncateSync,
  writeFileSync,
} from 'node:fs';
import { open, rename, type FileHandle } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { LabError } from '../../ipc/common/errors';
import { EpisodeRecord, RunManifest } from '../../domain/runs';

export const RUN_FILES = {
  manifest: 'run.json',
  episodes: 'episodes.jsonl',
  /** Records of infrastructure errors a resume took out of episodes.jsonl to run those episodes again (kept for the record). */
  retried: 'episodes-retried.jsonl',
  summary: 'summary.json',
  episodesDir: 'episodes',
} as const;

/** Write a file so that a reader sees the old or the new content, never a mix (tmp + fsync + rename). */
export function writeFileAtomic(path: string, data: string): void {
  const tmp = `${path}.tmp-${process.pid}`;
  writeFileSync(tmp, data);
  const fd = openSync(tmp, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  renameSync(tmp, path);
}

/**
 * writeFileAtomic off the event loop: the same tmp + fsync + rename, but waiting for the disk does not stop
 * the other episodes' shells, timers and sandboxes (an episode writes two files of its own this way).
 */
export async function writeFileAtomicAsync(path: string, data: string): Promise<void> {
  const tmp = `${path}.tmp-${process.pid}`;
  const handle = await open(tmp, 'w');
  try {
    await handle.writeFile(data);
    await handle.sync();
  } finally {
    await handle.close();
  }
  await rename(tmp, path);
}

export function episodeKey(taskId: string, attempt: number): string {
  return `${taskId}@${attempt}`;
}

/** A folder name for an episode: readable, unique even when ids differ only in unsafe characters. */
export function episodeFolder(taskId: string, attempt: number): string {
  const safe = taskId.replace(/[^A-Za-z0-9._-]/g, '_').slice(0, 80);
  const suffix = safe === taskId ? '' : `-${createHash('sha256').update(taskId).digest('hex').slice(0, 8)}`;
  return `${RUN_FILES.episodesDir}/${safe}${suffix}-a${attempt}`;
}

/** Read episodes.jsonl: a torn last line (the process died mid-write) is cut off; a bad line elsewhere is an error. */
function readRecords(path: string): EpisodeRecord[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8');
  const complete = text.endsWith('\n') || text === '' ? text : text.slice(0, text.lastIndexOf('\n') + 1);
  if (complete.length !== text.length) truncateSync(path, Buffer.byteLength(complete));
  const records: EpisodeRecord[] = [];
  const lines = complete.split('\n');
  for (const [i, line] of lines.entries()) {
    if (!line.trim()) continue;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch (error) {
      throw new LabError('INVALID_PARAMS', `${path}:${i + 1}: not JSON (${(error as Error).message})`);
    }
    const record = EpisodeRecord.safeParse(parsed);
    if (!record.success)
      throw new LabError(
        'INVALID_PARAMS',
        `${path}:${i + 1}: not an episode record (${record.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')})`,
      );
    records.push(record.data);
  }
  return records;
}

export class RunStore {
  private handle: FileHandle | null = null;
  private writes: Promise<void> = Promise.resolve();
  private readonly records = new Map<string, EpisodeRecord>();

  private constructor(
    readonly dir: string,
    readonly manifest: RunManifest,
    records: EpisodeRecord[],
  ) {
    for (const r of records) {
      if (this.records.has(r.key))
        throw new LabError('CONFLICT', `${join(dir, RUN_FILES.episodes)}: episode ${r.key} is recorded twice`);
      this.records.set(r.key, r);
    }
  }

  static create(dir: string, manifest: RunManifest): RunStore {
    const abs = resolve(dir);
    if (existsSync(join(abs, RUN_FILES.manifest)))
      throw new LabError(
        'CONFLICT',
        `${abs} already holds a run: resume it with --resume ${abs}, or choose another --out`,
      );
    mkdirSync(join(abs, RUN_FILES.episodesDir), { recursive: true });
    writeFileAtomic(join(abs, RUN_FILES.manifest), `${JSON.stringify(manifest, null, 2)}\n`);
    writeFileSync(join(abs, RUN_FILES.episodes), '', { flag: 'a' });
    return new RunStore(abs, manifest, []);
  }

  static open(dir: string): RunStore {
    const abs = resolve(dir);
    const path = join(abs, RUN_FILES.manifest);
    if (!existsSync(path)) throw new LabError('NOT_FOUND', `${abs} is not a run folder (no ${RUN_FILES.manifest})`);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(path, 'utf8'));
    } catch (error) {
      throw new LabError('INVALID_PARAMS', `${path}: not JSON (${(error as Error).message})`);
    }
    const manifest = RunManifest.safeParse(raw);
    if (!manifest.success)
      throw new LabError(
        'INVALID_PARAMS',
        `${path}: not a run manifest (${manifest.error.issues.map((x) => `${x.path.join('.')}: ${x.message}`).join('; ')})`,
      );
    return new RunStore(abs, manifest.data, readRecords(join(abs, RUN_FILES.episodes)));
  }

  finished(): EpisodeRecord[] {
    return [...this.records.values()];
  }

  has(key: string): boolean {
    return this.records.has(key);
  }

  /**
   * Take the episodes that ended in an infrastructure error (no engine host could run them: not the
   * policy's doing) out of the finished ones, so that the run schedules them again. Their records move to
   * episodes-retried.jsonl (appended, fsync'd) before episodes.jsonl is rewritten without them (atomically):
   * a kill in between leaves them in both files, never in neither. Returns the keys taken out.
   */
  retryInfrastructureErrors(): string[] {
    const failed = [...this.records.values()].filter((r) => r.error?.kind === 'infrastructure');
    if (!failed.length) return [];
    if (this.handle)
      throw new LabError(
        'CONFLICT',
        `${this.dir}: episodes are being recorded; infrastructure errors are taken out before a run starts`,
      );
    const retried = join(this.dir, RUN_FILES.retried);
    writeFileSync(retried, failed.map((r) => `${JSON.stringify(r)}\n`).join(''), { flag: 'a' });
    const fd = openSync(retried, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    for (const r of failed) this.records.delete(r.key);
    writeFileAtomic(
      join(this.dir, RUN_FILES.episodes),
      [...this.records.values()].map((r) => `${JSON.stringify(r)}\n`).join(''),
    );
    return failed.map((r) => r.key);
  }

  /** A fresh, empty folder for an episode (whatever a killed attempt left there is removed). */
  prepareEpisodeDir(taskId: string, attempt: number): { abs: string; rel: string } {
    const rel = episodeFolder(taskId, attempt);
    const abs = join(this.dir, rel);
    rmSync(abs, { recursive: true, force: true });
    mkdirSync(abs, { recursive: true });
    return { abs, rel };
  }

  /** Append a finished episode: one line, fsync'd before this resolves. Appends are serialized. */
  append(record: EpisodeRecord): Promise<void> {
    if (this.records.has(record.key))
      return Promise.reject(new LabError('CONFLICT', `episode ${record.key} is already recorded in ${this.dir}`));
    this.records.set(record.key, record);
    const line = `${JSON.stringify(EpisodeRecord.parse(record))}\n`;
    const write = this.writes.then(async () => {
      this.handle ??= await open(join(this.dir, RUN_FILES.episodes), 'a');
      await this.handle.write(line);
      await this.handle.sync();
    });
    this.writes = write.catch(() => {});
    return write;
  }

  writeSummary(summary: unknown): void {
    writeFileAtomic(join(this.dir, RUN_FILES.summary), `${JSON.stringify(summary, null, 2)}\n`);
  }

  async close(): Promise<void> {
    await this.writes;
    await this.handle?.close();
    this.handle = null;
  }
}
