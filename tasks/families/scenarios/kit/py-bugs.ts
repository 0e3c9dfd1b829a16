/**
 * Small Python functions with one planted bug each: the correct body, the buggy line that replaces one
 * line of it, and cases (args -> expected) that a correct implementation passes and the buggy one fails.
 * Shared by the debugging families (one bug, several bugs across modules).
 */
import type { FamilyRng } from '../../types';

export interface PyCase {
  args: unknown[];
  expected: unknown;
}

export interface PyBug {
  fn: string;
  params: string;
  /** The correct body line (one line, no indentation). */
  good: string;
  /** The buggy replacement of `good`. */
  bad: string;
  doc: string;
  /** Seeded cases that tell good from bad (the first is used by the visible test). */
  cases(rng: FamilyRng): PyCase[];
}

const ints = (rng: FamilyRng, n: number, lo: number, hi: number) => Array.from({ length: n }, () => rng.int(lo, hi));

export const PY_BUGS: PyBug[] = [
  {
    fn: 'clamp',
    params: 'x, lo, hi',
    doc: 'Limit x to the closed range [lo, hi].',
    good: 'return max(lo, min(x, hi))',
    bad: 'return max(lo, min(x, lo))',
    cases: (rng) =>
      [0, 1, 2].map(() => {
        const lo = rng.int(-50, 0);
        const hi = rng.int(10, 90);
        const x = rng.int(lo + 1, hi - 1);
        return { args: [x, lo, hi], expected: x };
      }),
  },
  {
    fn: 'mean',
    params: 'xs',
    doc: 'Arithmetic mean of a non-empty list.',
    good: 'return sum(xs) / len(xs)',
    bad: 'return sum(xs) / (len(xs) - 1)',
    cases: (rng) =>
      [0, 1, 2].map(() => {
        const n = rng.int(2, 6);
        const m = rng.int(1, 40);
        const xs = ints(rng, n - 1, 0, 2 * m);
        xs.push(m * n - xs.reduce((a, b) => a + b, 0));
        return { args: [xs], expected: m };
      }),
  },
  {
    fn: 'is_leap',
    params: 'year',
    doc: 'Gregorian leap year test.',
    good: 'return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)',
    bad: 'return year % 4 == 0 and year % 100 != 0',
    cases: (rng) => [0, 1, 2].map(() => ({ args: [400 * rng.int(3, 8)], expected: true })),
  },
  {
    fn: 'unique',
    params: 'items',
    doc: 'Distinct items, keeping the order of first appearance.',
    good: 'return list(dict.fromkeys(items))',
    bad: 'return sorted(set(items))',
    cases: (rng) =>
      [0, 1, 2].map(() => {
        const xs = [rng.int(50, 99), ...ints(rng, 5, 0, 49)];
        xs.push(xs[1]!);
        return { args: [xs], expected: [...new Set(xs)] };
      }),
  },
  {
    fn: 'count_words',
    params: 'text',
    doc: 'Number of whitespace-separated words.',
    good: 'return len(text.split())',
    bad: 'return len(text.split(" "))',
    cases: (rng) =>
      [0, 1, 2].map(() => {
        const n = rng.int(2, 6);
        const words = Array.from({ length: n }, () => rng.word(rng.int(2, 7)));
        return { args: [words.join('  ') + ' '], expected: n };
      }),
  },
  {
    fn: 'running_total',
    params: 'xs',
    doc: 'Prefix sums: element i is xs[0] + ... + xs[i].',
    good: 'return [sum(xs[: i + 1]) for i in range(len(xs))]',
    bad: 'return [sum(xs[:i]) for i in range(len(xs))]',
    cases: (rng) =>
      [0, 1, 2].map(() => {
        const xs = ints(rng, rng.int(3, 6), 1, 30);
        let t = 0;
        return { args: [xs], expected: xs.map((x) => (t += x)) };
      }),
  },
  {
    fn: 'chunks',
    params: 'xs, n',
    doc: 'Split xs into consecutive pieces of n (the last may be shorter).',
    good: 'return [xs[i : i + n] for i in range(0, len(xs), n)]',
    bad: 'return [xs[i : i + n] for i in range(0, len(xs) - n, n)]',
    cases: (rng) =>
      [0, 1, 2].map(() => {
        const n = rng.int(2, 3);
        const xs = ints(rng, n * rng.int(2, 3) + rng.int(0, n - 1), 0, 9);
        const out: number[][] = [];
        for (let i = 0; i < xs.length; i += n) out.push(xs.slice(i, i + n));
        return { args: [xs, n], expected: out };
      }),
  },
  {
    fn: 'to_fahrenheit',
    params: 'celsius',
    doc: 'Celsius to Fahrenheit.',
    good: 'return celsius * 9 / 5 + 32',
    bad: 'return celsius * 5 / 9 + 32',
    cases: (rng) =>
      [0, 1, 2].map(() => {
        const c = 5 * rng.int(1, 20);
        return { args: [c], expected: (c * 9) / 5 + 32 };
      }),
  },
  {
    fn: 'initials',
    params: 'name',
    doc: 'Upper-case initials of every word of a name.',
    good: 'return "".join(w[0].upper() for w in name.split())',
    bad: 'return "".join(w[0].upper() for w in name.split()[:2])',
    cases: (rng) =>
      [0, 1, 2].map(() => {
        const ws = Array.from({ length: rng.int(3, 4) }, () => rng.word(rng.int(3, 7)));
        return { args: [ws.join(' ')], expected: ws.map((w) => w[0]!.toUpperCase()).join('') };
      }),
  },
  {
    fn: 'last_n',
    params: 'xs, n',
    doc: 'The last n items of xs (all of them when n >= len(xs)).',
    good: 'return xs[-n:] if n > 0 else []',
    bad: 'return xs[-n + 1:] if n > 0 else []',
    cases: (rng) =>
      [0, 1, 2].map(() => {
        const xs = ints(rng, rng.int(5, 8), 0, 99);
        const n = rng.int(2, 4);
        return { args: [xs, n], expected: xs.slice(-n) };
      }),
  },
  {
    fn: 'safe_ratio',
    params: 'a, b',
    doc: 'a / b rounded to 3 places, or 0.0 when b is 0.',
    good: 'return round(a / b, 3) if b != 0 else 0.0',
    bad: 'return round(b / a, 3) if b != 0 else 0.0',
    cases: (rng) =>
      [0, 1, 2].map(() => {
        const b = rng.int(2, 9);
        const a = b * rng.int(2, 9) + 1;
        return { args: [a, b], expected: Math.round((a / b) * 1000) / 1000 };
      }),
  },
];

/** A module of the given functions, with the bodies of those named in `buggy` replaced by their bug. */
export function moduleSource(fns: PyBug[], buggy: Set<string>, title: string): string {
  return `"""${title}"""\n\n${fns.map((b) => `\ndef ${b.fn}(${b.params}):\n    """${b.doc}"""\n    ${buggy.has(b.fn) ? b.bad : b.good}\n`).join('\n')}`;
}
