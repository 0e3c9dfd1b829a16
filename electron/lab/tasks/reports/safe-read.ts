/**
 * Reading what a verifier wrote, without trusting it: never follows a symlink (O_NOFOLLOW), never blocks
 * on a FIFO (O_NONBLOCK), reads only regular files, and only up to a size cap.
 */
import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';

/** Reports bigger than this are refused (a JUnit file of thousands of tests is well under it). */
export const MAX_REPORT_BYTES = 8 * 1024 * 1024;

export type ReportRead = { kind: 'missing' } | { kind: 'refused'; reason: string } | { kind: 'ok'; text: string };

/** Read `name` directly inside `dir` (a folder the lab created). */
export async function readReport(dir: string, name: string, maxBytes = MAX_REPORT_BYTES): Promise<ReportRead> {
  let handle;
  try {
    handle = await open(join(dir, name), constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'missing' };
    if (code === 'ELOOP')
      return { kind: 'refused', reason: `${name} is a symlink; reports are read only from regular files` };
    return { kind: 'refused', reason: `${name} cannot be opened (${code ?? (error as Error).message})` };
  }
  try {
    const info = await handle.stat();
    if (!info.isFile()) return { kind: 'refused', reason: `${name} is not a regular file` };
    if (info.size > maxBytes)
      return { kind: 'refused', reason: `${name} is ${info.size} bytes, over the ${maxBytes}-byte limit` };
    const buffer = Buffer.alloc(info.size);
    const { bytesRead } = await handle.read(buffer, 0, info.size, 0);
    return { kind: 'ok', text: buffer.subarray(0, bytesRead).toString('utf8') };
  } finally {
    await handle.close();
  }
}
