/**
 * A run's episodes tab: the episode viewer (the episode the address opens) above the filtered list it was
 * opened from. The viewer's place scrolls into view when an episode opens from the matrix or a link.
 */
import { useEffect, useRef } from 'react';
import type { OpenEpisode, RunDetail } from '../../stores/runs';
import { useNav } from '../../stores/nav';
import { EpisodeViewer } from './EpisodeViewer';
import { EpisodeList, type EpisodeFilters } from './RunResults';
import type { RunView } from './run-tabs';

export function RunEpisodesTab({
  runId,
  detail,
  episode,
  view,
  filters,
  onFilters,
  onOpen,
  onClose,
}: {
  runId: string;
  detail: RunDetail | null;
  /** The episode read last (of this run or another). */
  episode: OpenEpisode | null;
  view: RunView;
  filters: EpisodeFilters;
  onFilters: (filters: EpisodeFilters) => void;
  onOpen: (key: string) => void;
  onClose: () => void;
}) {
  const { link } = useNav();
  const viewerRef = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (view.episodeKey) viewerRef.current?.scrollIntoView({ block: 'nearest' });
  }, [view.episodeKey, episode?.key]);
  const episodes = detail?.episodes ?? [];
  return (
    <>
      <div ref={viewerRef}>
        {episode && episode.runId === runId && view.episodeKey === episode.key && (
          <EpisodeViewer
            episode={episode}
            turn={view.turn !== null ? view.turn - 1 : 0}
            onTurn={(index) => link('runs', [runId, episode.key, index + 1], { replace: true })}
            onClose={onClose}
          />
        )}
      </div>
      {detail && episodes.length > 0 ? (
        <EpisodeList
          episodes={episodes}
          filters={filters}
          onFilters={onFilters}
          selectedKey={view.episodeKey}
          onOpen={onOpen}
        />
      ) : (
        <NoEpisodes />
      )}
    </>
  );
}

/** What a tab of episodes shows before the first episode of the run has finished. */
export function NoEpisodes() {
  return <p className="muted">No finished episode yet.</p>;
}
