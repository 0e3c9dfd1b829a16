/** Several metrics on one chart: the names a text gives, the panel they make, and the address that keeps it. */
import { describe, expect, test } from 'vitest';
import { combinedPanel, parseCombined } from '../../../renderer/src/components/training/panels';
import { decodeTrainingState, encodeTrainingState } from '../../../renderer/src/components/training/url-state';

describe('combined charts', () => {
  test('names joined with + or commas, trimmed, each once', () => {
    expect(parseCombined(' pg_loss + vf_loss ,pg_loss')).toEqual(['pg_loss', 'vf_loss']);
    expect(parseCombined('')).toEqual([]);
  });
  test('a panel of the logged metrics, a line each; fewer than two logged makes none', () => {
    expect(combinedPanel('pg_loss + vf_loss + nope', ['pg_loss', 'vf_loss', 'lr'])).toEqual({
      id: 'pg_loss+vf_loss',
      family: true,
      lines: [
        { key: 'pg_loss', label: 'pg_loss' },
        { key: 'vf_loss', label: 'vf_loss' },
      ],
    });
    expect(combinedPanel('pg_loss+nope', ['pg_loss'])).toBeNull();
  });
  test('the address keeps them', () => {
    const base = {
      overlays: [],
      xAxis: 'step' as const,
      smoothing: 0.6,
      logScale: {},
      panelFilter: '',
      pinned: [],
      showConstant: false,
      rolloutStep: null,
      rolloutKey: null,
    };
    const text = encodeTrainingState({ ...base, combined: ['pg_loss+vf_loss', 'entropy+ppo_kl'] });
    expect(decodeTrainingState('RUN', text).combined).toEqual(['pg_loss+vf_loss', 'entropy+ppo_kl']);
    expect(decodeTrainingState('RUN', '').combined).toEqual([]);
  });
});
