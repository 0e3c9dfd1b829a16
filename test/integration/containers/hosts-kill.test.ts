/**
 * Nothing leaks after a load test that kills a host and the lab itself (issue 36, item 4), on real engines:
 * two podman API services of the test's own, both set to copy files (so each container also has volumes of
 * the lab's own: the read-only mounts). A `t1lab eval` runs four slow oracle episodes at once over both;
 * once each host runs two of them, host a's service is SIGKILLed, then the lab (SIGKILL: no exit handler,
 * no final sweep). What the lab left runs on: its containers on b (and a's, held by conmon behind the dead
 * service). `t1lab hosts sweep --json` empties b (a unreachable, said so); a's service restarted on its
 * storage root holds the lab's containers still, and a sweep of a empties it. "Empty" is asked through each
 * engine's API: no container or volume at all, no network with the install's label, no committed state image.
 * Skipped, with the reason, where podman, mmdebstrap or root is missing.
 */
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { installId } from '../../../electron/lab/hosts/store';
import { EngineClient } from '../../../native/sandbox/container/api/client';
import { parseJsonOutput, REPO_ROOT, runT1lab } from '../../helpers/cli';
import { podmanServiceSkip, startPodmanService, tinyRootfs, type PodmanService } from '../../helpers/podman-service';
import { makeTempDir } from '../../helpers/tmp';

const skip = podmanServiceSkip();
if (skip) console.warn(`kill -9 of a host and the lab skipped: ${skip}`);

/** On this machine's podman; a tag of this file's own (other engine-host tests import and remove theirs). */
const TINY = 'localhost/t1lab-test-tiny-kill:v1';
const WORDS = ['alpha', 'beta', 'gamma', 'delta'];

function writeTask(dir: string, word: string): void {
  mkdirSync(join(dir, 'solution'), { recursive: true });
  writeFileSync(join(dir, 'instruction.md'), `Write the word ${word} into answer.txt in the current directory.\n`);
  // Far longer than the test waits: every episode is still running when the lab is killed.
  writeFileSync(join(dir, 'solution', 'solve.sh'), `#!/bin/bash\nsleep 120\necho ${word} > answer.txt\n`);
  writeFileSync(
    join(dir, 'task.toml'),
    `[metadata]\ncategory = "testing"\ndifficulty = "easy"\n[verifier]\ntimeout_sec = 60\n[[verifier.assertions]]\nname = "answer"\nrun = "grep -qx ${word} answer.txt"\n`,
  );
}

