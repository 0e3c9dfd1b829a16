import { describe, expect, test } from 'vitest';
import { eventsUpTo, markerTime, parseCast, shiftSpeed, turnMarkers } from '../../../renderer/src/components/runs/cast';

const text = [
  '{"version": 2, "width": 80, "height": 24, "timestamp": 1000}',
  '[0.5, "o", "$ "]',
  '[1.0, "i", "ls\\r"]',
  '[2.5, "o", "a b\\r\\n"]',
  '[4.0, "o", "$ "]',
  '[4.5, "o"',
].join('\n');

describe('a recording and the player arithmetic', () => {
  test('parseCast keeps the output events, its size and start; a torn last line is dropped', () => {
    const cast = parseCast(text);
    expect(cast).toMatchObject({ cols: 80, rows: 24, timestamp: 1000, duration: 4 });
    expect(cast.events.map(([t]) => t)).toEqual([0.5, 2.5, 4]);
  });

  test('turnMarkers puts each turn after its policy time on the recording clock, within it', () => {
    const cast = parseCast(text);
    const markers = turnMarkers(cast, [
      { startedAt: new Date(1_000_000).toISOString(), policyMs: 500 },
      { startedAt: new Date(1_002_000).toISOString(), policyMs: 2_500 }, // 4.5 s: clamped to the end
      { startedAt: new Date(1_003_000).toISOString(), policyMs: 3_000 }, // 6 s: past the end
      { startedAt: new Date(999_000).toISOString(), policyMs: 0 },
    ]);
    expect(markers).toEqual([
      { time: 0.5, label: 'turn 1' },
      { time: 4, label: 'turn 2' },
    ]);
  });

  test('eventsUpTo counts the events at or before a position', () => {
    const { events } = parseCast(text);
    expect(eventsUpTo(events, 0)).toBe(0);
    expect(eventsUpTo(events, 2.5)).toBe(2);
    expect(eventsUpTo(events, 99)).toBe(3);
  });

  test('markerTime finds the next or previous turn; shiftSpeed steps through the speeds and holds at the ends', () => {
    const markers = [
      { time: 1, label: 'turn 1' },
      { time: 3, label: 'turn 2' },
    ];
    expect(markerTime(markers, 1, 1)).toBe(3);
    expect(markerTime(markers, 3, -1)).toBe(1);
    expect(markerTime(markers, 3, 1)).toBeNull();
    expect(shiftSpeed(1, 1)).toBe(2);
    expect(shiftSpeed(1, -1)).toBe(0.5);
    expect(shiftSpeed(16, 1)).toBe(16);
    expect(shiftSpeed(0.5, -1)).toBe(0.5);
  });
});
