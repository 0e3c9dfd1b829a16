/**
 * `t1lab train ppo` with `ppo.hosts`, on a real engine: a podman API service of the test's own (host a)
 * and a host whose socket answers nothing (gone). One PPO step of a 2-layer nano checkpoint on a task that
 * needs a container (a local image): its episodes run on host a through the API backend and the host pool
 * that `eval --hosts` uses (each rollout record names the host, the engine's events show the lab's
 * containers of this run, the image was loaded there, nothing is left after), the dead host is left out
 * with the reason, and the step trains on what the episodes gave. Then host a's service is killed (SIGKILL)
 * under a step's container episodes: with no host left they are infrastructure failures (not recorded, not
 * trained on) while the same step's bubblewrap episodes train. Skipped where podman, mmdebstrap or root is
 * missing.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RolloutEpisode } from '../../../electron/lab/ppo/rollout-files';
import { installId } from '../../../electron/lab/hosts/store';
import { EngineClient } from '../../../native/sandbox/container/api/client';
import { parseJsonOutput, runT1lab } from '../../helpers/cli';
import { podmanServiceSkip, startPodmanService, tinyRootfs, type PodmanService } from '../../helpers/podman-service';
import { writeTinyPpoSetup } from '../../helpers/ppo-setup';
import { makeTempDir } from '../../helpers/tmp';

const skip = podmanServiceSkip();
if (skip) console.warn(`PPO over engine hosts skipped: ${skip}`);

/** On this machine's podman; a tag of this file's own (other engine-host tests import and remove theirs). */
const TINY = 'localhost/t1lab-test-tiny-ppo:v1';

/** A task that writes hello into answer.txt: in a container of TINY when `image`, else in bubblewrap; `verify` runs before the check. */
function writeTask(dir: string, o: { image: boolean; verify?: string }): void {
  mkdirSync(join(dir, 'solution'), { recursive: true });
  writeFileSync(join(dir, 'instruction.md'), 'Write the word hello into answer.txt in the current directory.\n');
  writeFileSync(join(dir, 'solution', 'solve.sh'), '#!/bin/bash\necho hello > answer.txt\n');
  const environment = o.image ? `[environment]\ndocker_image = "${TINY}"\n` : '';
  writeFileSync(
    join(dir, 'task.toml'),
    `[metadata]\ncategory = "testing"\ndifficulty = "easy"\n${environment}[verifier]\ntimeout_sec = 60\n[[verifier.assertions]]\nname = "answer"\nrun = "${o.verify ?? ''}grep -qx hello answer.txt"\n`,
  );
}

