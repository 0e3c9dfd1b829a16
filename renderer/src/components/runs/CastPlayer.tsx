/**
 * Replays an asciicast v2 recording (header line, then `[time, "o", data]` events) into a terminal, with
 * play/pause, speed (1× by default: what happened, at the pace it happened), a scrubber with a marker per
 * turn, and keyboard controls. Before playing it shows a poster frame: the last screen of the recording.
 * Seeking backwards redraws from the start (terminals cannot rewind).
 */
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useMemo, useRef, useState } from 'react';
import { TERMINAL_STYLE } from '../common/terminal-style';

interface Cast {
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

const SPEEDS = [0.5, 1, 2, 4, 8, 16];
const SEEK_STEP_SEC = 5;

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
  return { cols: header.width ?? 160, rows: header.height ?? 40, timestamp: header.timestamp ?? null, events, duration: events.at(-1)?.[0] ?? 0 };
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

export function CastPlayer({ cast: text, turns = [] }: { cast: string; turns?: { startedAt: string; policyMs: number }[] }) {
  const cast = useMemo(() => parseCast(text), [text]);
  const markers = useMemo(() => turnMarkers(cast, turns), [cast, turns]);
  const root = useRef<HTMLDivElement>(null);
  const host = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | null>(null);
  const written = useRef(0);
  // The poster frame: the recording's last screen, until the user plays or seeks.
  const [position, setPosition] = useState(cast.duration);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(1);

  useEffect(() => {
    const t = new Terminal({ ...TERMINAL_STYLE, cols: cast.cols, rows: cast.rows, disableStdin: true, scrollback: 1000 });
    t.open(host.current as HTMLDivElement);
    term.current = t;
    written.current = 0;
    setPosition(cast.duration);
    // The player appears where the user asked for it, often below the fold (the episode's turns and verdict
    // come first): bring the whole of it into view once the terminal has its size.
    const frame = requestAnimationFrame(() => root.current?.scrollIntoView({ block: 'nearest' }));
    return () => {
      cancelAnimationFrame(frame);
      t.dispose();
    };
  }, [cast]);

  // Draw up to `position`; rewinding clears and redraws from the start.
  useEffect(() => {
    const t = term.current;
    if (!t) return;
    let upto = cast.events.findIndex(([time]) => time > position);
    if (upto < 0) upto = cast.events.length;
    if (upto < written.current) {
      t.reset();
      written.current = 0;
    }
    const chunk = cast.events.slice(written.current, upto).map(([, d]) => d).join('');
    if (chunk) t.write(chunk);
    written.current = upto;
  }, [position, cast]);

  useEffect(() => {
    if (!playing) return;
    const tick = 50;
    const timer = setInterval(() => {
      setPosition((p) => {
        const next = p + (tick / 1000) * speed;
        if (next >= cast.duration) {
          setPlaying(false);
          return cast.duration;
        }
        return next;
      });
    }, tick);
    return () => clearInterval(timer);
  }, [playing, speed, cast.duration]);

  const atEnd = position >= cast.duration;
  const togglePlay = () => {
    if (atEnd) {
      setPosition(0);
      setPlaying(true);
    } else setPlaying(!playing);
  };
  const seek = (to: number) => setPosition(Math.max(0, Math.min(cast.duration, to)));
  const nextMarker = (dir: 1 | -1) => {
    const sorted = dir > 0 ? markers.filter((m) => m.time > position + 0.01) : markers.filter((m) => m.time < position - 0.01).reverse();
    if (sorted[0]) seek(sorted[0].time);
  };
  const onKey = (e: React.KeyboardEvent) => {
    const keys: Record<string, () => void> = {
      ' ': togglePlay,
      k: togglePlay,
      ArrowLeft: () => seek(position - SEEK_STEP_SEC),
      ArrowRight: () => seek(position + SEEK_STEP_SEC),
      Home: () => seek(0),
      End: () => seek(cast.duration),
      '[': () => nextMarker(-1),
      ']': () => nextMarker(1),
      '<': () => setSpeed(SPEEDS[Math.max(0, SPEEDS.indexOf(speed) - 1)]!),
      '>': () => setSpeed(SPEEDS[Math.min(SPEEDS.length - 1, SPEEDS.indexOf(speed) + 1)]!),
    };
    const action = keys[e.key];
    if (!action || (e.target as HTMLElement).tagName === 'SELECT') return;
    e.preventDefault();
    action();
  };

  return (
    <div className="cast-player" ref={root} data-testid="cast-player" tabIndex={0} onKeyDown={onKey} aria-label="Recording player: space plays or pauses, arrows seek 5 s, [ and ] jump between turns">
      <div className="toolbar">
        <button onClick={togglePlay} data-testid="cast-play">
          {playing ? 'Pause' : atEnd && position > 0 ? 'Play from start' : 'Play'}
        </button>
        <label>
          speed{' '}
          <select value={speed} onChange={(e) => setSpeed(Number(e.target.value))} data-testid="cast-speed">
            {SPEEDS.map((s) => (
              <option key={s} value={s}>
                {s}×
              </option>
            ))}
          </select>
        </label>
        <div className="scrubber">
          <input type="range" min={0} max={cast.duration} step={0.01} value={position} onChange={(e) => seek(Number(e.target.value))} aria-label="position" data-testid="cast-position" />
          <div className="scrubber-markers" aria-hidden="true">
            {markers.map((m) => (
              <button
                key={m.label}
                type="button"
                tabIndex={-1}
                className="scrubber-marker"
                style={{ left: `${cast.duration ? (m.time / cast.duration) * 100 : 0}%` }}
                title={`${m.label} at ${m.time.toFixed(1)} s`}
                data-testid="cast-marker"
                onClick={() => seek(m.time)}
              />
            ))}
          </div>
        </div>
        <span className="muted">
          {position.toFixed(1)} / {cast.duration.toFixed(1)} s · {markers.length ? `${markers.length} turns · ` : ''}space, ←/→, [ ]
        </span>
      </div>
      <div className="cast-screen" ref={host} data-testid="cast-screen" />
    </div>
  );
}
