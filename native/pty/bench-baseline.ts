/**
 * FOR BENCHMARKS ONLY: a "backend" that runs the shell directly on the host with node-pty, without any
 * sandbox, so that benchmarks can compare a sandboxed session with a bare node-pty bash measured the same
 * way in the same run. It ignores limits and isolation entirely; nothing in the app may use it.
 */
import * as pty from 'node-pty';
import { baseEnv } from '../sandbox/bwrap-args';
import type { BackendStatus, LimitName, PtyProcess, RunResult, SandboxBackend, SandboxSpec } from '../sandbox/types';

export class UnsandboxedBenchBackend implements SandboxBackend {
  readonly name = 'bubblewrap' as const;

  async status(): Promise<BackendStatus> {
    return { name: 'unsandboxed (benchmarks only)', available: true, version: null, hint: null };
  }

  run(): Promise<RunResult> {
    return Promise.reject(new Error('UnsandboxedBenchBackend only spawns ptys'));
  }

  async spawnPty(spec: SandboxSpec, argv: string[], size: { cols: number; rows: number }): Promise<PtyProcess> {
    // Files the session mounts into the sandbox are read from their host paths instead.
    const mapped = argv.map((a) => spec.mounts?.find((m) => m.sandbox === a)?.host ?? a);
    const env = { ...baseEnv('pty'), HOME: spec.workspace, ...spec.env };
    const term = pty.spawn(mapped[0] as string, mapped.slice(1), {
      name: 'xterm-256color',
      cols: size.cols,
      rows: size.rows,
      cwd: spec.workspace,
      env,
    });
    return {
      get pid() {
        return term.pid;
      },
      write: (d) => term.write(d),
      resize: (c, r) => term.resize(c, r),
      onData: (l) => term.onData(l),
      onExit: (l: (e: { exitCode: number; signal: number | null; limit: LimitName | null }) => void) =>
        term.onExit((e) => l({ exitCode: e.exitCode, signal: e.signal ?? null, limit: null })),
      pause: () => term.pause(),
      resume: () => term.resume(),
      kill: () => term.kill('SIGKILL'),
    };
  }
}
