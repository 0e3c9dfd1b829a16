/**
 * Container episodes over engine hosts (`eval --hosts`), on real engines: two podman API services of the
 * test's own (separate sockets and storage) and a dockerd of its own (own data root, no iptables, no
 * bridge), plus a host whose socket answers nothing. One podman host copies the workspace in and out
 * (`--copy-files`); the other two bind it (they see this machine's files). The oracle resolves every task, as on one host, each
 * record names the host that ran it (all three take one), the dead host is left out with the reason, the
 * task image is loaded on the hosts that ran it, and nothing of the lab remains on them after. A container
 * left by a dead owner is swept by `t1lab hosts sweep` while a live owner's stays. Last, a podman service
 * killed under a running episode: the episode runs again on another host. Skipped, with the reason, where
 * podman, dockerd, mmdebstrap or root is missing.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EngineClient } from '../../../native/sandbox/container/api/client';
import { LABEL_OWNER, labLabels } from '../../../native/sandbox/container/api/labels';
import { pidNamespace } from '../../../native/sandbox/container/engine';
import { installId } from '../../../electron/lab/hosts/store';
import { parseJsonOutput, runT1lab } from '../../helpers/cli';
import { podmanServiceSkip, startPodmanService, tinyRootfs, type PodmanService } from '../../helpers/podman-service';
import { makeTempDir } from '../../helpers/tmp';
import { dockerdSkip, startDockerd, type Dockerd } from '../../helpers/dockerd';

const skip = podmanServiceSkip() ?? dockerdSkip();
if (skip) console.warn(`eval over engine hosts skipped: ${skip}`);

/** On this machine's podman (the lab resolves task images there and sends them to the hosts). */
const TINY = 'localhost/t1lab-test-tiny:v1';

function writeTask(dir: string, word: string): void {
  mkdirSync(join(dir, 'solution'), { recursive: true });
  writeFileSync(join(dir, 'instruction.md'), `Write the word ${word} into answer.txt in the current directory.\n`);
  writeFileSync(join(dir, 'solution', 'solve.sh'), `#!/bin/bash\necho ${word} > answer.txt\n`);
  writeFileSync(
    join(dir, 'task.toml'),
    `[metadata]\ncategory = "testing"\ndifficulty = "easy"\n[verifier]\ntimeout_sec = 60\n[[verifier.assertions]]\nname = "answer"\nrun = "grep -qx ${word} answer.txt"\n`,
  );
}