const readEpisodes = (runDir: string) =>
  readFileSync(join(runDir, 'rollouts', 'step-0000001', 'episodes.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as RolloutEpisode);

describe.skipIf(skip !== null)('train ppo with ppo.hosts (a podman API service)', () => {
  let tmp: { path: string; remove(): void };
  let service: PodmanService;
  let home: string;
  let config: string;
  let checkpoint: string;
  const env = () => ({ T1LAB_HOME: home });

  beforeAll(async () => {
    tmp = makeTempDir('t1lab-hosts-ppo-');
    home = join(tmp.path, 'home');
    service = await startPodmanService(join(tmp.path, 'a'));
    execFileSync('podman', ['import', '--change', 'CMD ["bash"]', tinyRootfs(), TINY], {
      stdio: 'ignore',
      timeout: 120_000,
    });
    writeTask(join(tmp.path, 'suite', 'echo-word'), { image: true });
    for (const [name, url] of [
      ['a', service.url],
      ['gone', `unix://${join(tmp.path, 'nothing-here.sock')}`],
    ] as const) {
      const r = await runT1lab(['hosts', 'add', name, url, '--slots', '2'], { env: env() });
      expect(r.code, r.stderr).toBe(0);
    }
    installId(home); // made now: the runs and the checks below read the same one
    ({ config, checkpoint } = await writeTinyPpoSetup(tmp.path, {
      env: env(),
      suite: join(tmp.path, 'suite'),
      seed: 5,
      steps: 1,
      ppo: {
        tasks_per_step: 1,
        group_size: 2,
        concurrency: 2,
        max_turns: 1,
        max_tokens: 8,
        epochs: 1,
        minibatches: 1,
        async: false,
        episode_deadline_sec: 180,
        hosts: ['a', 'gone'],
      },
    }));
  }, 300_000);
  afterAll(async () => {
    await service?.stop();
    spawnSync('podman', ['rmi', '-f', TINY], { stdio: 'ignore' });
    tmp?.remove();
  }, 120_000);

  it("runs the step's container episodes on the host and trains on them", async () => {
    const runDir = join(tmp.path, 'run');
    const since = new Date().toISOString();
    const r = await runT1lab(['train', 'ppo', '--config', config, '--out', runDir, '--json'], {
      env: env(),
      timeoutMs: 600_000,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(parseJsonOutput<{ steps: number; episodes: number }>(r)).toMatchObject({ steps: 1, episodes: 2 });
    expect(r.stderr).toMatch(/host 'gone' is not used: .*unreachable/);
    expect(r.stderr).toMatch(/container episodes run on host a\b/);
    const episodes = readEpisodes(runDir);
    expect(episodes).toHaveLength(2);
    for (const e of episodes) expect(e).toMatchObject({ taskId: 'echo-word', host: 'a', aborted: false });
    expect(episodes.every((e) => e.stopReason !== 'sandbox_error' && e.reward !== null)).toBe(true);
    // The engine saw this run's containers (labelled with the run's id) come and go; none is left.
    const runId = (JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')) as { id: string }).id;
    const events = service.cli([
      'events',
      '--stream=false',
      '--since',
      since,
      '--filter',
      'event=create',
      '--filter',
      `label=t1lab.run=${runId}`,
      '--format',
      '{{.ID}}',
    ]);
    expect(events.status, events.stderr).toBe(0);
    expect(events.stdout.split('\n').filter(Boolean).length).toBeGreaterThanOrEqual(2);
    expect(service.cli(['image', 'exists', TINY]).status).toBe(0);
    expect(
      service
        .cli(['ps', '-a', '--filter', `label=t1lab.install=${installId(home)}`, '--format', '{{.ID}}'])
        .stdout.trim(),
    ).toBe('');
  }, 660_000);

  it("makes a dead host's episodes infrastructure failures: not recorded, not trained on; the step trains on the rest", async () => {
    const suite = join(tmp.path, 'suite-fault');
    // The container task's verifier waits, so that the host dies under its episodes.
    writeTask(join(suite, 'echo-slow'), { image: true, verify: 'sleep 20; ' });
    writeTask(join(suite, 'echo-local'), { image: false });
    const fault = await writeTinyPpoSetup(tmp.path, {
      env: env(),
      checkpoint,
      configName: 'ppo-fault.toml',
      suite,
      seed: 7,
      steps: 1,
      ppo: {
        tasks_per_step: 2,
        group_size: 2,
        concurrency: 4,
        max_turns: 1,
        max_tokens: 8,
        epochs: 1,
        minibatches: 1,
        async: false,
        episode_deadline_sec: 150,
        hosts: ['a'],
      },
    });
    const runDir = join(tmp.path, 'run-fault');
    const training = runT1lab(['train', 'ppo', '--config', fault.config, '--out', runDir, '--json'], {
      env: env(),
      timeoutMs: 600_000,
    });
    // Once the container task's episodes have containers on a (asked through a's API), a's engine is killed.
    const onA = new EngineClient({ name: 'a', url: service.url, slots: 2 });
    const running = async () => (await onA.labContainers(installId(home)).catch(() => [])).length;
    const deadline = Date.now() + 300_000;
    while (
      !existsSync(join(runDir, 'rollouts', 'step-0000001', 'episodes', 'echo-slow-s1-a0')) &&
      Date.now() < deadline
    )
      await new Promise((r) => setTimeout(r, 200));
    while ((await running()) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200));
    expect(await running()).toBeGreaterThan(0);
    service.child.kill('SIGKILL');
    const r = await training;
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/host 'a' (failed|went down) under an episode/);
    // Given up when the host went down, not at the episode's deadline (150 s).
    expect(r.stderr).not.toMatch(/did not end \d+ s after it started/);
    expect(r.stderr).toMatch(/episode echo-slow-s1-a0 not used: infrastructure: no engine host could run it/);
    expect(r.stderr).toMatch(/episode echo-slow-s1-a1 not used: infrastructure: no engine host could run it/);
    // The step trained on the bubblewrap task's episodes only; the lost ones left no record (a resume of a killed step runs them again).
    expect(parseJsonOutput<{ steps: number; episodes: number }>(r)).toMatchObject({ steps: 1, episodes: 2 });
    const episodes = readEpisodes(runDir);
    expect(episodes.map((e) => e.key).sort()).toEqual(['echo-local-s1-a0', 'echo-local-s1-a1']);
    expect(episodes.every((e) => e.host === undefined && e.stopReason !== 'sandbox_error')).toBe(true);
  }, 660_000);
});
