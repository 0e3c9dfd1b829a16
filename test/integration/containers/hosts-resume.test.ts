/**
 * `t1lab eval --resume` runs again what infrastructure errors ended, on real engines: two podman API
 * services of the test's own. The first run has host a only, and a's service is killed (SIGKILL) once one
 * episode has finished there and the next one's container runs: that episode and the one not yet started
 * are infrastructure errors (no host left), the run says it is incomplete. The resume with host b runs those
 * two there and keeps the finished one as it was: every task resolved, none lost, none run twice, and the
 * summary says two were re-run. Skipped, with the reason, where podman, mmdebstrap or root is missing.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { EpisodeRecord, EvalSummary } from '../../../electron/domain/runs';
import { installId } from '../../../electron/lab/hosts/store';
import { EngineClient } from '../../../native/sandbox/container/api/client';
import { parseJsonOutput, runT1lab } from '../../helpers/cli';
import { podmanServiceSkip, startPodmanService, tinyRootfs, type PodmanService } from '../../helpers/podman-service';
import { makeTempDir } from '../../helpers/tmp';

const skip = podmanServiceSkip();
if (skip) console.warn(`eval --resume over engine hosts skipped: ${skip}`);

/** On this machine's podman; a tag of this file's own (other engine-host tests import and remove theirs). */
const TINY = 'localhost/t1lab-test-tiny-resume:v1';
const WORDS = ['alpha', 'beta', 'gamma'];

function writeTask(dir: string, word: string): void {
  mkdirSync(join(dir, 'solution'), { recursive: true });
  writeFileSync(join(dir, 'instruction.md'), `Write the word ${word} into answer.txt in the current directory.\n`);
  // Slow enough that the host can be killed while an episode runs.
  writeFileSync(join(dir, 'solution', 'solve.sh'), `#!/bin/bash\nsleep 8\necho ${word} > answer.txt\n`);
  writeFileSync(
    join(dir, 'task.toml'),
    `[metadata]\ncategory = "testing"\ndifficulty = "easy"\n[verifier]\ntimeout_sec = 60\n[[verifier.assertions]]\nname = "answer"\nrun = "grep -qx ${word} answer.txt"\n`,
  );
}

const readRecords = (path: string) =>
  readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as EpisodeRecord);

describe.skipIf(skip !== null)('eval --resume after a host died (podman API services)', () => {
  let tmp: { path: string; remove(): void };
  const services: PodmanService[] = [];
  let home: string;
  const env = () => ({ T1LAB_HOME: home });
  const labContainers = (s: PodmanService) =>
    s
      .cli(['ps', '-a', '--filter', `label=t1lab.install=${installId(home)}`, '--format', '{{.ID}}'])
      .stdout.split('\n')
      .filter(Boolean);

  beforeAll(async () => {
    tmp = makeTempDir('t1lab-hosts-resume-');
    home = join(tmp.path, 'home');
    services.push(await startPodmanService(join(tmp.path, 'a')), await startPodmanService(join(tmp.path, 'b')));
    execFileSync('podman', ['import', '--change', 'CMD ["bash"]', tinyRootfs(), TINY], {
      stdio: 'ignore',
      timeout: 120_000,
    });
    for (const word of WORDS) writeTask(join(tmp.path, 'suite', `echo-${word}`), word);
    for (const [name, s] of [
      ['a', services[0]!],
      ['b', services[1]!],
    ] as const) {
      const r = await runT1lab(['hosts', 'add', name, s.url, '--slots', '1'], { env: env() });
      expect(r.code, r.stderr).toBe(0);
    }
    installId(home); // made now: the runs and the checks below read the same one
  }, 240_000);
  afterAll(async () => {
    for (const s of services) await s.stop();
    spawnSync('podman', ['rmi', '-f', TINY], { stdio: 'ignore' });
    tmp?.remove();
  }, 120_000);

  it('re-runs the episodes a dead host lost, on a live host, and keeps the finished ones', async () => {
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
      '--hosts',
      'a',
      '--concurrency',
      '1',
    ];
    const running = runT1lab([...args, '--episode-deadline', '180', '--out', out, '--json'], {
      env: env(),
      timeoutMs: 400_000,
    });
    // Once one episode is recorded and the next one's container runs on a (asked through a's API), a's engine is killed.
    const [a, b] = services;
    const episodes = join(out, 'episodes.jsonl');
    const recorded = () => (existsSync(episodes) ? readRecords(episodes).length : 0);
    const started = () => (existsSync(join(out, 'episodes')) ? readdirSync(join(out, 'episodes')).length : 0);
    const onA = new EngineClient({ name: 'a', url: a!.url, slots: 1 });
    const deadline = Date.now() + 240_000;
    while (
      !(recorded() >= 1 && started() >= 2 && (await onA.labContainers(installId(home))).length > 0) &&
      Date.now() < deadline
    )
      await new Promise((r) => setTimeout(r, 200));
    expect(recorded()).toBe(1);
    a!.child.kill('SIGKILL');
    const first = await running;
    // Infrastructure errors are left out of the statistics: the run is incomplete and says how to go on.
    expect(first.code, first.stderr).toBe(1);
    expect(first.stderr).toContain(`continue it with  t1lab eval --resume ${out}`);
    const before = readRecords(episodes);
    const kept = before.filter((r) => r.error?.kind !== 'infrastructure');
    expect(kept).toHaveLength(1);
    expect(kept[0]).toMatchObject({ resolved: true, host: 'a' });
    expect(before.filter((r) => r.error?.kind === 'infrastructure')).toHaveLength(2);
    expect(parseJsonOutput<EvalSummary>(first).errors.infrastructure).toBe(2);

    const resumed = await runT1lab(['eval', '--resume', out, '--hosts', 'b', '--json'], {
      env: env(),
      timeoutMs: 400_000,
    });
    expect(resumed.code, resumed.stderr).toBe(0);
    const summary = parseJsonOutput<EvalSummary>(resumed);
    expect(summary).toMatchObject({ tasks: 3, episodes: 3, resolvedRate: 1, rerun: 2 });
    expect(summary.errors.infrastructure).toBeUndefined();
    expect(resumed.stderr).toMatch(/2 episode\(s\) ended in an infrastructure error; they run again/);
    const after = readRecords(episodes);
    // Every task once, with a real outcome; the one that had finished is its old record, untouched.
    expect(after.map((r) => r.key).sort()).toEqual(WORDS.map((w) => `echo-${w}@0`));
    expect(after.every((r) => r.resolved && r.error === null)).toBe(true);
    expect(after.find((r) => r.key === kept[0]!.key)).toEqual(kept[0]);
    expect(after.filter((r) => r.key !== kept[0]!.key).map((r) => r.host)).toEqual(['b', 'b']);
    // The lost records are kept for the record; nothing of the lab is left on the live host.
    expect(
      readRecords(join(out, 'episodes-retried.jsonl'))
        .map((r) => r.key)
        .sort(),
    ).toEqual(
      before
        .filter((r) => r.error?.kind === 'infrastructure')
        .map((r) => r.key)
        .sort(),
    );
    expect(labContainers(b!)).toEqual([]);
  }, 900_000);
});
