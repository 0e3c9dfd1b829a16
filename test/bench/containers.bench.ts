/**
 * Issue 10: what the container backend costs against bubblewrap on the same task and image — a shell's
 * start to its first prompt, and a verifier-sized run (pytest on one test file) — and what the image
 * cache saves: resolving a task image whose build context is new (a build) against the same one again
 * (found by its content hash). Figures are ratios against baselines measured in this run.
 */
import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  buildBaseImage,
  createSandboxBackend,
  defaultLimits,
  removeImage,
  type SandboxSpec,
} from '../../native/sandbox/index';
import { resolveTaskImage } from '../../electron/lab/containers/task-image';
import { loadTaskFolder } from '../../electron/lab/tasks';
import { makeTempDir } from '../helpers/tmp';
import { timed, timeToPrompt } from './shell-timing';
import { median, type Bench } from './reporter';

const BASE = 'localhost/t1lab-test-base:bookworm-py';
const FIXTURE = join(import.meta.dirname, '..', 'fixtures', 'tb-containers', 'harbor-image-state');

const bench: Bench = {
  name: 'containers',
  about: 'issue 10: container episode overhead vs bubblewrap; image build cache hit vs miss',
  async run(report, { quick }) {
    try {
      execFileSync('podman', ['version', '--format', '{{.Server.Version}}'], { stdio: 'ignore', timeout: 20_000 });
    } catch {
      report.note('skipped: podman does not answer here (build/bootstrap.sh installs it; it runs as root)');
      return;
    }
    await buildBaseImage('podman', { tag: BASE, include: ['python3', 'python3-pytest', 'python-is-python3'] });
    const tmp = makeTempDir('t1lab-bench-containers-');
    try {
      const tests = join(tmp.path, 'tests');
      mkdirSync(tests);
      writeFileSync(join(tests, 'test_one.py'), 'def test_one():\n    assert 1 + 1 == 2\n');
      const limits = defaultLimits({ wallSeconds: 120 });
      const bwrap = createSandboxBackend('bubblewrap');
      const podman = createSandboxBackend('podman');
      const sandboxSpec: SandboxSpec = {
        workspace: tmp.path,
        workdir: '/app',
        net: false,
        limits,
        mounts: [{ host: tests, sandbox: '/tests', readOnly: true }],
      };
      const containerSpec: SandboxSpec = { ...sandboxSpec, container: { image: BASE, bindWorkspace: true } };
      const n = quick ? 3 : 7;
      const prompt = { bwrap: [] as number[], podman: [] as number[] };
      const verify = { bwrap: [] as number[], podman: [] as number[] };
      const pytest = ['python3', '-m', 'pytest', '-q', '-p', 'no:cacheprovider', '/tests/test_one.py'];
      // Alternating rounds, so that changing load hits both alike.
      for (let i = 0; i < n; i++) {
        prompt.bwrap.push(await timeToPrompt(bwrap, sandboxSpec));
        prompt.podman.push(await timeToPrompt(podman, containerSpec));
        verify.bwrap.push(await timed(() => bwrap.run(sandboxSpec, pytest)));
        verify.podman.push(await timed(() => podman.run(containerSpec, pytest)));
      }
      const figure = (name: string, value: number, baseName: string, base: number) =>
        report.figure({ name, value, unit: 'ms', baseline: { name: baseName, value: base }, ratio: value / base });
      figure('container shell: start to first prompt', median(prompt.podman), 'bubblewrap shell', median(prompt.bwrap));
      figure('container verifier run (pytest, 1 test)', median(verify.podman), 'bubblewrap run', median(verify.bwrap));

      // Image cache: a task whose build context is new (a nonce file) is built; the same task again is a cache hit.
      const loaded = await loadTaskFolder(FIXTURE);
      if (!loaded.task) throw new Error(`fixture did not load: ${JSON.stringify(loaded.problems)}`);
      const settings = {
        backend: 'podman' as const,
        engine: 'podman' as const,
        baseImages: { '*': BASE },
        pull: false,
        network: false,
      };
      const misses: number[] = [];
      const hits: number[] = [];
      for (let i = 0; i < (quick ? 1 : 3); i++) {
        const task = {
          ...loaded.task,
          id: `bench-cache-${randomBytes(3).toString('hex')}`,
          files: [...loaded.task.files, { path: 'environment/nonce.txt', data: randomBytes(16), executable: false }],
        };
        let ref = '';
        misses.push(await timed(async () => (ref = (await resolveTaskImage(task, settings)).ref)));
        hits.push(await timed(() => resolveTaskImage(task, settings)));
        await removeImage('podman', ref);
      }
      report.figure({
        name: 'image resolve: cache hit',
        value: median(hits),
        unit: 'ms',
        baseline: { name: 'cache miss (build)', value: median(misses) },
        ratio: median(misses) / median(hits),
      });
      report.note('ratio for the cache = miss / hit (how many times faster a hit is)');
    } finally {
      tmp.remove();
    }
  },
};

export default bench;
