/** How the CLI talks: JSON on stdout for `--json`, aligned tables and progress bars for people. */
import { SingleBar, Presets } from 'cli-progress';

export interface Io {
  out: (text: string) => void;
  err: (text: string) => void;
  /** True when stderr is a terminal: progress bars are drawn only then. */
  interactive: boolean;
}

export const processIo: Io = {
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  interactive: !!process.stderr.isTTY,
};

export function printJson(io: Io, value: unknown): void {
  io.out(`${JSON.stringify(value, null, 2)}\n`);
}

/** Rows of cells as aligned columns; the first row is the header. */
export function table(rows: (string | number)[][]): string {
  const cells = rows.map((r) => r.map(String));
  const widths = cells[0]?.map((_, i) => Math.max(...cells.map((r) => (r[i] ?? '').length))) ?? [];
  return (
    cells.map((r) => r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i] ?? 0))).join('  ')).join('\n') + '\n'
  );
}

export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(unit === 0 ? 0 : 1)} ${units[unit]}`;
}

export interface Progress {
  update(done: number, detail?: string): void;
  setTotal(total: number): void;
  stop(): void;
}

/**
 * A progress bar on stderr (so `--json` stdout stays clean). Without a terminal it prints a line per 10%
 * instead, so logs of CI runs still show progress.
 */
export function progressBar(io: Io, label: string, total: number): Progress {
  if (io.interactive) {
    const bar = new SingleBar(
      {
        format: `${label} [{bar}] {value}/{total} {percentage}% | eta {eta_formatted} | {detail}`,
        stream: process.stderr,
        hideCursor: true,
      },
      Presets.shades_classic,
    );
    bar.start(total, 0, { detail: '' });
    return {
      update: (done, detail = '') => bar.update(done, { detail }),
      setTotal: (t) => bar.setTotal(t),
      stop: () => bar.stop(),
    };
  }
  let lastDecile = -1;
  let currentTotal = total;
  return {
    update(done, detail) {
      const decile = currentTotal > 0 ? Math.floor((done / currentTotal) * 10) : 10;
      if (decile !== lastDecile) {
        lastDecile = decile;
        io.err(`${label}: ${done}/${currentTotal}${detail ? ` (${detail})` : ''}\n`);
      }
    },
    setTotal: (t) => (currentTotal = t),
    stop: () => {},
  };
}
