/** A stopped container's exit status through the Engine API. */
import type Docker from 'dockerode';
import type { ApiEngine } from './client';

/**
 * How often podman's own wait looks at the container (its default is 250 ms). Podman 4's compatible wait
 * looks without pause: one core of the service busy for as long as a container it waits for runs (measured:
 * 4 containers sleeping 4 s cost its service 4.0 s of CPU through it, 0.03 s through this one), and it
 * answered 200-500 ms after a quick command's exit.
 */
export const PODMAN_WAIT_INTERVAL = '50ms';
/** The libpod API version asked for (podman 4 and later answer it). */
const PODMAN_API = 'v4.0.0';

/**
 * The container's exit status once it stopped (on podman: stopped and cleaned up, so that its files can be
 * copied out and it can be committed). Podman's wait can answer -1 when the exit is not recorded yet; the
 * container's state then says it. A connection the engine closes before the answer is an error (the engine
 * was killed meanwhile), never a wait without end.
 */
export async function exitStatus(container: Docker.Container, engine: ApiEngine): Promise<number | null> {
  const code = await waitFor(container, engine);
  if (code >= 0) return code;
  for (let i = 0; i < 20; i++) {
    const state = await container.inspect().then(
      (x) => x.State,
      () => null,
    );
    if (state && !state.Running && state.ExitCode >= 0 && state.Status !== 'running') return state.ExitCode;
    await new Promise((r) => setTimeout(r, 100));
  }
  return null;
}

/**
 * The engine's wait: on podman its own (`/libpod/containers/ID/wait`, condition exited, every
 * PODMAN_WAIT_INTERVAL), on dockerd the compatible one (`/containers/ID/wait`). Its exit code, -1 when it
 * gives none. Read as a stream: the compatible wait sends its headers at once and its body at the exit,
 * and dockerode's own wait never answers when the connection closes between the two; here that is an error
 * that reads as the host's failure ('socket hang up').
 */
export function waitFor(container: Docker.Container, engine: ApiEngine): Promise<number> {
  const podman = engine === 'podman';
  return new Promise((resolve, reject) => {
    container.modem.dial(
      {
        path: podman ? `/${PODMAN_API}/libpod/containers/${container.id}/wait?` : `/containers/${container.id}/wait?`,
        method: 'POST',
        isStream: true,
        statusCodes: { 200: true, 400: 'bad parameter', 404: 'no such container', 500: 'server error' },
        options: podman ? { condition: 'exited', interval: PODMAN_WAIT_INTERVAL } : {},
      },
      (err: unknown, res: unknown) => {
        if (err) return reject(err as Error);
        const body = res as NodeJS.ReadableStream;
        let text = '';
        let done = false;
        const fail = () => {
          if (done) return;
          done = true;
          reject(new Error('socket hang up: the engine closed the connection before the container exited'));
        };
        body.on('data', (chunk: Buffer) => (text += chunk.toString()));
        body.on('end', () => {
          if (done) return;
          done = true;
          resolve(waitAnswer(text));
        });
        body.on('error', fail);
        body.on('close', fail);
      },
    );
  });
}

/** The exit code in a wait's answer: podman's is a bare number, dockerd's `{"StatusCode": N}`; -1 when neither. */
function waitAnswer(text: string): number {
  try {
    const v = JSON.parse(text) as number | { StatusCode?: number };
    const code = typeof v === 'number' ? v : v?.StatusCode;
    return typeof code === 'number' && Number.isInteger(code) ? code : -1;
  } catch {
    return -1;
  }
}
