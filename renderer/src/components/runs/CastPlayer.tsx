/**
 * Replays an asciicast v2 recording (header line, then `[time, "o", data]` events) into a terminal, with
 * play/pause, speed and a position slider. Seeking backwards redraws from the start (terminals cannot rewind).
 */
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';
import { useEffect, useMemo, useRef, useState } from 'react';

interface Cast {
  cols: number;
  rows: number;
  events: [number, string][];
  duration: number;
}

export function parseCast(text: string): Cast {
  const lines = text.split('\n').filter((l) => l.trim());
  const header = JSON.parse(lines[0] ?? '{}') as { width?: number; height?: number };
  const events: [number, string][] = [];
  for (const line of lines.slice(1)) {
    try {
      const [t, kind, data] = JSON.parse(line) as [number, string, string];
      if (kind === 'o') events.push([t, data]);
    } catch {
      // a torn last line of a recording cut short
    }
  }
  return { cols: header.width ?? 160, rows: header.height ?? 40, events, duration: events.at(-1)?.[0] ?? 0 };
}

export function CastPlayer({ cast: text }: { cast: string }) {
  const cast = useMemo(() => parseCast(text), [text]);
  const host = useRef<HTMLDivElement>(null);
  const term = useRef<Terminal | null>(null);
  const written = useRef(0);
  const [position, setPosition] = useState(0);
  const [playing, setPlaying] = useState(false);
  const [speed, setSpeed] = useState(4);

  useEffect(() => {
    const t = new Terminal({ cols: cast.cols, rows: cast.rows, disableStdin: true, fontSize: 10, scrollback: 1000 });
    t.open(host.current as HTMLDivElement);
    term.current = t;
    written.current = 0;
    setPosition(0);
    return () => t.dispose();
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

  return (
    <div className="cast-player" data-testid="cast-player">
      <div className="toolbar">
        <button onClick={() => (position >= cast.duration ? (setPosition(0), setPlaying(true)) : setPlaying(!playing))} data-testid="cast-play">
          {playing ? 'Pause' : position >= cast.duration && cast.duration > 0 ? 'Replay' : 'Play'}
        </button>
        <label>
          speed{' '}
          <select value={speed} onChange={(e) => setSpeed(Number(e.target.value))}>
            {[1, 2, 4, 8, 16].map((s) => (
              <option key={s} value={s}>
                {s}×
              </option>
            ))}
          </select>
        </label>
        <input type="range" min={0} max={cast.duration} step={0.01} value={position} onChange={(e) => setPosition(Number(e.target.value))} aria-label="position" />
        <span className="muted">
          {position.toFixed(1)} / {cast.duration.toFixed(1)} s · {cast.events.length} events
        </span>
      </div>
      <div className="cast-screen" ref={host} />
    </div>
  );
}
