/**
 * Engine hosts through the Docker Engine API, on a real engine: a podman API service of the test's own
 * (own socket, own storage), added, listed and checked with the CLI; an image import that podman would name
 * `:latest` lands under the tag asked; the workspace and mounts bound where the service sees this machine's
 * files and copied where the host is set to copy, with the same outcome and the same state between phases;
 * and the same service behind a TLS proxy that wants a client certificate, reached with `--tls-dir`.
 * Skipped, with the reason, where podman or root is missing.
 */
import { execFileSync } from 'node:child_process';
import { createReadStream, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { connect as netConnect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createServer as createTlsServer, type Server } from 'node:tls';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createShellSession } from '../../../native/pty/index';
import { defaultLimits, type SandboxSpec } from '../../../native/sandbox/index';
import { ApiContainerBackend } from '../../../native/sandbox/container/api/backend';
import { EngineClient, type HostFiles } from '../../../native/sandbox/container/api/client';
import { sharesFiles } from '../../../native/sandbox/container/api/shared-files';
import { createClient } from '../../../electron/ipc/common/client';
import type { LabContract } from '../../../electron/ipc/common/contract';
import { createMemoryPair } from '../../../electron/ipc/common/memory';
import { createLabHost } from '../../../electron/lab/host';
import { forkLauncher } from '../../../electron/processes/launcher';
import { parseJsonOutput, runT1lab } from '../../helpers/cli';
import { podmanServiceSkip, startPodmanService, tinyRootfs, type PodmanService } from '../../helpers/podman-service';
import { makeTempDir } from '../../helpers/tmp';

const skip = podmanServiceSkip();
if (skip) console.warn(`engine host tests skipped: ${skip}`);

/** A CA, a server certificate for 127.0.0.1 and a client certificate, as `docker --tlsverify` wants them. */
function makeCerts(dir: string): void {
  const sh = (script: string) => execFileSync('sh', ['-c', script], { cwd: dir, stdio: 'ignore' });
  sh('openssl req -x509 -newkey rsa:2048 -nodes -keyout ca-key.pem -out ca.pem -days 2 -subj /CN=t1lab-test-ca');
  sh('openssl req -newkey rsa:2048 -nodes -keyout server-key.pem -out server.csr -subj /CN=127.0.0.1');
  sh(
    'printf "subjectAltName=IP:127.0.0.1\\n" > san.ext && openssl x509 -req -in server.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -out server-cert.pem -days 2 -extfile san.ext',
  );
  sh('openssl req -newkey rsa:2048 -nodes -keyout key.pem -out client.csr -subj /CN=t1lab-client');
  sh(
    'printf "extendedKeyUsage=clientAuth\\n" > client.ext && openssl x509 -req -in client.csr -CA ca.pem -CAkey ca-key.pem -CAcreateserial -out cert.pem -days 2 -extfile client.ext',
  );
}

