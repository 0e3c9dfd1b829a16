/**
 * The container backend end to end, on this machine's engine: a Debian base image built with mmdebstrap
 * (once: cached by tag, so a second run reuses it), a Harbor task image built FROM it through the
 * base-image map, the oracle typed into a pty shell in the container, the verifier on the state it left,
 * and nothing left behind. Skipped, with the reason, where podman, runc, mmdebstrap or root are missing.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ContainerBackend, buildBaseImage, defaultLimits, inspectImage } from '../../../native/sandbox';
import { createShellSession } from '../../../native/pty/index';
import { sweepOrphanedContainers } from '../../../native/sandbox/container/sweep';
import { ownerLabel } from '../../../native/sandbox/container/engine';
import { startEvaluation } from '../../../electron/lab/runs/evaluate';
import type { RunManifest } from '../../../electron/domain/runs';
import { importTerminalBench } from '../../../electron/lab/tasks/import/import-tb';
import { makeTempDir } from '../../helpers/tmp';
import { REPO_ROOT } from '../../helpers/cli';

/** Small on purpose: the round trip needs python3 and pytest only (about 30 s to build, once). */
export const TEST_BASE_TAG = 'localhost/t1lab-test-base:bookworm-py';
const TEST_BASE_PACKAGES = ['python3', 'python3-pytest', 'python-is-python3'];

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
if (skip) console.warn(`container round trip skipped: ${skip}`);

const OWNER = ownerLabel();
/** Containers (or images) labelled as this process's; filtered here (podman 4.3 ORs repeated --filter label=). */
const owned = (what: 'ps' | 'images') =>
  execFileSync(
    'podman',
    [
      what,
      ...(what === 'ps' ? ['-a'] : []),
      '--filter',
      'label=t1lab.owner',
      '--format',
      `{{.ID}} {{index .Labels "t1lab.owner"}}`,
    ],
    { encoding: 'utf8' },
  )
    .split('\n')
    .filter((line) => line.endsWith(` ${OWNER}`));
const ownedByUs = () => owned('ps');

