/** Integrate a seeded ODE model (logistic growth, damped oscillator, decay chain) and report values at given times. */
import { buildTask, phrase } from '../kit/task';
import { check, SCENARIO } from './kit/conventions';
import type { FamilyRng, TaskFamily } from '../types';

interface Model {
  text: string;
  value(t: number): number;
  /** The quantity the agent must output. */
  quantity: string;
}

const r3 = (x: number) => Math.round(x * 1000) / 1000;

function model(rng: FamilyRng): Model {
  const kind = rng.int(0, 2);
  if (kind === 0) {
    const K = rng.int(200, 5000);
    const p0 = rng.int(5, Math.floor(K / 10));
    const r = r3(0.1 + rng.next() * 0.9);
    return {
      quantity: 'P',
      text: `Logistic growth: dP/dt = r * P * (1 - P / K), with r = ${r}, K = ${K}, P(0) = ${p0}.`,
      value: (t) => K / (1 + ((K - p0) / p0) * Math.exp(-r * t)),
    };
  }
  if (kind === 1) {
    const w = r3(0.5 + rng.next() * 2.5);
    const z = r3(0.05 + rng.next() * 0.5);
    const x0 = rng.int(1, 10);
    const v0 = rng.int(-5, 5);
    const wd = w * Math.sqrt(1 - z * z);
    const B = (v0 + z * w * x0) / wd;
    return {
      quantity: 'x',
      text: `Damped oscillator: x'' + 2 * zeta * omega * x' + omega^2 * x = 0, with omega = ${w}, zeta = ${z}, x(0) = ${x0}, x'(0) = ${v0}.`,
      value: (t) => Math.exp(-z * w * t) * (x0 * Math.cos(wd * t) + B * Math.sin(wd * t)),
    };
  }
  const la = r3(0.2 + rng.next() * 1.5);
  let lb = r3(0.05 + rng.next() * 1.0);
  if (Math.abs(la - lb) < 0.05) lb = r3(lb + 0.3);
  const n0 = rng.int(100, 10000);
  return {
    quantity: 'B',
    text: `Decay chain A -> B -> C: dA/dt = -la * A, dB/dt = la * A - lb * B, with la = ${la}, lb = ${lb}, A(0) = ${n0}, B(0) = 0.`,
    value: (t) => ((n0 * la) / (lb - la)) * (Math.exp(-la * t) - Math.exp(-lb * t)),
  };
}

