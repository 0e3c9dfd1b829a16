/** Answer a batch of number-theory queries (gcd, lcm, modular powers, primality, totient). */
import { buildTask, phrase } from '../kit/task';
import { SCENARIO } from './kit/conventions';
import type { FamilyRng, TaskFamily } from '../types';

const gcd = (a: bigint, b: bigint): bigint => (b === 0n ? a : gcd(b, a % b));
function powmod(b: bigint, e: bigint, m: bigint): bigint {
  let r = 1n;
  b %= m;
  while (e > 0n) {
    if (e & 1n) r = (r * b) % m;
    b = (b * b) % m;
    e >>= 1n;
  }
  return r;
}
function isPrime(n: number): boolean {
  if (n < 2) return false;
  for (let d = 2; d * d <= n; d++) if (n % d === 0) return false;
  return true;
}
function phi(n: number): number {
  let r = n;
  for (let p = 2; p * p <= n; p++)
    if (n % p === 0) {
      while (n % p === 0) n /= p;
      r -= r / p;
    }
  if (n > 1) r -= r / n;
  return r;
}

const QUERIES: ((rng: FamilyRng) => [string, string])[] = [
  (r) => {
    const g = r.int(2, 900);
    const a = g * r.int(2, 9000);
    const b = g * r.int(2, 9000);
    return [`gcd ${a} ${b}`, String(gcd(BigInt(a), BigInt(b)))];
  },
  (r) => {
    const a = r.int(2, 99999);
    const b = r.int(2, 99999);
    return [`lcm ${a} ${b}`, String((BigInt(a) * BigInt(b)) / gcd(BigInt(a), BigInt(b)))];
  },
  (r) => {
    const b = r.int(2, 10 ** 6);
    const e = r.int(10 ** 5, 10 ** 9);
    const m = r.int(10 ** 3, 10 ** 9);
    return [`powmod ${b} ${e} ${m}`, String(powmod(BigInt(b), BigInt(e), BigInt(m)))];
  },
  (r) => {
    const n = r.int(10 ** 4, 10 ** 7);
    return [`isprime ${n}`, isPrime(n) ? 'yes' : 'no'];
  },
  (r) => {
    const n = r.int(2, 10 ** 6);
    return [`phi ${n}`, String(phi(n))];
  },
];

export const numberTheoryBatch: TaskFamily = {
  name: 'number-theory-batch',
  category: 'mathematics',
  summary: 'Answer a file of gcd / lcm / powmod / isprime / phi queries, one answer per line',
  heldOut: false,
  difficulty: 'easy',
  generate(rng, { split }) {
    const n = rng.int(9, 24);
    const qa = Array.from({ length: n }, (_, i) => (i < 5 ? QUERIES[i]! : rng.pick(QUERIES))(rng));
    const shuffled = rng.shuffle(qa);
    const out = rng.pick(['answers.txt', 'results.txt']);
    const instruction = phrase(rng, split, [
      `Each line of /app/queries.txt is a query: \`gcd a b\`, \`lcm a b\`, \`powmod b e m\` (b^e mod m), \`isprime n\` (answer yes/no) or \`phi n\` (Euler's totient). Write the answers, one per line in the same order, to /app/${out}.`,
      `Answer the number-theory queries in /app/queries.txt (gcd, lcm, powmod b e m = b**e % m, isprime -> yes|no, phi = Euler totient). Output: /app/${out}, line i answers query i.`,
      `/app/queries.txt lists operations (gcd, lcm, powmod, isprime, phi) with integer arguments. Evaluate each and put the results in /app/${out}, one line per query, same order; isprime answers are "yes" or "no".`,
    ]);
    const third = Math.ceil(n / 3);
    const answers = shuffled.map((q) => q[1]);
    const range = (a: number, b: number) => answers.slice(a, b).join('\n');
    return buildTask(SCENARIO, {
      family: numberTheoryBatch,
      difficulty: 'easy',
      split,
      instruction,
      files: { 'queries.txt': shuffled.map((q) => q[0]).join('\n') + '\n' },
      solve: `python3 - <<'PY'
import math
def phi(n):
    r, p = n, 2
    while p * p <= n:
        if n % p == 0:
            while n % p == 0:
                n //= p
            r -= r // p
        p += 1
    return r - r // n if n > 1 else r
def isprime(n):
    return n > 1 and all(n % d for d in range(2, math.isqrt(n) + 1))
ops = {"gcd": math.gcd, "lcm": math.lcm, "powmod": pow, "phi": phi, "isprime": lambda n: "yes" if isprime(n) else "no"}
with open("${out}", "w") as f:
    for line in open("queries.txt"):
        op, *args = line.split()
        f.write(f"{ops[op](*map(int, args))}\\n")
PY
paste queries.txt ${out}`,
      expected: { [out]: answers.join('\n') + '\n' },
      assertions: [
        { name: `answers 1-${third}`, run: `test "$(sed -n '1,${third}p' ${out})" = '${range(0, third)}'` },
        {
          name: `answers ${third + 1}-${2 * third}`,
          run: `test "$(sed -n '${third + 1},${2 * third}p' ${out})" = '${range(third, 2 * third)}'`,
        },
        {
          name: `answers ${2 * third + 1}-${n}`,
          run: `test "$(sed -n '${2 * third + 1},${n}p' ${out})" = '${range(2 * third, n)}' && test "$(wc -l < ${out})" = ${n}`,
        },
      ],
      tags: ['number-theory', 'modular-arithmetic'],
    });
  },
};
