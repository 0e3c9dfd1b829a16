/**
 * The Training page's view lives in the address (#/training/RUN/STATE, url-state.ts): restored from it when
 * the page opens, then written back (replacing the entry) whenever the view changes.
 */
import { useEffect } from 'react';
import { startWhenReady } from '../../lab/start-when-ready';
import { useNav } from '../../stores/nav';
import { useTraining } from '../../stores/training';
import { decodeTrainingState, encodeTrainingState } from './url-state';

type TrainingState = ReturnType<typeof useTraining.getState>;

/** The view's part of the address: everything but the primary run (the segment before it). */
function encodedView(s: TrainingState): string {
  return encodeTrainingState({
    overlays: s.charted.filter((r) => r !== s.primary),
    xAxis: s.xAxis,
    smoothing: s.smoothing,
    logScale: s.logScale,
    panelFilter: s.panelFilter,
    pinned: s.pinned,
    combined: s.combined,
    showConstant: s.showConstant,
    poolSeeds: s.poolSeeds,
    rolloutStep: s.rolloutStep?.step ?? null,
    rolloutKey: s.rollout?.key ?? null,
  });
}

/** Restore the view from the address first, then keep the address written; stops writing on unmount. */
export function useTrainingAddress(): void {
  useEffect(() => {
    const [run, state] = useNav.getState().page === 'training' ? useNav.getState().params : [];
    const restored = run ? useTraining.getState().restore(decodeTrainingState(run, state)) : Promise.resolve();
    let last = '';
    const write = (s: TrainingState) => {
      if (!s.primary || useNav.getState().page !== 'training') return;
      const encoded = encodedView(s);
      const key = `${s.primary}\n${encoded}`;
      if (key === last) return;
      last = key;
      useNav.getState().link('training', encoded ? [s.primary, encoded] : [s.primary], { replace: true });
    };
    return startWhenReady(restored, () => {
      write(useTraining.getState());
      return useTraining.subscribe(write);
    });
  }, []);
}