export const odeSimulation: TaskFamily = {
  name: 'ode-simulation',
  category: 'scientific-computing',
  summary: 'Integrate a seeded ODE (logistic, damped oscillator, decay chain) and report values and the maximum',
  heldOut: false,
  difficulty: 'hard',
  generate(rng, { split }) {
    const m = model(rng);
    const T = rng.int(5, 20);
    const times = [
      ...new Set(Array.from({ length: rng.int(6, 12) }, () => Math.round(rng.next() * T * 100) / 100)),
    ].sort((a, b) => a - b);
    const values = times.map((t) => m.value(t));
    let best = 0;
    values.forEach((v, i) => (v > values[best]! ? (best = i) : 0));
    const summary = { max_value: values[best], time_of_max: times[best], final_value: values[values.length - 1] };
    const instruction = phrase(rng, split, [
      `/app/model.txt describes an ODE initial-value problem and /app/times.txt lists times (one per line). Compute ${m.quantity}(t) at each listed time (relative or absolute accuracy 1e-6) and write /app/solution.csv with header \`t,${m.quantity}\` and one row per time in the given order (t exactly as listed). Also write /app/summary.json with \`max_value\` (largest ${m.quantity} among the listed times), \`time_of_max\` (its time) and \`final_value\` (${m.quantity} at the last listed time).`,
      `Simulate the system in /app/model.txt (numerically, e.g. RK4 with a small step, or in closed form). Report ${m.quantity} at the times in /app/times.txt to 1e-6 in /app/solution.csv (columns t,${m.quantity}; rows in the order of times.txt) and write /app/summary.json = {"max_value": ..., "time_of_max": ..., "final_value": ...} over those times.`,
      `Scientific computing task: solve the initial-value problem given in /app/model.txt. Output /app/solution.csv (header t,${m.quantity}; one line per time of /app/times.txt, same order; values accurate to 1e-6) and /app/summary.json with the keys max_value, time_of_max, final_value computed over the listed times.`,
    ]);
    const deriv =
      m.quantity === 'P'
        ? 'r, K, p0 = P["r"], P["K"], P["P(0)"]\nf = lambda t, y: [r * y[0] * (1 - y[0] / K)]\ny0 = [p0]'
        : m.quantity === 'x'
          ? 'w, z = P["omega"], P["zeta"]\nf = lambda t, y: [y[1], -2 * z * w * y[1] - w * w * y[0]]\ny0 = [P["x(0)"], P["x\'(0)"]]'
          : 'la, lb = P["la"], P["lb"]\nf = lambda t, y: [-la * y[0], la * y[0] - lb * y[1]]\ny0 = [P["A(0)"], 0.0]';
    const pick = m.quantity === 'B' ? 1 : 0;
    const solve = `cat model.txt times.txt
cat > /tmp/ode.py <<'PY'
import json, re
P = {k: float(v) for k, v in re.findall(r"([A-Za-z]+(?:\\(0\\)|'\\(0\\))?) = (-?[0-9.]+)", open("model.txt").read())}
${deriv}
def rk4(y, t, h):
    k1 = f(t, y)
    k2 = f(t + h / 2, [a + h / 2 * b for a, b in zip(y, k1)])
    k3 = f(t + h / 2, [a + h / 2 * b for a, b in zip(y, k2)])
    k4 = f(t + h, [a + h * b for a, b in zip(y, k3)])
    return [a + h / 6 * (b + 2 * c + 2 * d + e) for a, b, c, d, e in zip(y, k1, k2, k3, k4)]
times = [l.strip() for l in open("times.txt") if l.strip()]
y, t, out = [float(v) for v in y0], 0.0, []
for ts in times:
    target = float(ts)
    n = max(1, int((target - t) / 1e-3))
    h = (target - t) / n
    for _ in range(n):
        y = rk4(y, t, h)
        t += h
    t = target
    out.append((ts, y[${pick}]))
with open("solution.csv", "w") as fh:
    fh.write("t,${m.quantity}\\n")
    fh.writelines(f"{ts},{v!r}\\n" for ts, v in out)
best = max(range(len(out)), key=lambda i: out[i][1])
json.dump({"max_value": out[best][1], "time_of_max": float(out[best][0]), "final_value": out[-1][1]}, open("summary.json", "w"), indent=2)
PY
python3 /tmp/ode.py
cat solution.csv summary.json`;
    const half = Math.ceil(times.length / 2);
    const rows = (a: number, b: number) => JSON.stringify(times.slice(a, b).map((t, i) => [t, values[a + i]]));
    return buildTask(SCENARIO, {
      family: odeSimulation,
      difficulty: 'hard',
      split,
      instruction,
      files: { 'model.txt': `${m.text}\n`, 'times.txt': times.join('\n') + '\n' },
      solve,
      expected: {
        'first.json': rows(0, half),
        'second.json': rows(half, times.length),
        'summary.json': JSON.stringify(summary),
      },
      assertions: [
        {
          name: `values at the first ${half} times`,
          run: `python3 -c 'import csv, json; r = list(csv.reader(open("solution.csv"))); assert r[0] == ["t", "${m.quantity}"]; json.dump([[float(a), float(b)] for a, b in r[1:${half + 1}]], open("/tmp/first.json", "w"))' && python3 /tests/check.py json /tmp/first.json /tests/expected/first.json - 1e-6`,
        },
        {
          name: 'values at the remaining times',
          run: `python3 -c 'import csv, json; r = list(csv.reader(open("solution.csv"))); assert len(r) == ${times.length + 1}; json.dump([[float(a), float(b)] for a, b in r[${half + 1}:]], open("/tmp/second.json", "w"))' && python3 /tests/check.py json /tmp/second.json /tests/expected/second.json - 1e-6`,
        },
        check(
          'summary: maximum, its time, final value',
          'json',
          'summary.json',
          '/tests/expected/summary.json',
          'max_value,time_of_max,final_value',
          '1e-6',
        ),
      ],
      tags: ['ode', 'runge-kutta', 'numerics'],
    });
  },
};
