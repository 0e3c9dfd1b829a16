/** A stopped container's exit status through the Engine API. */
import type Docker from 'dockerode';

/**
 * The container's exit status once it stopped. Podman's wait can answer -1 when the exit is not recorded
 * yet; the container's state then says it.
 */
export async function exitStatus(container: Docker.Container): Promise<number | null> {
  const waited = ((await container.wait()) as { StatusCode?: number }).StatusCode;
  if (typeof waited === 'number' && waited >= 0) return waited;
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
