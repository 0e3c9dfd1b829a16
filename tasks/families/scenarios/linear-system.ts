/** Solve linear systems sharing one integer matrix and report its determinant. */
import { buildTask, phrase } from '../kit/task';
import { check, SCENARIO } from './kit/conventions';
import type { FamilyRng, TaskFamily } from '../types';

/** Exact determinant by Bareiss elimination on BigInts. */
function det(m: number[][]): bigint {
  const a = m.map((r) => r.map(BigInt));
  const n = a.length;
  let sign = 1n;
  let prev = 1n;
  for (let k = 0; k < n - 1; k++) {
    if (a[k]![k] === 0n) {
      const s = a.findIndex((r, i) => i > k && r[k] !== 0n);
      if (s < 0) return 0n;
      [a[k], a[s]] = [a[s]!, a[k]!];
      sign = -sign;
    }
    for (let i = k + 1; i < n; i++)
      for (let j = k + 1; j < n; j++) a[i]![j] = (a[i]![j]! * a[k]![k]! - a[i]![k]! * a[k]![j]!) / prev;
    prev = a[k]![k]!;
  }
  return sign * a[n - 1]![n - 1]!;
}

function matrix(rng: FamilyRng, n: number): number[][] {
  for (;;) {
    const m = Array.from({ length: n }, () => Array.from({ length: n }, () => rng.int(-9, 9)));
    if (det(m) !== 0n) return m;
  }
}

export const linearSystem: TaskFamily = {
  name: 'linear-system',
  category: 'mathematics',
  summary: 'Solve A x = b for two right-hand sides and compute det(A), within 1e-6',
  heldOut: false,
  difficulty: 'medium',
  generate(rng, { split }) {
    const n = rng.int(3, 7);
    const A = matrix(rng, n);
    const xs = [0, 1].map(() => Array.from({ length: n }, () => rng.int(-20, 20) / rng.pick([1, 2, 4])));
    const bs = xs.map((x) => A.map((row) => row.reduce((s, a, j) => s + a * x[j]!, 0)));
    const d = Number(det(A));
    const fmt = (v: number[]) => v.join(' ');
    const instruction = phrase(rng, split, [
      `/app/A.txt holds an ${n}x${n} matrix (one row per line, space-separated), /app/b1.txt and /app/b2.txt two right-hand sides (one value per line). Solve A x = b1 and A x = b2 and write the solutions to /app/x1.txt and /app/x2.txt (one value per line, accurate to 1e-6). Also write det(A) to /app/det.txt.`,
      `Linear algebra without numpy: solve the systems A·x = b1 and A·x = b2 (A in /app/A.txt, rows per line; b1, b2 in /app/b1.txt, /app/b2.txt). Save x as one number per line in /app/x1.txt and /app/x2.txt, and the determinant of A in /app/det.txt. Tolerance 1e-6.`,
      `Given the square matrix in /app/A.txt and vectors /app/b1.txt, /app/b2.txt, compute x1 = A⁻¹ b1, x2 = A⁻¹ b2 (files /app/x1.txt, /app/x2.txt, a value per line) and det(A) (/app/det.txt). Answers are checked to 1e-6.`,
    ]);
    const solve = `cat A.txt
python3 - <<'PY'
from fractions import Fraction as F
A = [[F(v) for v in line.split()] for line in open("A.txt") if line.strip()]
n = len(A)
def solve(b):
    m = [row[:] + [F(v)] for row, v in zip(A, b)]
    for c in range(n):
        p = next(r for r in range(c, n) if m[r][c] != 0)
        m[c], m[p] = m[p], m[c]
        for r in range(n):
            if r != c and m[r][c] != 0:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]
def det(M):
    M = [r[:] for r in M]; d = F(1)
    for c in range(n):
        p = next((r for r in range(c, n) if M[r][c] != 0), None)
        if p is None:
            return F(0)
        if p != c:
            M[c], M[p] = M[p], M[c]; d = -d
        d *= M[c][c]
        for r in range(c + 1, n):
            f = M[r][c] / M[c][c]
            M[r] = [x - f * y for x, y in zip(M[r], M[c])]
    return d
for k in (1, 2):
    b = [F(l.strip()) for l in open(f"b{k}.txt") if l.strip()]
    open(f"x{k}.txt", "w").write("".join(f"{float(v)}\\n" for v in solve(b)))
open("det.txt", "w").write(f"{float(det(A))}\\n")
PY
cat x1.txt x2.txt det.txt`;
    const vec = (v: number[]) => JSON.stringify(v);
    return buildTask(SCENARIO, {
      family: linearSystem,
      difficulty: 'medium',
      split,
      instruction,
      files: {
        'A.txt': A.map(fmt).join('\n') + '\n',
        'b1.txt': bs[0]!.join('\n') + '\n',
        'b2.txt': bs[1]!.join('\n') + '\n',
      },
      solve,
      expected: { 'x1.json': vec(xs[0]!), 'x2.json': vec(xs[1]!) },
      assertions: [
        {
          name: 'x1 solves A x = b1',
          run: `python3 -c 'import json; print(json.dumps([float(l) for l in open("x1.txt") if l.strip()]))' > /tmp/x1.json && python3 /tests/check.py json /tmp/x1.json /tests/expected/x1.json - 1e-6`,
        },
        {
          name: 'x2 solves A x = b2',
          run: `python3 -c 'import json; print(json.dumps([float(l) for l in open("x2.txt") if l.strip()]))' > /tmp/x2.json && python3 /tests/check.py json /tmp/x2.json /tests/expected/x2.json - 1e-6`,
        },
        check('det(A)', 'num', 'det.txt', String(d), '1e-6'),
      ],
      tags: ['linear-algebra', 'gaussian-elimination'],
    });
  },
};
