/** Reading and writing SFT sample files (format: electron/domain/sft.ts). */
import { closeSync, fsyncSync, openSync, readFileSync, writeSync } from 'node:fs';
import { SftSample } from '../../domain/sft';
import { LabError } from '../../ipc/common/errors';

/** Every sample of a JSONL file; a bad line is an error naming the file, the line and the field. */
export function readSftSamples(path: string): SftSample[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new LabError('INVALID_PARAMS', `${path}: ${(error as Error).message}`);
  }
  const out: SftSample[] = [];
  for (const [i, line] of text.split('\n').entries()) {
    if (!line.trim()) continue;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch (error) {
      throw new LabError('INVALID_PARAMS', `${path}:${i + 1}: not JSON (${(error as Error).message})`);
    }
    const parsed = SftSample.safeParse(raw);
    if (!parsed.success)
      throw new LabError(
        'INVALID_PARAMS',
        `${path}:${i + 1}: not an SFT sample (${parsed.error.issues.map((x) => `${x.path.join('.') || '(root)'}: ${x.message}`).join('; ')})`,
      );
    if (parsed.data.mask.length !== parsed.data.ids.length)
      throw new LabError(
        'INVALID_PARAMS',
        `${path}:${i + 1}: mask has ${parsed.data.mask.length} entries for ${parsed.data.ids.length} ids`,
      );
    out.push(parsed.data);
  }
  return out;
}

/** Appends samples to a JSONL file, fsync'd per batch. */
export class SftSampleWriter {
  private readonly fd: number;

  constructor(readonly path: string) {
    this.fd = openSync(path, 'w');
  }

  write(samples: readonly SftSample[]): void {
    if (!samples.length) return;
    const bytes = Buffer.from(samples.map((s) => JSON.stringify(s) + '\n').join(''));
    let done = 0;
    while (done < bytes.length) done += writeSync(this.fd, bytes, done, bytes.length - done);
    fsyncSync(this.fd);
  }

  close(): void {
    closeSync(this.fd);
  }
}
