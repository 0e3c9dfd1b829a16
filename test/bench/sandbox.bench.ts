/**
 * Issue 3 targets: spawn-to-first-prompt of a sandboxed pty shell against a bare node-pty bash (goal
 * <= 1.5x); p95 keystroke-echo latency with 32 sandboxed sessions open at once (against 32 bare ones);
 * output throughput through the session pipeline and its headless screen (against the raw pty).
 * The bare baseline runs the same session code (markers, transcript, screen) without bwrap.
 */
import { createShellSession, type SandboxShellSession } from '../../native/pty/index';
import { UnsandboxedBenchBackend } from '../../native/pty/bench-baseline';
import { createSandboxBackend, defaultLimits, type SandboxBackend } from '../../native/sandbox/index';
import { cpus, loadavg } from 'node:os';
import { makeTempDir } from '../helpers/tmp';
import { timeToPrompt } from './shell-timing';
import { median, percentile, type Bench } from './reporter';

const sandboxed = createSandboxBackend();
const bare = new UnsandboxedBenchBackend();

async function openSession(
  backend: SandboxBackend,
  workspace: string,
  cols = 120,
  rows = 40,
): Promise<SandboxShellSession> {
  return createShellSession({
    backend,
    spec: { workspace, net: false, limits: defaultLimits({ wallSeconds: 0 }) },
    cols,
    rows,
  });
}

function timeToPromptIn(backend: SandboxBackend, workspace: string): Promise<number> {
  return timeToPrompt(backend, { workspace, net: false, limits: defaultLimits({ wallSeconds: 0 }) });
}

/** Type one character into each session at once and time until its echo comes back; then erase it. */
async function echoRound(sessions: SandboxShellSession[]): Promise<number[]> {
  return Promise.all(
    sessions.map(
      (s) =>
        new Promise<number>((resolve) => {
          const started = performance.now();
          const sub = s.onData((d) => {
            if (!d.includes('x')) return;
            sub.dispose();
            resolve(performance.now() - started);
          });
          s.sendKeys(['x']);
        }),
    ),
  ).finally(() => {
    for (const s of sessions) s.sendKeys([{ key: 'Backspace' }]);
  });
}

/** Both sets open at once and typed into in alternating rounds, so that changing load hits both alike. */
async function echoLatencies(
  workspace: string,
  count: number,
  rounds: number,
): Promise<{ bare: number[]; sandboxed: number[] }> {
  const open = (backend: SandboxBackend) =>
    Promise.all(Array.from({ length: count }, () => openSession(backend, workspace, 80, 24)));
  const bareSessions = await open(bare);
  const boxSessions = await open(sandboxed);
  const all = [...bareSessions, ...boxSessions];
  try {
    await Promise.all(all.map((s) => s.ready()));
    const samples = { bare: [] as number[], sandboxed: [] as number[] };
    for (let r = 0; r < rounds; r++) {
      samples.bare.push(...(await echoRound(bareSessions)));
      await new Promise((res) => setTimeout(res, 20));
      samples.sandboxed.push(...(await echoRound(boxSessions)));
      await new Promise((res) => setTimeout(res, 20));
    }
    return samples;
  } finally {
    await Promise.all(all.map((s) => s.close()));
  }
}

/** MB/s of `bytes` of output through a session (markers, transcript, headless screen), until the screen has it all. */
async function throughput(backend: SandboxBackend, workspace: string, megabytes: number): Promise<number> {
  const s = await openSession(backend, workspace);
  try {
    await s.ready();
    // Printable lines, as a build log or a test run would produce.
    const started = performance.now();
    const r = await s.run(`head -c ${megabytes * 750_000} /dev/zero | base64 -w 100`, {
      timeoutMs: 120_000,
      maxOutputChars: 10_000,
    });
    await s.flushed();
    const seconds = (performance.now() - started) / 1000;
    if (r.exitCode !== 0) throw new Error(`throughput command failed: ${r.output.slice(-200)}`);
    return megabytes / seconds;
  } finally {
    await s.close();
  }
}

