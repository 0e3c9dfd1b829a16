/**
 * Power analysis for comparing two checkpoints on N tasks: the minimum detectable difference (MDE) in
 * resolved rate at a significance level and power, and the inverse (tasks needed for a difference).
 *
 * Approximations (normal, one-sided tail of a two-sided test, no continuity correction):
 * - independent samples: the pooled two-proportion z-test (Fleiss), n tasks per run;
 * - paired design: McNemar's test in Connor's (1987) normal form, with discordance ψ = P(outcomes differ)
 *   and difference d = p_B − p_A: power = Φ((d√n − z·√ψ) / √(ψ − d²)).
 * ψ is given, measured (two real runs' discordant share) or assumed from a correlation ρ between the two
 * checkpoints' outcomes on a task: ψ = p_A q_B + p_B q_A − 2ρ√(p_A q_A p_B q_B). The unit tests check
 * these against simulation.
 * - avg@K design (K attempts per task, per-task success shares paired by task): a closed form from a
 *   two-level model of tasks and attempts, explained in power-avg-at-k.ts.
 */
import { PowerRequest, type PowerResult } from '../../domain/stats';
import { normalCdf, normalQuantile } from './distributions';
import { avgAtKMde, avgAtKTasksNeeded, taskDifferenceSd } from './power-avg-at-k';

export interface PowerInput extends PowerRequest {
  /** Where a given discordance came from, for the output ("given" unless a caller measured it). */
  discordanceSource?: string;
  /** Where the attempt noise came from ("assumed" unless a caller measured it from a run). */
  attemptNoiseSource?: string;
}

function independentPower(n: number, p1: number, d: number, zAlpha: number): number {
  const p2 = p1 + d;
  const pBar = (p1 + p2) / 2;
  const sd = Math.sqrt(p1 * (1 - p1) + p2 * (1 - p2));
  if (sd === 0) return 1;
  return normalCdf((d * Math.sqrt(n) - zAlpha * Math.sqrt(2 * pBar * (1 - pBar))) / sd);
}

/** ψ for base p1 and difference d under outcome correlation ρ, kept feasible (ψ ≥ d). */
export function assumedDiscordance(p1: number, d: number, rho: number): number {
  const p2 = p1 + d;
  const psi = p1 * (1 - p2) + p2 * (1 - p1) - 2 * rho * Math.sqrt(p1 * (1 - p1) * p2 * (1 - p2));
  return Math.min(1, Math.max(psi, d));
}

function pairedPower(n: number, d: number, psi: number, zAlpha: number): number {
  if (d > psi) return 0; // impossible: more net change than changed outcomes
  const sd = Math.sqrt(Math.max(psi - d * d, 1e-12));
  return normalCdf((d * Math.sqrt(n) - zAlpha * Math.sqrt(psi)) / sd);
}

/** Smallest d in (0, hi] with power(d) ≥ target, or null when even hi falls short. Power rises with d. */
function smallestDetectable(power: (d: number) => number, target: number, hi: number): number | null {
  if (hi <= 0 || power(hi) < target) return null;
  let lo = 0;
  for (let i = 0; i < 80; i++) {
    const mid = (lo + hi) / 2;
    if (power(mid) >= target) hi = mid;
    else lo = mid;
  }
  return hi;
}

export function powerAnalysis(input: PowerInput): PowerResult {
  const req = PowerRequest.parse(input);
  const zAlpha = normalQuantile(1 - req.alpha / 2);
  const zBeta = normalQuantile(req.power);
  const p1 = req.base;
  const dMax = 1 - p1;
  const psiAt = (d: number) => req.discordance ?? assumedDiscordance(p1, d, req.rho);
  const source =
    req.discordance !== undefined
      ? (input.discordanceSource ?? 'given')
      : `assumed from rho = ${req.rho} between the two checkpoints' outcomes`;

  const indMde = smallestDetectable((d) => independentPower(req.tasks, p1, d, zAlpha), req.power, dMax);
  const pairHi = Math.min(dMax, req.discordance ?? 1);
  const pairMde = smallestDetectable((d) => pairedPower(req.tasks, d, psiAt(d), zAlpha), req.power, pairHi);

  let indNeeded: number | null = null;
  let pairNeeded: number | null = null;
  const d = req.detect ?? null;
  if (d !== null && d <= dMax) {
    const p2 = p1 + d;
    const pBar = (p1 + p2) / 2;
    indNeeded = Math.ceil(
      ((zAlpha * Math.sqrt(2 * pBar * (1 - pBar)) + zBeta * Math.sqrt(p1 * (1 - p1) + p2 * (1 - p2))) / d) ** 2,
    );
    const psi = psiAt(d);
    if (d <= psi)
      pairNeeded = Math.ceil(((zAlpha * Math.sqrt(psi) + zBeta * Math.sqrt(Math.max(psi - d * d, 0))) / d) ** 2);
  }

  const sd = taskDifferenceSd({ base: p1, attempts: req.attempts, attemptNoise: req.attemptNoise, rho: req.rho });
  const avgAtK = {
    attempts: req.attempts,
    mde: avgAtKMde(req.tasks, sd, zAlpha, zBeta, dMax),
    attemptNoise: req.attemptNoise,
    attemptNoiseSource:
      input.attemptNoiseSource ??
      (input.attemptNoise === undefined ? `assumed (${req.attemptNoise} of base(1 - base) between attempts)` : 'given'),
    taskSd: sd,
    tasksNeeded: d !== null && d <= dMax ? avgAtKTasksNeeded(d, sd, zAlpha, zBeta) : null,
  };

  return {
    tasks: req.tasks,
    base: p1,
    alpha: req.alpha,
    power: req.power,
    independent: { mde: indMde, tasksNeeded: indNeeded },
    paired: {
      mde: pairMde,
      discordance: pairMde === null ? (req.discordance ?? null) : psiAt(pairMde),
      discordanceSource: source,
      tasksNeeded: pairNeeded,
    },
    avgAtK,
    detect: d,
    approximation:
      "normal approximations, two-sided alpha: independent = pooled two-proportion z-test (n tasks per run); paired = McNemar in Connor's (1987) form with discordance psi; avg@K = mean of per-task share differences, sd^2 = 2V(1 - rho) + 2W/K with W = attemptNoise * base(1 - base) between attempts and V = the rest between tasks",
  };
}

/** Exposed for the simulation tests: the power each approximation predicts. */
export const predictedPower = { independent: independentPower, paired: pairedPower };
