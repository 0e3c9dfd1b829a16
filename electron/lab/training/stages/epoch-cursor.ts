/**
 * A resumable walk over n items in seeded random order, epoch after epoch: the cursor (epoch, index) is all
 * a checkpoint stores; the order of each epoch is rebuilt from (seed, epoch).
 */
import { ResumableRng } from '../../../rl/rng';
import { fnv1a } from './split';

export interface EpochCursorState {
  epoch: number;
  index: number;
}

export class EpochCursor {
  private order: number[] = [];
  private orderEpoch = -1;
  state: EpochCursorState = { epoch: 0, index: 0 };

  constructor(
    private readonly n: number,
    private readonly seed: number,
  ) {
    if (n <= 0) throw new Error('no training items');
  }

  private orderOf(epoch: number): number[] {
    if (this.orderEpoch !== epoch) {
      const rng = new ResumableRng(fnv1a(`order:${this.seed}:${epoch}`));
      this.order = rng.shuffle(Array.from({ length: this.n }, (_, i) => i));
      this.orderEpoch = epoch;
    }
    return this.order;
  }

  /** The next `count` item indices (crossing into the next epoch when needed). */
  take(count: number): number[] {
    const out: number[] = [];
    while (out.length < count) {
      const order = this.orderOf(this.state.epoch);
      out.push(order[this.state.index]!);
      this.state.index++;
      if (this.state.index >= this.n) this.state = { epoch: this.state.epoch + 1, index: 0 };
    }
    return out;
  }

  restore(state: unknown): void {
    const s = state as Partial<EpochCursorState> | null;
    if (!s || typeof s.epoch !== 'number' || typeof s.index !== 'number')
      throw new Error('the checkpoint has no data cursor');
    this.state = { epoch: s.epoch, index: s.index };
  }
}
