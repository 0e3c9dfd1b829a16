/**
 * How both sandbox backends turn a command's stdout and stderr bytes into text: UTF-8 decoded per stream,
 * with a character split across chunks held back until its last byte arrives. The decoder's remainder is
 * flushed when the stream ends, so bytes left in it by a command's final write (a truncated character comes
 * out as U+FFFD) are never dropped.
 */
import type { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';

export type OutputStreamName = 'stdout' | 'stderr';

/** Calls `onText` with each non-empty piece of decoded text, in order, per stream. */
export function decodeOutput(
  streams: Record<OutputStreamName, Readable>,
  onText: (stream: OutputStreamName, text: string) => void,
): void {
  for (const stream of ['stdout', 'stderr'] as const) {
    const decoder = new StringDecoder('utf8');
    streams[stream].on('data', (chunk: Buffer) => {
      const text = decoder.write(chunk);
      if (text) onText(stream, text);
    });
    streams[stream].on('end', () => {
      const rest = decoder.end();
      if (rest) onText(stream, rest);
    });
  }
}
