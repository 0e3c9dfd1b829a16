/**
 * Learning-rate schedules: linear warm-up from 0 over `warmupSteps`, then constant, linear decay or cosine
 * decay to `minLrRatio * lr` at `totalSteps`. Steps are 1-based (the first update uses step 1).
 */

export type ScheduleKind = 'constant' | 'linear' | 'cosine';

export interface Schedule {
  kind: ScheduleKind;
  lr: number;
  warmupSteps: number;
  totalSteps: number;
  /** Final learning rate as a share of `lr` (linear and cosine). */
  minLrRatio: number;
}

export function learningRate(s: Schedule, step: number): number {
  if (s.warmupSteps > 0 && step <= s.warmupSteps) return (s.lr * step) / s.warmupSteps;
  if (s.kind === 'constant') return s.lr;
  const span = Math.max(1, s.totalSteps - s.warmupSteps);
  const progress = Math.min(1, Math.max(0, (step - s.warmupSteps) / span));
  const floor = s.lr * s.minLrRatio;
  if (s.kind === 'linear') return floor + (s.lr - floor) * (1 - progress);
  return floor + (s.lr - floor) * 0.5 * (1 + Math.cos(Math.PI * progress));
}
