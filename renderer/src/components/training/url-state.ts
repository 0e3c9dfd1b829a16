/**
 * The Training page's view in the address: `#/training/RUN/o=OVERLAY,…&x=wall&s=0.8&log=KEY:1,…&q=REGEX&pin=…&c=A+B,…&const=1&seeds=1&step=N&ep=KEY`,
 * so a reload, a bookmark or a link shows the same charts and the same opened rollout step and rollout.
 */
import type { XAxis } from '../../../../electron/domain/training-metrics';

/** The Training page's view as it travels in the address (`#/training/RUN/STATE`). */
export interface TrainingUrlState {
  run: string | null;
  overlays: string[];
  xAxis: XAxis;
  smoothing: number;
  logScale: Record<string, boolean>;
  panelFilter: string;
  pinned: string[];
  /** Charts of several metrics each (`pg_loss+vf_loss`). */
  combined: string[];
  /** Panels whose every value is the same are shown (hidden by default). */
  showConstant: boolean;
  /** Runs that differ only in seed charted as a mean line with a min–max band. */
  poolSeeds: boolean;
  /** The rollout step opened under the charts, and the rollout opened in it. */
  rolloutStep: number | null;
  rolloutKey: string | null;
}

const AXES = ['step', 'wall', 'tokens'] as const;
export const DEFAULT_SMOOTHING = 0.6;

const list = (v: string | null) => (v ? v.split(',').filter(Boolean) : []);

export function encodeTrainingState(s: Omit<TrainingUrlState, 'run' | 'poolSeeds'> & { poolSeeds?: boolean }): string {
  const p = new URLSearchParams();
  if (s.overlays.length) p.set('o', s.overlays.join(','));
  if (s.xAxis !== 'step') p.set('x', s.xAxis);
  if (s.smoothing !== DEFAULT_SMOOTHING) p.set('s', String(s.smoothing));
  const logs = Object.entries(s.logScale).map(([k, on]) => `${k}:${on ? 1 : 0}`);
  if (logs.length) p.set('log', logs.join(','));
  if (s.panelFilter) p.set('q', s.panelFilter);
  if (s.pinned.length) p.set('pin', s.pinned.join(','));
  if (s.combined.length) p.set('c', s.combined.join(','));
  if (s.showConstant) p.set('const', '1');
  if (s.poolSeeds) p.set('seeds', '1');
  if (s.rolloutStep !== null) p.set('step', String(s.rolloutStep));
  if (s.rolloutStep !== null && s.rolloutKey) p.set('ep', s.rolloutKey);
  return p.toString();
}

export function decodeTrainingState(run: string | undefined, text: string | undefined): TrainingUrlState {
  const p = new URLSearchParams(text ?? '');
  const x = p.get('x');
  const smoothing = Number(p.get('s'));
  const step = Number(p.get('step'));
  const rolloutStep = p.has('step') && Number.isInteger(step) && step >= 0 ? step : null;
  const logScale: Record<string, boolean> = {};
  for (const item of list(p.get('log'))) {
    const at = item.lastIndexOf(':');
    if (at > 0) logScale[item.slice(0, at)] = item.slice(at + 1) === '1';
  }
  return {
    run: run ?? null,
    overlays: list(p.get('o')),
    xAxis: AXES.includes(x as (typeof AXES)[number]) ? (x as (typeof AXES)[number]) : 'step',
    smoothing:
      p.has('s') && Number.isFinite(smoothing) && smoothing >= 0 && smoothing < 1 ? smoothing : DEFAULT_SMOOTHING,
    logScale,
    panelFilter: p.get('q') ?? '',
    pinned: list(p.get('pin')),
    combined: list(p.get('c')),
    showConstant: p.get('const') === '1',
    poolSeeds: p.get('seeds') === '1',
    rolloutStep,
    rolloutKey: rolloutStep !== null ? p.get('ep') || null : null,
  };
}
