/**
 * Token drift between a ledger and a fresh rendering (TITO): the ledger appends each segment's ids as they
 * come (sampled tokens, then the template and observation tokenized on their own), while re-tokenizing
 * the joined text lets BPE merge across the boundaries. `segmentDrift` shows both, for tests and reports.
 *
 * A real drift case with a trained vocabulary: Qwen's split pattern keeps "\n\n" in one pre-token and a
 * corpus with many blank lines teaches the merge "\n" + "\n", so a turn that ends in "\n" (sampled) followed
 * by a template segment starting with "\n" encodes as [..., "\n", "\n"] in the ledger but [..., "\n\n"]
 * when re-tokenized. tokenizer.test.ts builds exactly this.
 */
import type { EncodeOptions, Tokenizer } from './types';

export interface SegmentDrift {
  /** Each segment encoded on its own, concatenated: what a token ledger appends. */
  separate: number[];
  /** Index in `separate` where each segment's ids start. */
  segmentStarts: number[];
  /** The segments joined and encoded at once: what re-rendering the conversation gives. */
  joint: number[];
  /** First index where `separate` and `joint` differ, or null when they are equal. */
  firstDifference: number | null;
}

export function segmentDrift(tokenizer: Tokenizer, segments: readonly string[], options?: EncodeOptions): SegmentDrift {
  const separate: number[] = [];
  const segmentStarts: number[] = [];
  for (const segment of segments) {
    segmentStarts.push(separate.length);
    separate.push(...tokenizer.encode(segment, options));
  }
  const joint = tokenizer.encode(segments.join(''), options);
  let firstDifference: number | null = null;
  const n = Math.max(separate.length, joint.length);
  for (let i = 0; i < n; i++) {
    if (separate[i] !== joint[i]) {
      firstDifference = i;
      break;
    }
  }
  return { separate, segmentStarts, joint, firstDifference };
}
