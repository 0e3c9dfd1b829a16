/**
 * The loss-drift check, independent of how the ledger built its ids: every loss-masked-in position of a
 * training sample must reproduce what the sampler was actually fed when it sampled that token — the same
 * prompt before it (length and hash of the ids the policy sent to the engine) and the same id. A trainer
 * runs it on exactly the ids it trains on; the ledger runs it on each sample it closes.
 */
import { createHash } from 'node:crypto';
import type { FedTurn, LedgerSample } from '../../domain/trajectory';

/** sha1 of the ids as little-endian int32 (ids are < 2^31). */
export function hashIds(ids: readonly number[]): string {
  return createHash('sha1')
    .update(new Uint8Array(Int32Array.from(ids).buffer))
    .digest('hex');
}

export function fedTurn(promptIds: readonly number[], sampled: readonly number[]): FedTurn {
  return { promptLength: promptIds.length, promptHash: hashIds(promptIds), sampled: [...sampled] };
}

export interface DriftReport {
  /** Loss positions that do not reproduce the sampler's input or output. */
  drift: number;
  /** Loss positions with no record of what the sampler was fed (counted in drift too). */
  unrecorded: number;
  lossPositions: number;
}

/** Check one sample's loss positions against its `fed` record (a sample without one has all positions unrecorded). */
export function checkLossDrift(sample: Pick<LedgerSample, 'ids' | 'mask' | 'fed'>): DriftReport {
  const n = sample.ids.length;
  const covered = new Uint8Array(n);
  let drift = 0;
  for (const turn of sample.fed ?? []) {
    const L = turn.promptLength;
    const promptOk = L <= n && hashIds(sample.ids.slice(0, L)) === turn.promptHash;
    for (let j = 0; j < turn.sampled.length && L + j < n; j++) {
      const pos = L + j;
      if (sample.mask[pos] !== 1 || covered[pos]) continue;
      covered[pos] = 1;
      if (!promptOk || sample.ids[pos] !== turn.sampled[j]) drift++;
    }
  }
  let unrecorded = 0;
  let lossPositions = 0;
  for (let i = 0; i < n; i++) {
    if (sample.mask[i] !== 1) continue;
    lossPositions++;
    if (!covered[i]) unrecorded++;
  }
  return { drift: drift + unrecorded, unrecorded, lossPositions };
}
