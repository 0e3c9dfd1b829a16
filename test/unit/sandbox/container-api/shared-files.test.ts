import { chownSync, readFileSync, writeFileSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { EngineClient, type HostConfig } from '../../../../native/sandbox/container/api/client';
import { sharesFiles } from '../../../../native/sandbox/container/api/shared-files';

const labels = { installId: 'feedfeedfeedfeed', runId: 'r' };

function body(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    let text = '';
    req.on('data', (c: Buffer) => (text += c.toString()));
    req.on('end', () => resolve(text));
  });
}

/**
 * An engine on a unix socket whose containers the test plays: `sees` says whether the container's bind shows
 * this machine's folder (it then does what the probe's script does), `create` may answer the create instead.
 */
async function fakeEngine(sees: boolean | 'as-another-user', create?: (res: ServerResponse) => void) {
  const dir = mkdtempSync(join(tmpdir(), 't1lab-share-test-'));
  const socket = join(dir, 'engine.sock');
  const asked: string[] = [];
  let binds: string[] = [];
  let user = '';
  const server = createServer(async (req, res) => {
    const path = (req.url ?? '').split('?')[0] as string;
    asked.push(`${req.method} ${path}`);
    const text = await body(req);
    const json = (code: number, value: unknown) =>
      res.writeHead(code, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    if (path === '/containers/create') {
      if (create) return create(res);
      const options = JSON.parse(text) as { HostConfig: { Binds: string[] }; User: string };
      binds = options.HostConfig.Binds;
      user = options.User;
      return json(201, { Id: 'probe1' });
    }
    if (path.endsWith('/start')) {
      const [host] = (binds[0] ?? '').split(':');
      if (sees && host) writeFileSync(join(host, 'out'), readFileSync(join(host, 'in')));
      if (sees === 'as-another-user' && host) chownSync(join(host, 'out'), 4242, 4242);
      return res.writeHead(204).end();
    }
    if (path.endsWith('/wait')) return json(200, { StatusCode: 0 });
    if (req.method === 'DELETE') return res.writeHead(204).end();
    return json(404, { message: 'no such thing' });
  });
  await new Promise<void>((resolve) => server.listen(socket, resolve));
  return {
    asked,
    binds: () => binds,
    user: () => user,
    url: `unix://${socket}`,
    close: async () => {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const client = (url: string, more: Partial<HostConfig> = {}) => new EngineClient({ name: 'h', url, slots: 1, ...more });
const probes = () => readdirSync(tmpdir()).filter((f) => f.startsWith(`t1lab-share-${process.pid}-`));

describe("whether an engine host sees this machine's files", () => {
  const open: Array<{ close(): Promise<void> }> = [];
  afterEach(async () => {
    for (const e of open.splice(0)) await e.close();
  });

  it('asks once per host, through a container binding a fresh folder as root, and removes both after', async () => {
    const engine = await fakeEngine(true);
    open.push(engine);
    const c = client(engine.url);
    const answers = await Promise.all([1, 2, 3].map(() => sharesFiles(c, 'docker', 'img:1', labels)));
    expect(answers).toEqual([true, true, true]);
    expect(await sharesFiles(c, 'docker', 'img:1', labels)).toBe(true);
    expect(engine.asked.filter((a) => a === 'POST /containers/create')).toHaveLength(1);
    expect(engine.asked).toContain('DELETE /containers/probe1');
    expect(engine.binds()).toEqual([expect.stringMatching(/^\/.*t1lab-share-\d+-\w+:\/t1lab-probe:rw$/)]);
    expect(engine.user()).toBe('0:0');
    expect(probes()).toEqual([]);
  });

  it('answers no where the container does not see the folder (an engine in a VM behind the socket)', async () => {
    const engine = await fakeEngine(false);
    open.push(engine);
    const c = client(engine.url);
    expect(await sharesFiles(c, 'docker', 'img:1', labels)).toBe(false);
    expect(await sharesFiles(c, 'docker', 'img:1', labels)).toBe(false);
    expect(engine.asked.filter((a) => a === 'POST /containers/create')).toHaveLength(1);
    expect(probes()).toEqual([]);
  });

  it.skipIf(process.getuid?.() !== 0)(
    "answers no where the container's root writes as another user here (a rootful engine, a lab that is not root)",
    async () => {
      const engine = await fakeEngine('as-another-user');
      open.push(engine);
      expect(await sharesFiles(client(engine.url), 'docker', 'img:1', labels)).toBe(false);
      expect(probes()).toEqual([]);
    },
  );

  it('keeps a refused bind as no, but asks again after no answer or a missing image', async () => {
    const refused = await fakeEngine(true, (res) =>
      res.writeHead(500).end('{"message":"statfs /tmp/x: no such file"}'),
    );
    open.push(refused);
    const r = client(refused.url);
    expect(await sharesFiles(r, 'docker', 'img:1', labels)).toBe(false);
    expect(await sharesFiles(r, 'docker', 'img:1', labels)).toBe(false);
    expect(refused.asked).toHaveLength(1);
    const noImage = await fakeEngine(true, (res) => res.writeHead(404).end('{"message":"no such image"}'));
    open.push(noImage);
    const n = client(noImage.url);
    expect(await sharesFiles(n, 'docker', 'img:1', labels)).toBe(false);
    expect(await sharesFiles(n, 'docker', 'img:1', labels)).toBe(false);
    expect(noImage.asked).toHaveLength(2);
    const gone = client(`unix://${join(tmpdir(), `t1lab-no-engine-${process.pid}.sock`)}`);
    expect(await sharesFiles(gone, 'docker', 'img:1', labels)).toBe(false);
    expect(probes()).toEqual([]);
  });

  it('never asks a host set to copy, or one reached over tcp or ssh', async () => {
    const engine = await fakeEngine(true);
    open.push(engine);
    expect(await sharesFiles(client(engine.url, { files: 'copy' }), 'docker', 'img:1', labels)).toBe(false);
    expect(await sharesFiles(client('tcp://127.0.0.1:1'), 'docker', 'img:1', labels)).toBe(false);
    expect(await sharesFiles(client('ssh://someone@far'), 'docker', 'img:1', labels)).toBe(false);
    expect(engine.asked).toEqual([]);
  });
});
