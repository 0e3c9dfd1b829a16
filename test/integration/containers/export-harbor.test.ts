/**
 * Exported Harbor tasks (issue 37) run as Harbor would run them: the generated Dockerfile built by the
 * lab's container backend (FROM replaced by the local test base), the oracle in the container, then
 * tests/test.sh, whose CTRF report and reward.json the lab reads. Every task resolves, with the same dense
 * reward as the lab's own evaluation of the original in the sandbox. Skipped, with the reason, where
 * podman, mmdebstrap or root are missing (as the container round trip is).
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildBaseImage } from '../../../native/sandbox';
import { startEvaluation } from '../../../electron/lab/runs/evaluate';
import type { EpisodeRecord } from '../../../electron/domain/runs';
import { loadTaskSource, writePack, writeTaskFolder } from '../../../electron/lab/tasks';
import { harborTaskFiles } from '../../../electron/lab/tasks/export/harbor';
import { makeTempDir } from '../../helpers/tmp';
import { REPO_ROOT } from '../../helpers/cli';

/** The base round-trip.test.ts builds (the same tag: built once, shared). */
const TEST_BASE_TAG = 'localhost/t1lab-test-base:bookworm-py';

function missingPrerequisite(): string | null {
  if (process.getuid?.() !== 0)
    return 'the podman backend is tested as root (rootless podman needs /etc/subuid set up)';
  for (const tool of ['podman', 'mmdebstrap']) {
    try {
      execFileSync('sh', ['-c', `command -v ${tool}`], { stdio: 'ignore' });
    } catch {
      return `${tool} is not installed (build/bootstrap.sh installs it)`;
    }
  }
  try {
    execFileSync('podman', ['version', '--format', '{{.Server.Version}}'], { stdio: 'ignore', timeout: 20_000 });
  } catch {
    return 'podman is installed but does not answer';
  }
  return null;
}

const skip = missingPrerequisite();
if (skip) console.warn(`exported Harbor tasks in containers skipped: ${skip}`);

const records = (run: string) =>
  readFileSync(join(run, 'episodes.jsonl'), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as EpisodeRecord);

describe.skipIf(skip !== null)('exported Harbor tasks in the container backend', () => {
  let tmp: { path: string; remove(): void };
  beforeAll(async () => {
    tmp = makeTempDir('t1lab-export-containers-');
    await buildBaseImage('podman', { tag: TEST_BASE_TAG, include: ['python3', 'python3-pytest', 'python-is-python3'] });
  }, 300_000);
  afterAll(() => tmp.remove());

  it("the oracle resolves them, with the dense reward of the lab's own evaluation", async () => {
    // Two tasks: one whose start state is environment/files only, one with a pytest verifier.
    const suite = (await loadTaskSource(join(REPO_ROOT, 'tasks/suites/nano-bench.jsonl'))).tasks.slice(0, 1);
    const example = (await loadTaskSource(join(REPO_ROOT, 'tasks/examples/service-migration'))).tasks;
    const tasks = [...suite, ...example];
    const exported = join(tmp.path, 'exported');
    for (const task of tasks) await writeTaskFolder(join(exported, task.id), harborTaskFiles(task));
    const originals = join(tmp.path, 'originals.jsonl');
    await writePack(originals, tasks);

    const containers = {
      backend: 'podman' as const,
      engine: 'podman' as const,
      baseImages: { '*': TEST_BASE_TAG },
      pull: false,
      network: false,
    };
    const run = await startEvaluation(
      { suite: exported, policy: 'oracle', concurrency: 1, out: join(tmp.path, 'run-exported') },
      { dataDir: tmp.path, containers },
      { log: () => {} },
    );
    const { summary } = await run.done;
    const lab = await startEvaluation(
      { suite: originals, policy: 'oracle', concurrency: 1, out: join(tmp.path, 'run-lab') },
      { dataDir: tmp.path, containers: { ...containers, backend: 'bubblewrap' as const } },
      { log: () => {} },
    );
    await lab.done;

    expect(summary.resolvedRate, JSON.stringify(summary)).toBe(1);
    const ours = new Map(records(join(tmp.path, 'run-lab')).map((r) => [r.taskId, r.reward]));
    for (const r of records(join(tmp.path, 'run-exported'))) {
      expect(r.resolved, r.taskId).toBe(true);
      expect(r.reward, r.taskId).toEqual(ours.get(r.taskId));
    }
    // The reward came from the exported tests/test.sh: its CTRF report and reward.json.
    const episode = readdirSync(join(tmp.path, 'run-exported', 'episodes'))[0] as string;
    const trajectory = JSON.parse(
      readFileSync(join(tmp.path, 'run-exported', 'episodes', episode, 'trajectory.json'), 'utf8'),
    ) as { verifier: { source: string } };
    expect(trajectory.verifier.source).toMatch(/ctrf/);
  }, 600_000);
});
