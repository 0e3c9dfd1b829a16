/** Timings the sandbox, container and engine-host benches share: a call's wall time, and a shell's time to its first prompt. */
import { createShellSession } from '../../native/pty/index';
import type { SandboxBackend, SandboxSpec } from '../../native/sandbox/index';

export async function timed(fn: () => Promise<unknown>): Promise<number> {
  const started = performance.now();
  await fn();
  return performance.now() - started;
}

/** Milliseconds from opening a shell session (120 × 40) to its first prompt; the session is closed after. */
export async function timeToPrompt(backend: SandboxBackend, spec: SandboxSpec): Promise<number> {
  const started = performance.now();
  const s = await createShellSession({ backend, spec, cols: 120, rows: 40 });
  await s.ready();
  const ms = performance.now() - started;
  await s.close();
  return ms;
}
