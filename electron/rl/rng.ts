/**
 * A random generator whose whole state is one 32-bit number, so a training checkpoint can store it and a
 * resumed run draws exactly what the uninterrupted run would have (the same SplitMix32 steps as
 * native/util/random's seededUniform).
 */
export class ResumableRng {
  constructor(public state: number) {
    this.state = state >>> 0 || 0x9e3779b9;
  }

  next(): number {
    this.state = (this.state + 0x9e3779b9) >>> 0;
    let z = this.state;
    z = Math.imul(z ^ (z >>> 16), 0x85ebca6b) >>> 0;
    z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35) >>> 0;
    return ((z ^ (z >>> 16)) >>> 0) / 2 ** 32;
  }

  /** An integer in [0, n). */
  int(n: number): number {
    return Math.floor(this.next() * n);
  }

  /** Fisher-Yates in place. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      [items[i], items[j]] = [items[j]!, items[i]!];
    }
    return items;
  }
}
