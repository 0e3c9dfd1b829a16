/** What a run was: policy, suite, seed, harness settings, code version, concurrency, when and how long, and its command line. */
import type { EpisodeRecord, RunManifest } from '../../../../electron/domain/runs';
import { KeyValue } from '../KeyValue';
import { EvalCommand } from './EvalCommand';

export function duration(ms: number): string {
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

/** From the run's creation to its last finished episode (or now, while it runs). */
export function runDuration(manifest: RunManifest, episodes: EpisodeRecord[], running: boolean): number {
  const start = Date.parse(manifest.createdAt);
  const last = running ? Date.now() : Math.max(start, ...episodes.map((e) => Date.parse(e.finishedAt)));
  return Math.max(0, last - start);
}

export function RunConfigPanel({
  manifest,
  episodes,
  running,
}: {
  manifest: RunManifest;
  episodes: EpisodeRecord[];
  running: boolean;
}) {
  const c = manifest.config;
  const h = c.harness;
  const settings = Object.entries(c.policySettings)
    .filter(([k]) => k !== 'apiKeyEnv')
    .map(([k, v]) => `${k} ${typeof v === 'object' ? JSON.stringify(v) : String(v)}`)
    .join(' · ');
  return (
    <details className="run-config" data-testid="run-config" open>
      <summary>Configuration</summary>
      <KeyValue
        rows={[
          ['policy', `${c.policy}${settings ? ` (${settings})` : ''}`],
          [
            'suite',
            `${c.suite} · ${c.tasks.length} task${c.tasks.length === 1 ? '' : 's'} × ${c.attempts} attempt${c.attempts === 1 ? '' : 's'}`,
          ],
          ['started', new Date(manifest.createdAt).toLocaleString()],
          ['duration', `${duration(runDuration(manifest, episodes, running))}${running ? ' so far' : ''}`],
          ['seed', String(c.seed)],
          [
            'harness',
            `max ${h.maxTurns} turns · context ${h.contextStrategy} · observations ${h.observationChars.toLocaleString()} chars${h.agentTimeoutSec ? ` · agent ${h.agentTimeoutSec} s` : ''}`,
          ],
          [
            'concurrency',
            `${c.concurrency}${c.episodeDeadlineSec ? ` · episode deadline ${c.episodeDeadlineSec} s` : ''}`,
          ],
          ['code', `${manifest.code.version}${manifest.code.commit ? ` (${manifest.code.commit.slice(0, 10)})` : ''}`],
          ['host', `${manifest.host.platform} · ${manifest.host.cores} cores · node ${manifest.host.node}`],
        ]}
      />
      {c.kind === 'eval' && <EvalCommand config={c} />}
    </details>
  );
}
