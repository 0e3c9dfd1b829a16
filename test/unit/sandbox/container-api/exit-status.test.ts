import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Docker from 'dockerode';
import { afterEach, describe, expect, it } from 'vitest';
import { isHostFailure } from '../../../../native/sandbox/container/api/backend';
import { exitStatus, waitFor } from '../../../../native/sandbox/container/api/exit-status';

/** An engine on a unix socket whose answers the test writes (the transport is real; the engine is not). */
async function fakeEngine(answer: (path: string, res: ServerResponse) => void) {
  const dir = mkdtempSync(join(tmpdir(), 't1lab-exit-'));
  const socket = join(dir, 'engine.sock');
  const asked: string[] = [];
  const server = createServer((req, res) => {
    const path = (req.url ?? '').split('?')[0] as string;
    asked.push(`${req.method} ${req.url}`);
    answer(path, res);
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  const docker = new Docker({ socketPath: socket });
  return {
    asked,
    docker,
    container: docker.getContainer('c1'),
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const json = (res: ServerResponse, body: unknown) =>
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

describe("a container's exit status through the Engine API", () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const e of open.splice(0)) await e.close();
  });

  it('fails, as a host failure, when the engine closes the wait between its headers and its body (killed meanwhile)', async () => {
    // dockerd and podman's compatible wait send the headers at once and the body at the exit; dockerode's own wait never answers here.
    const engine = await fakeEngine((_path, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.flushHeaders();
      setTimeout(() => res.socket?.destroy(), 50);
    });
    open.push(engine);
    for (const kind of ['docker', 'podman'] as const) {
      const failed = await waitFor(engine.container, kind).then(
        () => null,
        (e: Error) => e,
      );
      expect(failed?.message).toMatch(/^socket hang up/);
      expect(isHostFailure(failed)).toBe(true);
    }
  });

  it("asks podman's own wait (exited, every 50 ms; its compatible one keeps a core busy), dockerd's compatible one", async () => {
    const engine = await fakeEngine((path, res) => {
      if (path.includes('/libpod/')) res.writeHead(200).end(path.includes('c1') ? '3\n' : '-1\n');
      else if (path.endsWith('/wait')) json(res, { StatusCode: 7 });
      else json(res, { State: { Status: 'exited', Running: false, ExitCode: 9 } });
    });
    open.push(engine);
    expect(await exitStatus(engine.container, 'podman')).toBe(3);
    expect(engine.asked.at(-1)).toBe('POST /v4.0.0/libpod/containers/c1/wait?condition=exited&interval=50ms');
    expect(await exitStatus(engine.container, 'docker')).toBe(7);
    expect(engine.asked.at(-1)).toBe('POST /containers/c1/wait');
    // -1 (the exit not recorded yet): the state says it.
    expect(await exitStatus(engine.docker.getContainer('c2'), 'podman')).toBe(9);
  });
});
