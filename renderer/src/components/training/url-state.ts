/**
 * The Training page's view in the address: `#/training/RUN/o=OVERLAY,…&x=wall&s=0.8&log=KEY:1,…&q=REGEX&pin=…`,
 * so a reload, a bookmark or a link shows the same charts.
 */
import type { TrainingUrlState } from '../../stores/training';

const AXES = ['step', 'wall', 'tokens'] as const;
export const DEFAULT_SMOOTHING = 0.6;

const list = (v: string | null) => (v ? v.split(',').filter(Boolean) : []);

export function encodeTrainingState(s: Omit<TrainingUrlState, 'run'>): string {
  const p = new URLSearchParams();
  if (s.overlays.length) p.set('o', s.overlays.join(','));
  if (s.xAxis !== 'step') p.set('x', s.xAxis);
  if (s.smoothing !== DEFAULT_SMOOTHING) p.set('s', String(s.smoothing));
  const logs = Object.entries(s.logScale).map(([k, on]) => `${k}:${on ? 1 : 0}`);
  if (logs.length) p.set('log', logs.join(','));
  if (s.panelFilter) p.set('q', s.panelFilter);
  if (s.pinned.length) p.set('pin', s.pinned.join(','));
  return p.toString();
}

export function decodeTrainingState(run: string | undefined, text: string | undefined): TrainingUrlState {
  const p = new URLSearchParams(text ?? '');
  const x = p.get('x');
  const smoothing = Number(p.get('s'));
  const logScale: Record<string, boolean> = {};
  for (const item of list(p.get('log'))) {
    const at = item.lastIndexOf(':');
    if (at > 0) logScale[item.slice(0, at)] = item.slice(at + 1) === '1';
  }
  return {
    run: run ?? null,
    overlays: list(p.get('o')),
    xAxis: AXES.includes(x as (typeof AXES)[number]) ? (x as (typeof AXES)[number]) : 'step',
    smoothing: p.has('s') && Number.isFinite(smoothing) && smoothing >= 0 && smoothing < 1 ? smoothing : DEFAULT_SMOOTHING,
    logScale,
    panelFilter: p.get('q') ?? '',
    pinned: list(p.get('pin')),
  };
}
