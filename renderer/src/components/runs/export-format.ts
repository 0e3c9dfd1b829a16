/** A run's episodes as CSV (one row per episode) or JSON (manifest, statistics, episodes). */
import type { EpisodeRecord, RunManifest, RunStats } from '../../../../electron/domain/runs';

const COLUMNS: [string, (e: EpisodeRecord) => string | number | boolean | null][] = [
  ['key', (e) => e.key],
  ['task', (e) => e.taskId],
  ['attempt', (e) => e.attempt],
  ['category', (e) => e.category],
  ['difficulty', (e) => e.difficulty],
  ['resolved', (e) => e.resolved],
  ['reward_dense', (e) => e.reward?.dense ?? null],
  ['reward_fraction', (e) => e.reward?.fraction ?? null],
  ['turns', (e) => e.turns],
  ['stop_reason', (e) => e.stopReason],
  ['error_kind', (e) => e.error?.kind ?? null],
  ['error', (e) => e.error?.message ?? null],
  ['prompt_tokens', (e) => e.tokens.prompt],
  ['completion_tokens', (e) => e.tokens.completion],
  ['cost_usd', (e) => e.costUsd],
  ['duration_ms', (e) => Math.round(e.durationMs)],
  ['finished_at', (e) => e.finishedAt],
];

function csvCell(v: string | number | boolean | null): string {
  if (v === null) return '';
  const s = String(v);
  return /[",\n\r]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

export function episodesCsv(episodes: EpisodeRecord[]): string {
  const rows = [...episodes]
    .sort((a, b) => a.key.localeCompare(b.key))
    .map((e) => COLUMNS.map(([, get]) => csvCell(get(e))).join(','));
  return [COLUMNS.map(([name]) => name).join(','), ...rows].join('\n') + '\n';
}

export function runJson(manifest: RunManifest, stats: RunStats, episodes: EpisodeRecord[]): string {
  return JSON.stringify({ manifest, stats, episodes }, null, 2) + '\n';
}
