/**
 * `t1lab images base [--tag TAG] [--include PKG,...] [--engine podman|docker] [--rebuild] [--json]`: a Debian
 * base image built locally with mmdebstrap from the Debian archive (python3 as `python` too, pytest, pip,
 * common tools), for machines that cannot pull images. `--json` prints `{tag, sizeBytes, durationMs, cached}`.
 * Map task images onto it with `--base-image FROM=TAG` or `$T1LAB_HOME/containers.json`.
 */
import type { Command } from 'commander';
import {
  buildBaseImage,
  DEFAULT_BASE_PACKAGES,
  DEFAULT_BASE_TAG,
  detectContainerEngine,
} from '../../../native/sandbox/container';
import { UsageError, WorkFailed } from '../errors';
import { formatBytes, printJson, progressBar, type Io } from '../output';

/** mmdebstrap's own stages ("I: ..." lines), for the progress bar. */
const MMDEBSTRAP_STAGES = [
  'I: automatically chosen',
  'I: finding correct signed-by',
  'I: skipping',
  'I: downloading packages',
  'I: extracting archives',
  'I: installing essential',
  'I: installing remaining',
  'I: running --customize-hook',
  'I: creating tarball',
  'I: success',
];

export function registerImages(program: Command, io: Io): void {
  const images = program.command('images').description('container images for tasks (podman/docker)');
  images
    .command('base')
    .description('build a Debian base image with mmdebstrap from the Debian archive (no registry needed)')
    .option('--tag <tag>', `image tag (default ${DEFAULT_BASE_TAG})`, DEFAULT_BASE_TAG)
    .option('--include <pkgs>', `extra Debian packages, comma-separated (always: ${DEFAULT_BASE_PACKAGES.join(',')})`)
    .option('--engine <engine>', 'podman or docker', 'podman')
    .option('--rebuild', 'build even if the tag exists')
    .option('--json', 'print JSON: {tag, sizeBytes, durationMs, cached}')
    .action(async (opts: { tag: string; include?: string; engine: string; rebuild?: boolean; json?: boolean }) => {
      if (opts.engine !== 'podman' && opts.engine !== 'docker')
        throw new UsageError(`--engine '${opts.engine}': expected podman or docker`);
      const extra = (opts.include ?? '')
        .split(',')
        .map((p) => p.trim())
        .filter(Boolean);
      const bad = extra.find((p) => !/^[a-z0-9][a-z0-9+.-]+$/.test(p));
      if (bad) throw new UsageError(`--include: '${bad}' is not a Debian package name`);
      if (!/^[a-z0-9][a-z0-9._/:-]*$/.test(opts.tag))
        throw new UsageError(`--tag '${opts.tag}': not an image name (lower-case letters, digits, . _ / : -)`);
      const engine = await detectContainerEngine(opts.engine);
      if (!engine.serverVersion) throw new WorkFailed(`${engine.detail}; ${engine.hint ?? ''}`);
      const bar = progressBar(io, 'base image', MMDEBSTRAP_STAGES.length + 1);
      let stage = 0;
      let result;
      try {
        result = await buildBaseImage(opts.engine, {
          tag: opts.tag,
          include: [...DEFAULT_BASE_PACKAGES, ...extra],
          rebuild: opts.rebuild,
          onOutput: (text) => {
            for (const line of text.split('\n')) {
              const at = MMDEBSTRAP_STAGES.findIndex((s) => line.startsWith(s));
              if (at >= stage) stage = at + 1;
              if (line.startsWith('I: ') || line.startsWith('E: ')) bar.update(stage, line.slice(3, 60));
            }
          },
        });
        bar.update(MMDEBSTRAP_STAGES.length + 1, 'imported');
      } catch (error) {
        bar.stop();
        throw new WorkFailed((error as Error).message);
      }
      bar.stop();
      if (opts.json)
        printJson(io, {
          tag: result.tag,
          sizeBytes: result.sizeBytes,
          durationMs: result.durationMs,
          cached: result.cached,
        });
      else
        io.out(
          `${result.tag}: ${formatBytes(result.sizeBytes)}, ${result.cached ? 'already built (--rebuild to build again)' : `built in ${(result.durationMs / 1000).toFixed(1)} s`}\nuse it for tasks whose images cannot be pulled: --base-image '*=${result.tag}'\n`,
        );
    });
}
