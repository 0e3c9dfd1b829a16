/**
 * An `ssh://` engine host, for real: an sshd of the test's own (loopback, fresh host key, key-only root
 * login, `SetEnv DOCKER_HOST` pointing at a podman API service of the test's own) and an ssh-agent with a
 * fresh key. With the CLI: the host is added with its own known_hosts file, `hosts check` refuses it while
 * its key is unknown (naming the host, the key's fingerprint, the file and the ssh-keyscan that trusts it),
 * and, once that command has run, reaches podman through ssh. A container episode then runs there (the
 * workspace copied in and out over ssh). A known_hosts naming another key for the host is refused, and
 * without a file of its own a host is checked against ~/.ssh/known_hosts. Skipped, with the reason, where
 * root, sshd, the ssh tools, docker's CLI or podman are missing.
 */
import { execFileSync } from 'node:child_process';
import { copyFileSync, createReadStream, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { defaultLimits } from '../../../native/sandbox/index';
import { ApiContainerBackend } from '../../../native/sandbox/container/api/backend';
import { EngineClient } from '../../../native/sandbox/container/api/client';
import { parseJsonOutput, runT1lab } from '../../helpers/cli';
import { podmanServiceSkip, startPodmanService, tinyRootfs, type PodmanService } from '../../helpers/podman-service';
import { otherHostKey, sshdSkip, startSshd, type Sshd } from '../../helpers/sshd';
import { makeTempDir } from '../../helpers/tmp';

const skip = podmanServiceSkip() ?? sshdSkip();
if (skip) console.warn(`ssh engine host tests skipped: ${skip}`);

const IMAGE = 'localhost/t1lab-test-tiny:v1';

describe.skipIf(skip !== null)('an engine host over ssh (sshd in front of a podman service)', () => {
  let tmp: { path: string; remove(): void };
  let service: PodmanService;
  let sshd: Sshd;
  let url: string;
  let knownHosts: string;
  const env = () => ({ T1LAB_HOME: join(tmp.path, 'home'), SSH_AUTH_SOCK: sshd.agentSocket });

  beforeAll(async () => {
    tmp = makeTempDir('t1lab-hosts-ssh-');
    service = await startPodmanService(join(tmp.path, 'pd'));
    sshd = await startSshd(join(tmp.path, 'sshd'), service.url);
    url = `ssh://root@127.0.0.1:${sshd.port}`;
    knownHosts = join(tmp.path, 'known_hosts');
  }, 120_000);
  afterAll(async () => {
    await sshd?.stop();
    await service?.stop();
    tmp?.remove();
  }, 60_000);

  it('refuses the host while its key is unknown, and reaches podman through ssh once ssh-keyscan has added it', async () => {
    const add = await runT1lab(['hosts', 'add', 'far', url, '--slots', '1', '--known-hosts', knownHosts, '--json'], {
      env: env(),
    });
    expect(add.code, add.stderr).toBe(0);
    expect(parseJsonOutput(add)).toEqual({ name: 'far', url, slots: 1, knownHosts, enabled: true });

    const refused = await runT1lab(['hosts', 'check', '--json'], { env: env() });
    expect(refused.code).toBe(1);
    const [before] = parseJsonOutput<Array<{ reachable: boolean; error: string }>>(refused);
    expect(before?.reachable).toBe(false);
    const keyscan = `ssh-keyscan -p ${sshd.port} 127.0.0.1 >> ${knownHosts}`;
    expect(before?.error).toContain(`ssh host key of [127.0.0.1]:${sshd.port} is not known`);
    expect(before?.error).toContain(`ssh-ed25519 key ${sshd.fingerprint}, which is not in ${knownHosts}`);
    expect(before?.error).toContain(keyscan);

    // The advice, as given, is what trusts the key.
    execFileSync('sh', ['-c', keyscan], { stdio: 'ignore' });
    const check = await runT1lab(['hosts', 'check', '--json'], { env: env() });
    expect(check.code, check.stderr).toBe(0);
    const [after] = parseJsonOutput<Array<Record<string, unknown>>>(check);
    expect(after).toMatchObject({ name: 'far', reachable: true, error: null, engine: 'podman', rootless: false });
    expect(after?.version).toBe(service.cli(['version', '--format', '{{.Server.Version}}']).stdout.trim());
  }, 60_000);

  it('runs a container episode on the host over ssh, the workspace copied in and out', async () => {
    // The image goes in through the service's own socket (set-up, not what is tested).
    await new EngineClient({ name: 'local', url: service.url, slots: 1 }).importImage(
      createReadStream(tinyRootfs()),
      IMAGE,
      ['CMD ["bash"]'],
    );
    const client = withAgent(() => new EngineClient({ name: 'far', url, slots: 1, knownHosts }));
    const backend = new ApiContainerBackend(client, 'podman', { installId: 'feedfeedfeedfeed', runId: 'ssh' });
    const ws = join(tmp.path, 'ws');
    mkdirSync(ws);
    writeFileSync(join(ws, 'task.txt'), 'a task\n');
    const result = await backend.run(
      {
        workspace: ws,
        workdir: '/app',
        net: false,
        limits: defaultLimits({ wallSeconds: 60 }),
        container: { image: IMAGE, bindWorkspace: true },
      },
      ['sh', '-c', 'cat task.txt; grep -c " /app " /proc/mounts; echo done > out.txt'],
    );
    expect({ exitCode: result.exitCode, stdout: result.stdout }).toEqual({ exitCode: 0, stdout: 'a task\n0\n' });
    expect(readFileSync(join(ws, 'out.txt'), 'utf8')).toBe('done\n');
    const left = service.cli(['ps', '-a', '--filter', 'label=t1lab.install=feedfeedfeedfeed', '--format', '{{.ID}}']);
    expect(left.stdout.trim()).toBe('');
  }, 60_000);

  it('refuses a host whose key is not the one known_hosts holds for it, naming both', async () => {
    const wrong = join(tmp.path, 'known_hosts.wrong');
    writeFileSync(wrong, `[127.0.0.1]:${sshd.port} ${otherHostKey(tmp.path)}\n`);
    const client = withAgent(() => new EngineClient({ name: 'mitm', url, slots: 1, knownHosts: wrong }));
    const error = await client.engineInfo().then(
      () => null,
      (e: Error) => e.message,
    );
    expect(error).toContain(`host 'mitm': ssh host key of [127.0.0.1]:${sshd.port} does NOT match ${wrong} (line 1: `);
    expect(error).toContain(`it offered its ssh-ed25519 key ${sshd.fingerprint}`);
  }, 30_000);

  it("checks a host without a file of its own against the user's ~/.ssh/known_hosts", async () => {
    const home = join(tmp.path, 'user');
    const client = () => withAgent(() => new EngineClient({ name: 'mine', url, slots: 1 }), home);
    const unknown = await client()
      .engineInfo()
      .then(
        () => null,
        (e: Error) => e.message,
      );
    expect(unknown).toContain(`not in ${join(home, '.ssh', 'known_hosts')} (no such file)`);
    mkdirSync(join(home, '.ssh'), { recursive: true });
    copyFileSync(knownHosts, join(home, '.ssh', 'known_hosts'));
    expect((await client().engineInfo()).engine).toBe('podman');
  }, 30_000);

  /** Make a client as the lab would with this test's agent (and `home` as HOME), then put the environment back. */
  function withAgent<T>(make: () => T, home?: string): T {
    const saved = { SSH_AUTH_SOCK: process.env.SSH_AUTH_SOCK, HOME: process.env.HOME };
    process.env.SSH_AUTH_SOCK = sshd.agentSocket;
    if (home) process.env.HOME = home;
    try {
      return make();
    } finally {
      for (const [k, v] of Object.entries(saved)) {
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
      }
    }
  }
});