describe.skipIf(skip !== null)('eval over engine hosts (two podman services)', () => {
  let tmp: { path: string; remove(): void };
  const services: PodmanService[] = [];
  let dockerd: Dockerd;
  let home: string;
  const env = () => ({ T1LAB_HOME: home });
  const labObjects = (s: PodmanService) =>
    s
      .cli(['ps', '-a', '--filter', `label=t1lab.install=${installId(home)}`, '--format', '{{.ID}}'])
      .stdout.split('\n')
      .filter(Boolean);

  beforeAll(async () => {
    tmp = makeTempDir('t1lab-hosts-eval-');
    home = join(tmp.path, 'home');
    services.push(await startPodmanService(join(tmp.path, 'a')), await startPodmanService(join(tmp.path, 'b')));
    dockerd = await startDockerd(join(tmp.path, 'd'));
    execFileSync('podman', ['import', '--change', 'CMD ["bash"]', tinyRootfs(), TINY], {
      stdio: 'ignore',
      timeout: 120_000,
    });
    for (const word of ['alpha', 'beta', 'gamma']) writeTask(join(tmp.path, 'suite', `echo-${word}`), word);
    for (const [name, url, ...more] of [
      ['a', services[0]!.url],
      ['b', services[1]!.url, '--copy-files'],
      ['d', dockerd.url],
      ['gone', `unix://${join(tmp.path, 'nothing-here.sock')}`],
    ] as const) {
      const r = await runT1lab(['hosts', 'add', name, url, '--slots', '1', ...more], { env: env() });
      expect(r.code, r.stderr).toBe(0);
    }
  }, 240_000);
  afterAll(async () => {
    for (const s of services) await s.stop();
    await dockerd?.stop();
    spawnSync('podman', ['rmi', '-f', TINY], { stdio: 'ignore' });
    tmp?.remove();
  }, 120_000);

  it('places the container episodes on the live hosts, records each host, and leaves nothing there', async () => {
    const out = join(tmp.path, 'run');
    const args = [
      'eval',
      '--suite',
      join(tmp.path, 'suite'),
      '--policy',
      'oracle',
      '--backend',
      'podman',
      '--base-image',
      `*=${TINY}`,
    ];
    const r = await runT1lab(
      [...args, '--hosts', 'a,b,d,gone', '--concurrency', '3', '--episode-deadline', '180', '--out', out, '--json'],
      { env: env(), timeoutMs: 400_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(parseJsonOutput<{ resolvedRate: number }>(r).resolvedRate).toBe(1);
    expect(r.stderr).toMatch(/host 'gone' is not used: .*unreachable/);
    const records = readFileSync(join(out, 'episodes.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { key: string; resolved: boolean; host?: string });
    // As on one host, task by task: every task resolved; one slot each, so each host ran one.
    expect(Object.fromEntries(records.map((x) => [x.key, x.resolved]))).toEqual({
      'echo-alpha@0': true,
      'echo-beta@0': true,
      'echo-gamma@0': true,
    });
    expect(records.map((x) => x.host).sort()).toEqual(['a', 'b', 'd']);
    const onDockerd = new EngineClient({ name: 'd', url: dockerd.url, slots: 1 });
    expect(await onDockerd.imageId(TINY)).not.toBeNull();
    expect(await onDockerd.labContainers(installId(home))).toEqual([]);
    // The image went to the hosts that ran an episode, and is cached there; no container is left.
    for (const [i, s] of services.entries()) {
      const ran = records.some((x) => x.host === ['a', 'b'][i]);
      expect(s.cli(['image', 'exists', TINY]).status === 0).toBe(ran);
      expect(labObjects(s)).toEqual([]);
    }
  }, 420_000);

  it('sweeps what a dead owner left and keeps what a live one runs (t1lab hosts sweep)', async () => {
    const client = new EngineClient({ name: 'a', url: services[0]!.url, slots: 1 });
    if (!(await client.imageId(TINY)))
      execFileSync(
        'sh',
        [
          '-c',
          `podman save ${TINY} | podman --root ${join(services[0]!.dir, 'root')} --runroot ${join(services[0]!.dir, 'run')} load`,
        ],
        { stdio: 'ignore' },
      );
    const dead = spawnSync('true').pid as number;
    const make = (owner: string) =>
      client.docker.createContainer({
        Image: TINY,
        Cmd: ['sleep', '600'],
        Labels: {
          ...labLabels({ installId: installId(home), runId: 'test' }, 'sandbox', 3600_000),
          [LABEL_OWNER]: owner,
        },
      });
    const orphan = await make(`${dead}@${pidNamespace()}`);
    const live = await make(`${process.pid}@${pidNamespace()}`);
    const r = await runT1lab(['hosts', 'sweep', 'a', '--json'], { env: env() });
    expect(r.code, r.stderr).toBe(0);
    const [result] = parseJsonOutput<Array<{ name: string; removed: { containers: string[] } }>>(r);
    expect(result?.removed.containers).toEqual([orphan.id]);
    expect(labObjects(services[0]!).map((id) => live.id.startsWith(id))).toEqual([true]);
    await live.remove({ force: true });
  }, 120_000);

  it('retries an episode on another host when its host dies under it (the record names the survivor)', async () => {
    const suite = join(tmp.path, 'slow-suite');
    writeTask(join(suite, 'echo-slow'), 'slow');
    writeFileSync(join(suite, 'echo-slow', 'solution', 'solve.sh'), '#!/bin/bash\nsleep 6\necho slow > answer.txt\n');
    const out = join(tmp.path, 'run-fault');
    const args = [
      'eval',
      '--suite',
      suite,
      '--policy',
      'oracle',
      '--backend',
      'podman',
      '--base-image',
      `*=${TINY}`,
      '--hosts',
      'a,b,d',
      '--concurrency',
      '1',
    ];
    const running = runT1lab([...args, '--episode-deadline', '180', '--out', out, '--json'], {
      env: env(),
      timeoutMs: 400_000,
    });
    // Host a has the most free slots first (a tie, in order): once its container runs, its engine is killed.
    const [a] = services;
    const deadline = Date.now() + 120_000;
    while (labObjects(a!).length === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 300));
    expect(labObjects(a!).length).toBeGreaterThan(0);
    a!.child.kill('SIGKILL');
    const r = await running;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/host 'a' failed under an episode/);
    const [record] = readFileSync(join(out, 'episodes.jsonl'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { resolved: boolean; host?: string });
    expect(record?.resolved).toBe(true);
    expect(['b', 'd']).toContain(record?.host);
    expect(labObjects(services[1]!)).toEqual([]);
  }, 420_000);
});