describe.skipIf(skip !== null)('engine hosts through the API (podman service)', () => {
  let tmp: { path: string; remove(): void };
  let service: PodmanService;
  let proxy: Server;
  const env = () => ({ T1LAB_HOME: join(tmp.path, 'home') });

  beforeAll(async () => {
    tmp = makeTempDir('t1lab-hosts-');
    service = await startPodmanService(join(tmp.path, 'pd'));
  }, 120_000);
  afterAll(async () => {
    proxy?.close();
    await service?.stop();
    tmp?.remove();
  }, 120_000);

  it('adds, lists and checks a host with the CLI; a bad URL is a usage error naming it', async () => {
    const add = await runT1lab(['hosts', 'add', 'pd', service.url, '--slots', '3', '--json'], { env: env() });
    expect(add.code, add.stderr).toBe(0);
    expect(parseJsonOutput(add)).toEqual({ name: 'pd', url: service.url, slots: 3, enabled: true });
    const bad = await runT1lab(['hosts', 'add', 'far', 'tcp://192.0.2.7:2375'], { env: env() });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/URL 'tcp:\/\/192\.0\.2\.7:2375': plain tcp:\/\/ .* refused/);
    const list = parseJsonOutput<Array<{ name: string }>>(await runT1lab(['hosts', 'list', '--json'], { env: env() }));
    expect(list.map((h) => h.name)).toEqual(['pd']);
    const check = await runT1lab(['hosts', 'check', '--json'], { env: env() });
    expect(check.code, check.stderr).toBe(0);
    const [report] = parseJsonOutput<Array<Record<string, unknown>>>(check);
    expect(report).toMatchObject({
      name: 'pd',
      reachable: true,
      engine: 'podman',
      rootless: false,
      slots: 3,
      labContainers: { running: 0, total: 0 },
      taskImages: [],
    });
    expect(report?.cores).toBeGreaterThan(0);
    expect(report?.memoryBytes).toBeGreaterThan(0);
  }, 120_000);

  it('imports a root file system under the tag asked (podman alone would name it :latest)', async () => {
    const client = new EngineClient({ name: 'pd', url: service.url, slots: 1 });
    const id = await client.importImage(createReadStream(tinyRootfs()), 'localhost/t1lab-test-tiny:v1', [
      'CMD ["bash"]',
    ]);
    expect(await client.imageId('localhost/t1lab-test-tiny:v1')).toBe(id);
    const names = service.cli(['images', '--format', '{{.Repository}}:{{.Tag}}']).stdout.split('\n').filter(Boolean);
    expect(names).toEqual(['localhost/t1lab-test-tiny:v1']);
  }, 180_000);

  it("binds the workspace and mounts where the engine sees this machine's files, copies them where told; the same state between phases", async () => {
    const image = 'localhost/t1lab-test-tiny:v1'; // imported by the test before
    const ctx = { installId: 'feedfeedfeedfeed', runId: 'files' };
    const episode = async (files: HostFiles) => {
      const client = new EngineClient({ name: `pd-${files}`, url: service.url, slots: 1, files });
      const backend = new ApiContainerBackend(client, 'podman', ctx);
      const ws = join(tmp.path, `ws-${files}`);
      const tests = join(tmp.path, `tests-${files}`);
      mkdirSync(ws);
      mkdirSync(tests);
      writeFileSync(join(ws, 'task.txt'), 'a task\n');
      writeFileSync(join(tests, 't.txt'), 'from tests\n');
      const state = `localhost/t1lab-state:files-${files}`;
      const phase = (from: string, commit: boolean): SandboxSpec => ({
        workspace: ws,
        workdir: '/app',
        net: false,
        limits: defaultLimits({ wallSeconds: 60 }),
        container: { image: from, bindWorkspace: true, ...(commit ? { commitTo: state } : {}) },
      });
      // A phase that reads a mount, writes and deletes in the workspace, and keeps state outside it.
      const first = await backend.run(
        { ...phase(image, true), mounts: [{ host: tests, sandbox: '/tests', readOnly: true }] },
        [
          'sh',
          '-c',
          'grep -c " /app " /proc/mounts; cat /tests/t.txt > seen.txt; rm task.txt; mkdir -p /root/keep; echo run > /root/keep/s.txt',
        ],
      );
      // A shell from that state (its rc file copied in, and gone before the prompt), committed in turn.
      const session = await createShellSession({ backend, spec: phase(state, true) });
      await session.ready();
      const shell = await session.run(
        'echo shell >> /root/keep/s.txt; echo here > from-shell.txt; ls /run/t1lab 2>&1 | grep -c "No such"',
        { timeoutMs: 30_000 },
      );
      await session.close();
      await backend.settled(state);
      // The last phase sees what both left: in the workspace and outside it; nothing of the read-only mount
      // (a copy of it committed with the state would show an agent the solution, or /environment).
      const last = await backend.run(phase(state, false), [
        'sh',
        '-c',
        'cat /root/keep/s.txt; ls -A /app; ls -A /run/t1lab 2>/dev/null | wc -l; ls -A /tests 2>/dev/null | wc -l',
      ]);
      // The state declares no volume (a VOLUME would give every later phase an empty one there).
      const declared = (await client.docker.getImage(state).inspect()).Config.Volumes ?? null;
      await backend.removeImage(state);
      return {
        declared,
        shares: await sharesFiles(client, 'podman', image, ctx),
        bound: first.stdout.split('\n')[0],
        first: { exitCode: first.exitCode, rest: first.stdout.split('\n').slice(1).join('\n') },
        shell: { exitCode: shell.exitCode, output: shell.output },
        last: { exitCode: last.exitCode, stdout: last.stdout },
        here: readdirSync(ws).sort(),
        seen: readFileSync(join(ws, 'seen.txt'), 'utf8'),
      };
    };
    const bound = await episode('auto');
    const copied = await episode('copy');
    expect(bound).toMatchObject({ shares: true, bound: '1' });
    expect(copied).toMatchObject({ shares: false, bound: '0' });
    const { shares: _a, bound: _b, ...outcome } = bound;
    expect(outcome).toEqual({
      declared: null,
      first: { exitCode: 0, rest: '' },
      shell: { exitCode: 0, output: '1\n' },
      last: { exitCode: 0, stdout: 'run\nshell\nfrom-shell.txt\nseen.txt\n0\n0\n' },
      here: ['from-shell.txt', 'seen.txt'],
      seen: 'from tests\n',
    });
    const { shares: _c, bound: _d, ...copiedOutcome } = copied;
    expect(copiedOutcome).toEqual(outcome);
    const left = service.cli(['ps', '-a', '--filter', 'label=t1lab.install=feedfeedfeedfeed', '--format', '{{.ID}}']);
    expect(left.stdout.trim()).toBe('');
    expect(service.cli(['volume', 'ls', '--format', '{{.Name}}']).stdout.trim()).toBe('');
    expect(service.cli(['images', '--format', '{{.Repository}}:{{.Tag}}']).stdout.trim()).toBe(image);
  }, 180_000);

  it('reaches the engine over tcp:// with TLS client certificates (--tls-dir)', async () => {
    const certs = join(tmp.path, 'certs');
    mkdirSync(certs);
    makeCerts(certs);
    const read = (f: string) => readFileSync(join(certs, f));
    proxy = createTlsServer(
      {
        key: read('server-key.pem'),
        cert: read('server-cert.pem'),
        ca: read('ca.pem'),
        requestCert: true,
        rejectUnauthorized: true,
      },
      (socket) => {
        const upstream = netConnect(service.socket);
        socket.pipe(upstream).pipe(socket);
        socket.on('error', () => upstream.destroy());
        upstream.on('error', () => socket.destroy());
      },
    );
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const port = (proxy.address() as AddressInfo).port;
    const add = await runT1lab(['hosts', 'add', 'tls', `tcp://127.0.0.1:${port}`, '--tls-dir', certs], { env: env() });
    expect(add.code, add.stderr).toBe(0);
    const check = await runT1lab(['hosts', 'check', 'tls', '--json'], { env: env() });
    expect(check.code, check.stderr).toBe(0);
    expect(parseJsonOutput<Array<Record<string, unknown>>>(check)[0]).toMatchObject({
      name: 'tls',
      reachable: true,
      engine: 'podman',
      taskImages: [],
    });
    // Without the client certificate the proxy refuses: the host is reported unreachable (exit 1), with why.
    const plain = await runT1lab(['hosts', 'add', 'plain', `tcp://127.0.0.1:${port}`], { env: env() });
    expect(plain.code).toBe(0);
    const down = await runT1lab(['hosts', 'check', 'plain'], { env: env() });
    expect(down.code).toBe(1);
    expect(down.stdout).toMatch(/plain {2}tcp:\/\/127\.0\.0\.1:\d+\n {2}unreachable at/);
  }, 120_000);

  it('shows the same on the System page (system.hosts over the contract)', async () => {
    const host = createLabHost({ dataDir: env().T1LAB_HOME, launcher: forkLauncher, log: () => {} });
    const pair = createMemoryPair('hosts-test');
    host.attach(pair.server);
    const client = createClient<LabContract>(pair.client);
    try {
      const reports = await client.call('system.hosts', {});
      expect(Object.fromEntries(reports.map((r) => [r.name, r.reachable]))).toEqual({
        pd: true,
        tls: true,
        plain: false,
      });
      expect(reports.find((r) => r.name === 'pd')).toMatchObject({
        engine: 'podman',
        slots: 3,
        labContainers: { running: 0, total: 0 },
      });
    } finally {
      client.close();
      await host.dispose();
    }
  }, 60_000);
});