interface HostSweep {
  name: string;
  removed: { containers: string[]; volumes: string[]; networks: string[]; images: string[] } | null;
  error: string | null;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe.skipIf(skip !== null)('kill -9 of a host and of the lab mid-run (podman API services)', () => {
  let tmp: { path: string; remove(): void };
  const services: PodmanService[] = [];
  let home: string;
  const env = () => ({ T1LAB_HOME: home });

  /**
   * What is on a host, asked through its API (the sweep's own view is not trusted here). Containers and
   * volumes whatever their labels (nothing else uses these services: an unlabelled leak counts too);
   * networks by the install's label (podman always has its default one).
   */
  async function left(s: PodmanService) {
    const { docker } = new EngineClient({ name: 'check', url: s.url, slots: 1 });
    const filters = { label: [`t1lab.install=${installId(home)}`] };
    return {
      containers: (await docker.listContainers({ all: true })).map((c) => c.Id),
      volumes: ((await docker.listVolumes()).Volumes ?? []).map((v) => v.Name),
      networks: (await docker.listNetworks({ filters })).map((n) => n.Name),
      stateImages: (await docker.listImages({ filters: { label: ['t1lab.kind=state'] } })).map((i) => i.Id),
    };
  }
  const nothing = { containers: [], volumes: [], networks: [], stateImages: [] };

  beforeAll(async () => {
    tmp = makeTempDir('t1lab-hosts-kill-');
    home = join(tmp.path, 'home');
    services.push(await startPodmanService(join(tmp.path, 'a')), await startPodmanService(join(tmp.path, 'b')));
    execFileSync('podman', ['import', '--change', 'CMD ["bash"]', tinyRootfs(), TINY], {
      stdio: 'ignore',
      timeout: 120_000,
    });
    for (const word of WORDS) writeTask(join(tmp.path, 'suite', `sleep-${word}`), word);
    for (const [name, s] of [
      ['a', services[0]!],
      ['b', services[1]!],
    ] as const) {
      const r = await runT1lab(['hosts', 'add', name, s.url, '--slots', '2', '--copy-files'], { env: env() });
      expect(r.code, r.stderr).toBe(0);
    }
    installId(home); // made now: the run and the checks below read the same one
  }, 240_000);
  afterAll(async () => {
    for (const s of services) await s.stop();
    spawnSync('podman', ['rmi', '-f', TINY], { stdio: 'ignore' });
    tmp?.remove();
  }, 120_000);

  it('leaves no container, volume or network on either host once swept', async () => {
    const lab = spawn(
      process.execPath,
      [
        ...['--import', 'tsx', join(REPO_ROOT, 'electron/cli/t1lab.ts'), 'eval'],
        ...['--suite', join(tmp.path, 'suite'), '--policy', 'oracle', '--backend', 'podman'],
        ...['--base-image', `*=${TINY}`, '--hosts', 'a,b', '--concurrency', '4'],
        ...['--out', join(tmp.path, 'run')],
      ],
      { cwd: REPO_ROOT, env: { ...process.env, ...env() }, stdio: 'ignore' },
    );
    const exited = new Promise((r) => lab.once('exit', r));
    const [a, b] = services as [PodmanService, PodmanService];
    // Mid-run: both hosts run two episodes each, with their containers and the lab's volumes.
    const busy = async (s: PodmanService) => {
      const l = await left(s);
      return l.containers.length >= 2 && l.volumes.length >= 2;
    };
    const deadline = Date.now() + 120_000;
    while (!((await busy(a)) && (await busy(b))) && Date.now() < deadline && lab.exitCode === null) await sleep(200);
    expect(lab.exitCode, 'the eval ended before both hosts were busy').toBeNull();
    expect(await busy(a)).toBe(true);
    expect(await busy(b)).toBe(true);
    a.child.kill('SIGKILL');
    // The lab sees the host go (its episodes' streams break) before it is killed in turn.
    await sleep(2_000);
    lab.kill('SIGKILL');
    await exited;

    // What the lab left runs on: the sweep is what removes it.
    const onB = await left(b);
    expect(onB.containers.length).toBeGreaterThanOrEqual(2);
    expect(onB.volumes.length).toBeGreaterThanOrEqual(2);
    const swept = await runT1lab(['hosts', 'sweep', '--json'], { env: env() });
    expect(swept.code, 'a is unreachable: the sweep says so with its status').toBe(1);
    const byName = new Map(parseJsonOutput<HostSweep[]>(swept).map((h) => [h.name, h]));
    expect(byName.get('a')).toMatchObject({ removed: null });
    expect(byName.get('b')?.removed?.containers.sort()).toEqual(onB.containers.sort());
    expect(byName.get('b')?.removed?.volumes.sort()).toEqual(onB.volumes.sort());
    expect(await left(b)).toEqual(nothing);

    // Host a comes back on its storage root with what the lab left there; a sweep of it empties it too.
    rmSync(a.socket, { force: true });
    const again = await startPodmanService(a.dir);
    services[0] = again;
    const onA = await left(again);
    expect(onA.containers.length).toBeGreaterThanOrEqual(2);
    expect(onA.volumes.length).toBeGreaterThanOrEqual(2);
    const sweptA = await runT1lab(['hosts', 'sweep', 'a', '--json'], { env: env() });
    expect(sweptA.code, sweptA.stderr).toBe(0);
    expect(parseJsonOutput<HostSweep[]>(sweptA)[0]?.removed?.containers.sort()).toEqual(onA.containers.sort());
    expect(await left(again)).toEqual(nothing);
  }, 240_000);
});