describe.skipIf(skip !== null)('the podman backend', () => {
  let tmp: { path: string; remove(): void };
  beforeAll(async () => {
    tmp = makeTempDir('t1lab-containers-');
    await buildBaseImage('podman', { tag: TEST_BASE_TAG, include: TEST_BASE_PACKAGES });
  }, 300_000);
  afterAll(() => tmp.remove());

  it('runs a Harbor task in its own image: built FROM the substituted base, oracle through a pty, verified, cleaned up', async () => {
    const dest = join(tmp.path, 'tasks');
    const report = await importTerminalBench(join(REPO_ROOT, 'test/fixtures/tb-containers'), dest);
    expect(report.imported.map((t) => t.id)).toEqual(['harbor-image-state']);
    // As on a machine that never built it (the first run builds, the second finds it): drop an earlier build.
    const earlier = execFileSync(
      'podman',
      ['images', '--filter', 'reference=localhost/t1lab-task-harbor-image-state', '--format', '{{.ID}}'],
      { encoding: 'utf8' },
    )
      .split('\n')
      .filter(Boolean);
    if (earlier.length) execFileSync('podman', ['rmi', '-f', ...new Set(earlier)], { stdio: 'ignore' });
    const out = join(tmp.path, 'run');
    const logs: string[] = [];
    const evaluation = await startEvaluation(
      { suite: dest, policy: 'oracle', concurrency: 1, out },
      {
        dataDir: tmp.path,
        containers: {
          backend: 'podman',
          engine: 'podman',
          baseImages: { '*': TEST_BASE_TAG },
          pull: false,
          network: false,
        },
      },
      { log: (m) => logs.push(m) },
    );
    const { summary } = await evaluation.done;
    expect(summary.resolvedRate, JSON.stringify(summary)).toBe(1);
    // The fidelity caveat: the task's FROM image was replaced.
    expect(summary.fidelity?.[0]).toMatch(/python:3.13-slim-bookworm replaced by localhost\/t1lab-test-base/);
    const manifest = JSON.parse(readFileSync(join(out, 'run.json'), 'utf8')) as RunManifest;
    expect(manifest.config.containers?.tasks['harbor-image-state']?.imageSource).toBe('built');
    expect(manifest.config.containers?.network).toBe(false);
    expect(manifest.config.containers?.tasks['harbor-image-state']).toMatchObject({
      backend: 'podman',
      network: false,
      substitutions: [{ from: 'python:3.13-slim-bookworm', to: TEST_BASE_TAG }],
    });
    // The verifier ran test.sh offline (its uv install dropped), as the trajectory says.
    const episode = readdirSync(join(out, 'episodes'))[0] as string;
    const trajectory = JSON.parse(readFileSync(join(out, 'episodes', episode, 'trajectory.json'), 'utf8')) as {
      verifier: { notes: string[]; passed: number; total: number };
    };
    expect(trajectory.verifier).toMatchObject({ passed: 3, total: 3 });
    expect(trajectory.verifier.notes.join('\n')).toMatch(/verifier mode: offline-script \(network off/);
    expect(readFileSync(join(out, 'episodes', episode, 'recording.cast'), 'utf8')).toMatch(/report\.txt/);
    // Nothing of this process is left in the engine: containers removed, the episode's state image too.
    expect(ownedByUs()).toEqual([]);
    expect(owned('images')).toEqual([]);

    // A second run (same process, as in the app) finds the built image by its content hash: no build.
    const again = await startEvaluation(
      { suite: dest, policy: 'oracle', concurrency: 1, out: join(tmp.path, 'run2') },
      {
        dataDir: tmp.path,
        containers: {
          backend: 'podman',
          engine: 'podman',
          baseImages: { '*': TEST_BASE_TAG },
          pull: false,
          network: false,
        },
      },
      { log: (m) => logs.push(m) },
    );
    const second = JSON.parse(readFileSync(join(tmp.path, 'run2', 'run.json'), 'utf8')) as RunManifest;
    expect(second.config.containers?.tasks['harbor-image-state']?.imageSource).toBe('cached');
    again.cancel();
    await again.done;
  }, 300_000);

  it('keeps state between phases by commit, enforces limits with engine flags, and the sweep removes what a dead owner left', async () => {
    const backend = new ContainerBackend('podman');
    const tag = `localhost/t1lab-state:test-${process.pid}`;
    const spec = {
      workspace: tmp.path,
      workdir: '/root',
      net: false,
      limits: defaultLimits({ wallSeconds: 60, processes: 64, memoryMb: 256 }),
      container: { image: TEST_BASE_TAG, commitTo: tag },
    };
    const first = await backend.run(spec, ['sh', '-c', 'echo kept > /root/state.txt; ulimit -n']);
    expect(first.exitCode).toBe(0);
    expect(first.stdout.trim()).toBe('1024');
    const second = await backend.run({ ...spec, container: { image: tag } }, ['cat', '/root/state.txt']);
    expect(second.stdout).toBe('kept\n');
    const forks = await backend.run({ ...spec, container: { image: TEST_BASE_TAG } }, [
      'sh',
      '-c',
      'for i in $(seq 200); do sleep 5 & done 2>/dev/null; jobs | wc -l',
    ]);
    expect(Number(forks.stdout.trim())).toBeLessThan(64);
    const late = await backend.run(
      { ...spec, limits: defaultLimits({ wallSeconds: 1 }), container: { image: TEST_BASE_TAG } },
      ['sleep', '30'],
    );
    expect(late).toMatchObject({ timedOut: true, limit: 'wallSeconds' });
    expect(ownedByUs()).toEqual([]);

    // A container and a state image whose owner pid is gone (a killed lab) are swept.
    const deadPid = 2 ** 22 + 1;
    const dead = ownerLabel(deadPid);
    execFileSync(
      'podman',
      ['create', '--label', `t1lab.owner=${dead}`, '--name', `t1lab-${deadPid}-left`, TEST_BASE_TAG, 'true'],
      { stdio: 'ignore' },
    );
    execFileSync(
      'podman',
      [
        'commit',
        '--change',
        `LABEL t1lab.owner=${dead}`,
        '--change',
        'LABEL t1lab.kind=state',
        `t1lab-${deadPid}-left`,
        `localhost/t1lab-state:dead-${deadPid}`,
      ],
      { stdio: 'ignore' },
    );
    const swept = await sweepOrphanedContainers('podman');
    expect(swept.containers.length).toBeGreaterThanOrEqual(1);
    expect(await inspectImage('podman', `localhost/t1lab-state:dead-${deadPid}`)).toBeNull();
    expect(await inspectImage('podman', tag)).not.toBeNull(); // ours: this process is alive
    execFileSync('podman', ['rmi', '-f', tag], { stdio: 'ignore' });
  }, 120_000);

  it('a shell in a container returns as soon as a command waits for typed input', async () => {
    const session = await createShellSession({
      backend: new ContainerBackend('podman'),
      spec: {
        workspace: tmp.path,
        workdir: '/root',
        net: false,
        limits: defaultLimits({ wallSeconds: 120 }),
        container: { image: TEST_BASE_TAG },
      },
    });
    try {
      await session.ready();
      // Read from the host's /proc through the container's pid: before, this ran into the 60 s timeout.
      const r = await session.run('echo looking; grep -c word', { timeoutMs: 60_000 });
      expect(r).toMatchObject({ waitingForInput: true, timedOut: false, exitCode: null, output: 'looking\n' });
      session.sendKeys(['one word', { key: 'Enter' }, { key: 'C-d' }]);
      const after = await session.run('echo done', { timeoutMs: 30_000 }).catch(async () => {
        await new Promise((resolve) => setTimeout(resolve, 1_000));
        return session.run('echo done', { timeoutMs: 30_000 });
      });
      expect(after.output).toBe('done\n');
    } finally {
      await session.close();
    }
    // The container is removed after the shell's exit is reported: give the engine its moment.
    for (let i = 0; i < 60 && ownedByUs().length > 0; i++) await new Promise((resolve) => setTimeout(resolve, 500));
    expect(ownedByUs()).toEqual([]);
  }, 120_000);

  it('says why docker cannot be used when no Docker engine answers', async () => {
    const status = await new ContainerBackend('docker').status();
    if (status.available) return; // a machine with a Docker engine: nothing to report
    expect(status.hint).toMatch(/docker/);
    expect(status.hint).toMatch(/install Docker Engine|start it|use --backend podman/);
    expect(existsSync('/')).toBe(true);
  });
});