/** MB/s of the same output read straight from a bare pty, bytes counted and dropped. */
async function rawThroughput(workspace: string, megabytes: number): Promise<number> {
  const proc = await bare.spawnPty(
    { workspace, net: false, limits: defaultLimits() },
    ['/bin/sh', '-c', `head -c ${megabytes * 750_000} /dev/zero | base64 -w 100`],
    { cols: 120, rows: 40 },
  );
  const started = performance.now();
  let bytes = 0;
  const target = megabytes * 1_000_000 * 0.99;
  await new Promise<void>((resolve) => {
    proc.onData((d) => {
      bytes += d.length;
      if (bytes >= target) resolve();
    });
    proc.onExit(() => resolve());
  });
  const seconds = (performance.now() - started) / 1000;
  proc.kill();
  return bytes / 1_000_000 / seconds;
}

const bench: Bench = {
  name: 'sandbox',
  about: 'issue 3: sandboxed shells (spawn latency, 32-session echo latency, screen throughput)',
  async run(report, { quick }) {
    const ws = makeTempDir('t1lab-bench-');
    const load = () => loadavg()[0]?.toFixed(2) ?? '?';
    report.note(
      `load average at start: ${load()} on ${cpus().length} cores (other work on the machine moves every figure)`,
    );
    try {
      // Warm both paths (bwrap detection, page cache) before measuring.
      await timeToPromptIn(sandboxed, ws.path);
      await timeToPromptIn(bare, ws.path);
      const spawnRuns = quick ? 5 : 15;
      const sandboxedMs: number[] = [];
      const bareMs: number[] = [];
      for (let i = 0; i < spawnRuns; i++) {
        bareMs.push(await timeToPromptIn(bare, ws.path));
        sandboxedMs.push(await timeToPromptIn(sandboxed, ws.path));
      }
      const spawnRatio = median(sandboxedMs) / median(bareMs);
      report.figure({
        name: 'spawn to first prompt, sandboxed (median)',
        value: median(sandboxedMs),
        unit: 'ms',
        baseline: { name: 'bare node-pty bash', value: median(bareMs) },
        ratio: spawnRatio,
        goal: '<= 1.5x',
        met: spawnRatio <= 1.5,
      });

      const sessions = quick ? 8 : 32;
      const rounds = quick ? 5 : 20;
      const { bare: bareEcho, sandboxed: boxEcho } = await echoLatencies(ws.path, sessions, rounds);
      const echoRatio = percentile(boxEcho, 95) / percentile(bareEcho, 95);
      report.figure({
        name: `keystroke echo p95, ${sessions} sandboxed sessions`,
        value: percentile(boxEcho, 95),
        unit: 'ms',
        baseline: { name: `${sessions} bare node-pty bash sessions`, value: percentile(bareEcho, 95) },
        ratio: echoRatio,
        goal: '<= 1.5x',
        met: echoRatio <= 1.5,
      });
      report.note(
        `echo median: sandboxed ${median(boxEcho).toFixed(2)} ms, bare ${median(bareEcho).toFixed(2)} ms (${boxEcho.length} keystrokes each)`,
      );

      const mb = quick ? 5 : 20;
      const raws: number[] = [];
      const screens: number[] = [];
      for (let i = 0; i < (quick ? 1 : 3); i++) {
        raws.push(await rawThroughput(ws.path, mb));
        screens.push(await throughput(sandboxed, ws.path, mb));
      }
      const raw = median(raws);
      const screen = median(screens);
      const screenRatio = screen / raw;
      report.figure({
        name: 'output through session + headless screen, sandboxed',
        value: screen,
        unit: 'MB/s',
        baseline: { name: 'raw bare pty (bytes counted only)', value: raw },
        ratio: screenRatio,
        goal: '>= 0.25x of the raw pty',
        met: screenRatio >= 0.25,
      });
      report.note(`load average at end: ${load()}`);
    } finally {
      ws.remove();
    }
  },
};

export default bench;
