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
import {
  eventsUpTo,
  markerTime,
  parseCast,
  SEEK_STEP_SEC,
  shiftSpeed,
  SPEEDS,
  turnMarkers,
  type Cast,
  type CastMarker,
} from './cast';

export function CastPlayer({
  cast: text,
  turns = [],
}: {
  cast: string;
  turns?: { startedAt: string; policyMs: number }[];
}) {
  const cast = useMemo(() => parseCast(text), [text]);
  const markers = useMemo(() => turnMarkers(cast, turns), [cast, turns]);
  const root = useRef<HTMLDivElement>(null);
  // The poster frame: the recording's last screen, until the user plays or seeks.
  const [position, setPosition] = useState(cast.duration);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(1);
  const host = useReplayTerminal(cast, position, () => {
    setPosition(cast.duration);
    // The player appears where the user asked for it, often below the fold (the episode's turns and verdict
    // come first): bring the whole of it into view once the terminal has its size.
    return requestAnimationFrame(() => root.current?.scrollIntoView({ block: 'nearest' }));
  });
  usePlayback(playing, speed, cast.duration, setPosition, setPlaying);

  const atEnd = position >= cast.duration;
  const togglePlay = () => {
    if (atEnd) {
      setPosition(0);
      setPlaying(true);
    } else setPlaying(!playing);
  };
  const seek = (to: number) => setPosition(Math.max(0, Math.min(cast.duration, to)));
  const toMarker = (dir: 1 | -1) => {
    const time = markerTime(markers, position, dir);
    if (time !== null) seek(time);
  };
  const onKey = (e: React.KeyboardEvent) => {
    const keys: Record<string, () => void> = {
      ' ': togglePlay,
      k: togglePlay,
      ArrowLeft: () => seek(position - SEEK_STEP_SEC),
      ArrowRight: () => seek(position + SEEK_STEP_SEC),
      Home: () => seek(0),
      End: () => seek(cast.duration),
      '[': () => toMarker(-1),
      ']': () => toMarker(1),
      '<': () => setSpeed(shiftSpeed(speed, -1)),
      '>': () => setSpeed(shiftSpeed(speed, 1)),
    };
    const action = keys[e.key];
    if (!action || (e.target as HTMLElement).tagName === 'SELECT') return;
    e.preventDefault();
    action();
  };

  return (
    <div
      className="cast-player"
      ref={root}
      data-testid="cast-player"
      tabIndex={0}
      onKeyDown={onKey}
      aria-label="Recording player: space plays or pauses, arrows seek 5 s, [ and ] jump between turns"
    >
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
        <Scrubber duration={cast.duration} position={position} markers={markers} onSeek={seek} />
        <span className="muted">
          {position.toFixed(1)} / {cast.duration.toFixed(1)} s · {markers.length ? `${markers.length} turns · ` : ''}
          space, ←/→, [ ]
        </span>
      </div>
      <div className="cast-screen" ref={host} data-testid="cast-screen" />
    </div>
  );
}

/**
 * A terminal for the recording, drawn up to `position` (rewinding clears and redraws from the start);
 * `onOpen` runs when a recording's terminal opens and returns an animation frame to cancel on close.
 */
function useReplayTerminal(cast: Cast, position: number, onOpen: () => number) {
  const host = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | null>(null);
  const written = useRef(0);
  useEffect(() => {
    const t = new Terminal({
      ...TERMINAL_STYLE,
      cols: cast.cols,
      rows: cast.rows,
      disableStdin: true,
      scrollback: 1000,
    });
    t.open(host.current as HTMLDivElement);
    term.current = t;
    written.current = 0;
    const frame = onOpen();
    return () => {
      cancelAnimationFrame(frame);
      t.dispose();
    };
  }, [cast]);
  useEffect(() => {
    const t = term.current;
    if (!t) return;
    const upto = eventsUpTo(cast.events, position);
    if (upto < written.current) {
      t.reset();
      written.current = 0;
    }
    const chunk = cast.events
      .slice(written.current, upto)
      .map(([, d]) => d)
      .join('');
    if (chunk) t.write(chunk);
    written.current = upto;
  }, [position, cast]);
  return host;
}

/** While playing, the position moves at `speed` times real time and stops at the end. */
function usePlayback(
  playing: boolean,
  speed: number,
  duration: number,
  setPosition: (f: (p: number) => number) => void,
  setPlaying: (on: boolean) => void,
): void {
  useEffect(() => {
    if (!playing) return;
    const tick = 50;
    const timer = setInterval(() => {
      setPosition((p) => {
        const next = p + (tick / 1000) * speed;
        if (next >= duration) {
          setPlaying(false);
          return duration;
        }
        return next;
      });
    }, tick);
    return () => clearInterval(timer);
  }, [playing, speed, duration]);
}

/** The position slider with a marker per turn (a click seeks to it). */
function Scrubber({
  duration,
  position,
  markers,
  onSeek,
}: {
  duration: number;
  position: number;
  markers: CastMarker[];
  onSeek(to: number): void;
}) {
  return (
    <div className="scrubber">
      <input
        type="range"
        min={0}
        max={duration}
        step={0.01}
        value={position}
        onChange={(e) => onSeek(Number(e.target.value))}
        aria-label="position"
        data-testid="cast-position"
      />
      <div className="scrubber-markers" aria-hidden="true">
        {markers.map((m) => (
          <button
            key={m.label}
            type="button"
            tabIndex={-1}
            className="scrubber-marker"
            style={{ left: `${duration ? (m.time / duration) * 100 : 0}%` }}
            title={`${m.label} at ${m.time.toFixed(1)} s`}
            data-testid="cast-marker"
            onClick={() => onSeek(m.time)}
          />
        ))}
      </div>
    </div>
  );
}
