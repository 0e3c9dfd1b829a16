/** A grid of live read-only terminals, one per running episode of a run. */
import { useEffect, useState } from 'react';
import type { LiveEpisode } from '../../../../electron/domain/runs';
import { getLabApi } from '../../lab/api';
import { LiveTerminal } from './LiveTerminal';

export function LiveGrid({ runId, running }: { runId: string; running: string[] }) {
  const [live, setLive] = useState<LiveEpisode[]>([]);
  const wanted = running.join('\n');
  useEffect(() => {
    let stale = false;
    getLabApi()
      .methods['runs.live']({ runId })
      .then(
        (r) => !stale && setLive(r.episodes),
        () => !stale && setLive([]),
      );
    return () => {
      stale = true;
    };
  }, [runId, wanted]);
  if (!live.length) return null;
  return (
    <div className="live-grid" data-testid="live-grid">
      {live.map((e) => (
        <div key={e.key} className="live-cell">
          <div className="live-title">
            {e.taskId} · attempt {e.attempt}
          </div>
          <LiveTerminal runId={runId} episodeKey={e.key} initial={e.buffer} />
        </div>
      ))}
    </div>
  );
}
