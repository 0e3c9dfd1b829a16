/**
 * An asciicast v2 recording as plain data (header line, then `[time, "o", data]` events), the turn markers on
 * its clock, and the player's arithmetic: how far to draw, the next turn, the next speed.
 */
export interface Cast {
  cols: number;
  rows: number;
  /** Unix seconds when the recording started (header `timestamp`), if written. */
  timestamp: number | null;
  events: [number, string][];
  duration: number;
}

export interface CastMarker {
  /** Seconds from the start of the recording. */
  time: number;
  label: string;
}

export const SPEEDS = [0.5, 1, 2, 4, 8, 16];
export const SEEK_STEP_SEC = 5;

export function parseCast(text: string): Cast {
  const lines = text.split('\n').filter((l) => l.trim());
  const header = JSON.parse(lines[0] ?? '{}') as { width?: number; height?: number; timestamp?: number };
  const events: [number, string][] = [];
  for (const line of lines.slice(1)) {
    try {
      const [t, kind, data] = JSON.parse(line) as [number, string, string];
      if (kind === 'o') events.push([t, data]);
    } catch {
      // a torn last line of a recording cut short
    }
  }
  return {
    cols: header.width ?? 160,
    rows: header.height ?? 40,
    timestamp: header.timestamp ?? null,
    events,
    duration: events.at(-1)?.[0] ?? 0,
  };
}

/** Turn start times (ISO) to marker seconds on the recording's clock; markers outside it are left out. */
export function turnMarkers(cast: Cast, turns: { startedAt: string; policyMs: number }[]): CastMarker[] {
  if (cast.timestamp === null) return [];
  const start = cast.timestamp * 1000;
  return turns
    .map((t, i) => ({ time: (Date.parse(t.startedAt) + t.policyMs - start) / 1000, label: `turn ${i + 1}` }))
    .filter((m) => Number.isFinite(m.time) && m.time >= 0 && m.time <= cast.duration + 1)
    .map((m) => ({ ...m, time: Math.min(m.time, cast.duration) }));
}

/** How many events are drawn at `position` seconds: those at or before it. */
export function eventsUpTo(events: readonly [number, string][], position: number): number {
  const upto = events.findIndex(([time]) => time > position);
  return upto < 0 ? events.length : upto;
}

/** The time of the next marker after `position` (dir 1) or the one before it (dir -1), if any. */
export function markerTime(markers: readonly CastMarker[], position: number, dir: 1 | -1): number | null {
  const candidates =
    dir > 0
      ? markers.filter((m) => m.time > position + 0.01)
      : markers.filter((m) => m.time < position - 0.01).reverse();
  return candidates[0]?.time ?? null;
}

/** The next slower (dir -1) or faster (dir 1) speed, held at the ends. */
export function shiftSpeed(speed: number, dir: 1 | -1): number {
  const i = SPEEDS.indexOf(speed);
  return SPEEDS[dir > 0 ? Math.min(SPEEDS.length - 1, i + 1) : Math.max(0, i - 1)]!;
}
