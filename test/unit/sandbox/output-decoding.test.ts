/** The output decoding both sandbox backends share: characters split across chunks, and at the very end. */
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { decodeOutput, type OutputStreamName } from '../../../native/sandbox/output-decoding';

/** Feeds each stream its chunks, ends both, and returns the text each one decoded to. */
async function decodeChunks(chunks: Record<OutputStreamName, Buffer[]>): Promise<Record<OutputStreamName, string>> {
  const streams = { stdout: new PassThrough(), stderr: new PassThrough() };
  const text = { stdout: '', stderr: '' };
  decodeOutput(streams, (stream, piece) => {
    expect(piece).not.toBe('');
    text[stream] += piece;
  });
  const ended = Promise.all(
    [streams.stdout, streams.stderr].map((s) => new Promise((resolve) => s.once('end', resolve))),
  );
  for (const stream of ['stdout', 'stderr'] as const) {
    for (const chunk of chunks[stream]) streams[stream].write(chunk);
    streams[stream].end();
  }
  await ended;
  return text;
}

const EURO = Buffer.from('€'); // three bytes: e2 82 ac

describe('sandbox output decoding', () => {
  it('joins a multi-byte character split across chunks, each stream on its own', async () => {
    const text = await decodeChunks({
      stdout: [
        Buffer.from('price: '),
        EURO.subarray(0, 1),
        EURO.subarray(1, 2),
        Buffer.concat([EURO.subarray(2), Buffer.from('5\n')]),
      ],
      stderr: [Buffer.from('naïve '), EURO.subarray(0, 2), EURO.subarray(2)],
    });
    expect(text).toEqual({ stdout: 'price: €5\n', stderr: 'naïve €' });
  });

  it('keeps a character cut short at the very end of the output (as U+FFFD), on both streams', async () => {
    const text = await decodeChunks({
      stdout: [Buffer.from('last: '), EURO.subarray(0, 1), EURO.subarray(1, 2)],
      stderr: [EURO.subarray(0, 2)],
    });
    expect(text).toEqual({ stdout: 'last: \uFFFD', stderr: '\uFFFD' });
  });
});
