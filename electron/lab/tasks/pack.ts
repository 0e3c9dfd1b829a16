/**
 * Task packs: JSONL, one complete task per line, files inline as UTF-8 text or base64. For corpora of
 * thousands of tasks. Reading streams line by line; a bad line is reported (file:line, field, reason) and
 * the others still load.
 */
import { createReadStream, createWriteStream } from 'node:fs';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import { finished } from 'node:stream/promises';
import { z } from 'zod';
import type { TaskProblem } from '../../domain/tasks';
import { buildTask } from './build-task';
import { DEFAULT_SIZE_LIMITS, type SizeLimits } from './limits';
import { decodeText, type Task, type TaskFile } from './model';
import { taskIdProblem, taskPathProblem } from './paths';
import { Problems } from './problems';

export const PACK_FORMAT = 't1lab.task.v1';

const PackFile = z.union([
  z.strictObject({ path: z.string(), text: z.string(), executable: z.boolean().optional() }),
  z.strictObject({ path: z.string(), base64: z.string(), executable: z.boolean().optional() }),
]);

export const PackLine = z.looseObject({
  format: z.literal(PACK_FORMAT, { error: `unknown pack format (expected "${PACK_FORMAT}")` }).optional(),
  id: z.string({ error: 'each line needs an "id"' }),
  files: z.array(z.unknown(), { error: 'each line needs "files": [{path, text | base64}]' }),
});
export type PackLine = z.infer<typeof PackLine>;

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

export interface PackEntry {
  /** 1-based line number in the pack. */
  line: number;
  id: string;
  task: Task | null;
  problems: TaskProblem[];
}

/** Where a problem of a pack line is: `pack.jsonl:12`, or `pack.jsonl:12:task.toml` for a file of the task. */
export function packLocation(packPath: string, line: number, file?: string): string {
  const at = `${basename(packPath)}:${line}`;
  return file && file !== '.' ? `${at}:${file}` : at;
}

/** Decode and check one line; never throws. */
export function parsePackLine(
  packPath: string,
  lineNo: number,
  text: string,
  limits: SizeLimits = DEFAULT_SIZE_LIMITS,
): PackEntry {
  const at = packLocation(packPath, lineNo);
  const problems = new Problems();
  const fallbackId = `line-${lineNo}`;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    problems.error(at, null, `not valid JSON: ${(error as Error).message}`);
    return { line: lineNo, id: fallbackId, task: null, problems: problems.list };
  }
  const parsed = PackLine.safeParse(json);
  if (!parsed.success) {
    problems.fromZod(at, parsed.error);
    const id = typeof (json as { id?: unknown })?.id === 'string' ? (json as { id: string }).id : fallbackId;
    return { line: lineNo, id, task: null, problems: problems.list };
  }
  const { id } = parsed.data;
  const idProblem = taskIdProblem(id);
  if (idProblem) problems.error(at, 'id', idProblem);

  const files: TaskFile[] = [];
  const seen = new Set<string>();
  let total = 0;
  if (parsed.data.files.length > limits.maxFiles)
    problems.error(at, 'files', `has ${parsed.data.files.length} files, over the limit of ${limits.maxFiles}`);
  parsed.data.files.slice(0, limits.maxFiles).forEach((raw, i) => {
    const field = `files[${i}]`;
    const file = PackFile.safeParse(raw);
    if (!file.success) {
      problems.error(
        at,
        field,
        'must be {"path": ..., "text": ...} or {"path": ..., "base64": ...} (optionally "executable": true)',
      );
      return;
    }
    const { path } = file.data;
    const pathProblem = taskPathProblem(path);
    if (pathProblem) return problems.error(at, `${field}.path`, pathProblem);
    if (seen.has(path)) return problems.error(at, `${field}.path`, `'${path}' appears twice`);
    seen.add(path);
    let data: Uint8Array;
    if ('text' in file.data) data = new TextEncoder().encode(file.data.text);
    else {
      const b64 = file.data.base64.replace(/\s+/g, '');
      if (b64.length % 4 !== 0 || !BASE64.test(b64))
        return problems.error(at, `${field}.base64`, `is not valid base64 (${path})`);
      const buf = Buffer.from(b64, 'base64');
      data = new Uint8Array(buf.buffer, buf.byteOffset, buf.byteLength);
    }
    if (data.byteLength > limits.maxFileBytes)
      return problems.error(
        at,
        field,
        `'${path}' is ${data.byteLength} bytes, over the ${limits.maxFileBytes}-byte limit for one file`,
      );
    total += data.byteLength;
    files.push({ path, data, executable: file.data.executable ?? false });
  });
  if (total > limits.maxTaskBytes)
    problems.error(at, 'files', `total ${total} bytes, over the ${limits.maxTaskBytes}-byte limit for one task`);
  // A file path that is also a folder of another (`a` and `a/b`) cannot be written out.
  for (const path of seen) {
    const parts = path.split('/');
    for (let i = 1; i < parts.length; i++) {
      const prefix = parts.slice(0, i).join('/');
      if (seen.has(prefix)) problems.error(at, 'files', `'${prefix}' is both a file and a folder (of '${path}')`);
    }
  }
  if (problems.hasErrors) return { line: lineNo, id, task: null, problems: problems.list };

  const built = buildTask(id, files, { kind: 'pack', path: packPath, line: lineNo });
  const located = built.problems.map((p) => ({ ...p, file: packLocation(packPath, lineNo, p.file) }));
  if (built.task) built.task.warnings = located.filter((p) => p.severity === 'warning');
  return { line: lineNo, id, task: built.task, problems: located };
}

/** Stream the entries of a pack; blank lines are skipped; duplicate ids after the first are reported. */
export async function* readPack(packPath: string, limits: SizeLimits = DEFAULT_SIZE_LIMITS): AsyncGenerator<PackEntry> {
  const lines = createInterface({ input: createReadStream(packPath, { encoding: 'utf8' }), crlfDelay: Infinity });
  const ids = new Map<string, number>();
  let lineNo = 0;
  for await (const text of lines) {
    lineNo++;
    if (text.trim() === '') continue;
    const entry = parsePackLine(packPath, lineNo, text, limits);
    const first = ids.get(entry.id);
    if (first !== undefined && entry.task) {
      yield {
        line: lineNo,
        id: entry.id,
        task: null,
        problems: [
          {
            file: packLocation(packPath, lineNo),
            field: 'id',
            reason: `duplicate id '${entry.id}' (first on line ${first})`,
            severity: 'error',
          },
        ],
      };
      continue;
    }
    if (first === undefined) ids.set(entry.id, lineNo);
    yield entry;
  }
}

/** One pack line for a task: text when the bytes are UTF-8, base64 otherwise; paths sorted for stable diffs. */
export function packLineOf(task: Pick<Task, 'id' | 'files'>): string {
  const files = [...task.files]
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .map((f) => {
      const text = decodeText(f.data);
      const body = text !== null ? { text } : { base64: Buffer.from(f.data).toString('base64') };
      return { path: f.path, ...body, ...(f.executable ? { executable: true } : {}) };
    });
  return JSON.stringify({ format: PACK_FORMAT, id: task.id, files });
}

/** Write tasks to a pack file, one line each. */
export async function writePack(packPath: string, tasks: Iterable<Pick<Task, 'id' | 'files'>>): Promise<number> {
  const out = createWriteStream(packPath, { encoding: 'utf8' });
  let count = 0;
  for (const task of tasks) {
    if (!out.write(`${packLineOf(task)}\n`)) await new Promise<void>((resolve) => out.once('drain', () => resolve()));
    count++;
  }
  out.end();
  await finished(out);
  return count;
}
