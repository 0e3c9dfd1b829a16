/**
 * Issue 36: what the Engine API path costs against the CLI path on the same engine (a podman API service on
 * this machine's own storage, so both see the same images): a short run (`true`) and a shell's start to its
 * first prompt, alternating rounds; the run also with the workspace copied in and out (a host set to copy,
 * as one that does not see this machine's files), where the API path binds it otherwise; then container start-up through the API at concurrency 1, 4 and 16 on
 * one host (p50 and p95 of each container's create-to-exit time). The image is the tests' tiny root file
 * system (busybox and bash).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createSandboxBackend, defaultLimits, type SandboxSpec } from '../../native/sandbox/index';
import { ApiContainerBackend } from '../../native/sandbox/container/api/backend';
import { EngineClient } from '../../native/sandbox/container/api/client';
import { sharesFiles } from '../../native/sandbox/container/api/shared-files';
import { podmanServiceSkip, startPodmanService, tinyRootfs } from '../helpers/podman-service';
import { makeTempDir } from '../helpers/tmp';
import { timed, timeToPrompt } from './shell-timing';
import { median, percentile, type Bench } from './reporter';

const TINY = 'localhost/t1lab-test-tiny:v1';
const GOAL_RATIO = 1.1;

const bench: Bench = {
  name: 'hosts',
  about: 'issue 36: Engine API path vs CLI path per episode; container start-up p50/p95 at concurrency 1, 4, 16',
  async run(report, { quick }) {
    const skip = podmanServiceSkip();
    if (skip) return report.note(`skipped: ${skip}`);
    const tmp = makeTempDir('t1lab-bench-hosts-');
    const service = await startPodmanService(join(tmp.path, 'svc'), { sharedStorage: true });
    const imported = spawnSync('podman', ['image', 'exists', TINY]).status !== 0;
    try {
      if (imported)
        execFileSync('podman', ['import', '--change', 'CMD ["bash"]', tinyRootfs(), TINY], { stdio: 'ignore' });
      const client = new EngineClient({ name: 'bench', url: service.url, slots: 16 });
      const labels = { installId: 'bench000bench000', runId: 'bench' };
      const api = new ApiContainerBackend(client, 'podman', labels);
      const copying = new ApiContainerBackend(
        new EngineClient({ name: 'bench-copy', url: service.url, slots: 16, files: 'copy' }),
        'podman',
        labels,
      );
      const cli = createSandboxBackend('podman');
      const workspace = join(tmp.path, 'ws');
      mkdirSync(workspace);
      writeFileSync(join(workspace, 'task.txt'), 'a task file\n');
      // As an episode on the base image: the workspace at /app (bound by the CLI path, copied by the API path).
      const spec: SandboxSpec = {
        workspace,
        workdir: '/app',
        net: false,
        limits: defaultLimits({ wallSeconds: 120 }),
        container: { image: TINY, bindWorkspace: true },
      };
      const n = quick ? 3 : 7;
      const run = { cli: [] as number[], api: [] as number[], copy: [] as number[] };
      const prompt = { cli: [] as number[], api: [] as number[] };
      for (let i = 0; i < n; i++) {
        run.cli.push(await timed(() => cli.run(spec, ['true'])));
        run.api.push(await timed(() => api.run(spec, ['true'])));
        run.copy.push(await timed(() => copying.run(spec, ['true'])));
        prompt.cli.push(await timeToPrompt(cli, spec));
        prompt.api.push(await timeToPrompt(api, spec));
      }
      const compare = (name: string, value: number, base: number) =>
        report.figure({
          name,
          value,
          unit: 'ms',
          baseline: { name: 'CLI path', value: base },
          ratio: value / base,
          goal: `<= ${GOAL_RATIO}x`,
          met: value / base <= GOAL_RATIO,
        });
      const bound = await sharesFiles(client, 'podman', TINY, labels);
      report.note(`the service sees this machine's files: the API path ${bound ? 'binds' : 'copies'} the workspace`);
      compare('API run (`true`), median', median(run.api), median(run.cli));
      compare('API run (`true`), workspace copied (host set to copy), median', median(run.copy), median(run.cli));
      compare('API shell: start to first prompt, median', median(prompt.api), median(prompt.cli));
      for (const c of [1, 4, 16]) {
        const times: number[] = [];
        for (let round = 0; round < (quick ? 1 : 3); round++)
          times.push(...(await Promise.all(Array.from({ length: c }, () => timed(() => api.run(spec, ['true']))))));
        report.figure({
          name: `API container start-up, concurrency ${c}: p50`,
          value: percentile(times, 50),
          unit: 'ms',
        });
        report.figure({
          name: `API container start-up, concurrency ${c}: p95`,
          value: percentile(times, 95),
          unit: 'ms',
        });
      }
      report.note(`${(await client.labContainers('bench000bench000')).length} lab containers left on the host`);
    } finally {
      await service.stop();
      if (imported) spawnSync('podman', ['rmi', '-f', TINY], { stdio: 'ignore' });
      tmp.remove();
    }
  },
};

export default bench;
