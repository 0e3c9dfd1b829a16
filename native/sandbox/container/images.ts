/**
 * Images: look up, pull, build (from a Dockerfile text and a context folder) and the local Debian base
 * image built with mmdebstrap from the Debian archive, for machines that cannot pull from a registry.
 */
import { spawn } from 'node:child_process';
import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HeadTail } from '../../util/head-tail';
import { execQuiet } from '../../util/exec';
import { engineCommand, engineExec, hostHardLimits, ulimitArgs, type EngineName } from './engine';

export interface ImageInfo {
  id: string;
  /** The image's final WORKDIR ('' when none was set). */
  workdir: string;
  /** The image's USER ('' = root). */
  user: string;
  sizeBytes: number;
}

export async function inspectImage(engine: EngineName, ref: string): Promise<ImageInfo | null> {
  const r = await engineExec(
    engine,
    ['image', 'inspect', '--format', '{{.Id}}\t{{.Config.WorkingDir}}\t{{.Config.User}}\t{{.Size}}', ref],
    30_000,
  );
  if (!r.ok) return null;
  const [id, workdir, user, size] = r.stdout.trim().split('\n')[0]?.split('\t') ?? [];
  return { id: id ?? '', workdir: workdir ?? '', user: user ?? '', sizeBytes: Number(size) || 0 };
}

/** Try to pull `ref`; false (with the engine's words) when the registry cannot be reached or has no such image. */
export async function pullImage(
  engine: EngineName,
  ref: string,
  timeoutMs = 60_000,
): Promise<{ ok: boolean; detail: string }> {
  const r = await engineExec(engine, ['pull', '--quiet', ref], timeoutMs);
  return { ok: r.ok, detail: r.ok ? 'pulled' : (r.stderr.trim().split('\n').pop() ?? '').slice(0, 300) };
}

export interface BuildRequest {
  contextDir: string;
  /** The Dockerfile's text (written beside the context, never into it). */
  dockerfile: string;
  tag: string;
  labels?: Record<string, string>;
  /** Build output as it arrives (for progress and logs). */
  onOutput?: (text: string) => void;
  timeoutMs?: number;
  /** Let RUN lines reach the network (package installs); default true, as `docker build` does. */
  network?: boolean;
}

export interface BuildResult {
  ok: boolean;
  /** The build's output, head and tail. */
  log: string;
  durationMs: number;
}

export async function buildImage(engine: EngineName, req: BuildRequest): Promise<BuildResult> {
  const started = performance.now();
  const dir = await mkdtemp(join(tmpdir(), `t1lab-build-${process.pid}-`));
  try {
    const file = join(dir, 'Dockerfile');
    await writeFile(file, req.dockerfile);
    const hard = await hostHardLimits();
    const args = ['build', '-f', file, '-t', req.tag, ...ulimitArgs(hard)];
    if (req.network === false) args.push('--network', 'none');
    for (const [k, v] of Object.entries(req.labels ?? {})) args.push('--label', `${k}=${v}`);
    args.push(req.contextDir);
    const c = engineCommand(engine, args);
    const log = new HeadTail(200_000);
    const child = spawn(c.file, c.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    const onData = (b: Buffer) => {
      const t = b.toString('utf8');
      log.push(t);
      req.onOutput?.(t);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => child.kill('SIGKILL'), req.timeoutMs ?? 30 * 60_000);
    const code = await new Promise<number | null>((resolve) => {
      child.once('error', (e) => (log.push(`\n${e.message}\n`), resolve(null)));
      child.once('close', (c2) => resolve(c2));
    });
    clearTimeout(timer);
    return { ok: code === 0, log: log.text(), durationMs: Math.round(performance.now() - started) };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export const DEFAULT_BASE_TAG = 'localhost/t1lab-base:bookworm';
/** What TB tasks' images usually have: python (also as `python`), pytest, and the common tools. */
export const DEFAULT_BASE_PACKAGES = [
  'python3',
  'python3-pytest',
  'python3-pip',
  'python3-venv',
  'python-is-python3',
  'ca-certificates',
  'curl',
  'git',
  'procps',
  'less',
  'nano',
  'file',
  'patch',
  'tmux',
  'xz-utils',
  'unzip',
];

export interface BaseImageResult {
  tag: string;
  sizeBytes: number;
  durationMs: number;
  /** Whether it was already there (nothing built). */
  cached: boolean;
}

export const MMDEBSTRAP_HINT =
  'install mmdebstrap: `sudo apt-get install mmdebstrap` (it builds the Debian root file system from the Debian archive)';

/**
 * A Debian bookworm image from the Debian archive: `mmdebstrap --variant=minbase` into a tarball, then
 * `import` with a shell as its command. Reused when the tag exists unless `rebuild`.
 */
export async function buildBaseImage(
  engine: EngineName,
  options: {
    tag?: string;
    include?: string[];
    suite?: string;
    mirror?: string;
    rebuild?: boolean;
    onOutput?: (text: string) => void;
  } = {},
): Promise<BaseImageResult> {
  const tag = options.tag ?? DEFAULT_BASE_TAG;
  const started = performance.now();
  if (!options.rebuild) {
    const have = await inspectImage(engine, tag);
    if (have)
      return { tag, sizeBytes: have.sizeBytes, durationMs: Math.round(performance.now() - started), cached: true };
  }
  const which = await execQuiet('sh', ['-c', 'command -v mmdebstrap']);
  if (!which.ok) throw new Error(`mmdebstrap is not installed; ${MMDEBSTRAP_HINT}`);
  const dir = await mkdtemp(join(tmpdir(), `t1lab-base-${process.pid}-`));
  try {
    const tar = join(dir, 'rootfs.tar');
    const include = [...new Set(options.include ?? DEFAULT_BASE_PACKAGES)];
    // Like python images, pip may install into the system python (Debian marks it externally managed).
    const args = [
      '--variant=minbase',
      `--include=${include.join(',')}`,
      '--customize-hook=rm -f "$1"/usr/lib/python3*/EXTERNALLY-MANAGED',
      options.suite ?? 'bookworm',
      tar,
    ];
    if (options.mirror) args.push(options.mirror);
    const log = new HeadTail(20_000);
    const code = await new Promise<number | null>((resolve) => {
      const child = spawn('mmdebstrap', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      const onData = (b: Buffer) => (log.push(b.toString('utf8')), options.onOutput?.(b.toString('utf8')));
      child.stdout.on('data', onData);
      child.stderr.on('data', onData);
      child.once('error', () => resolve(null));
      child.once('close', resolve);
    });
    if (code !== 0 || !(await stat(tar).catch(() => null)))
      throw new Error(`mmdebstrap failed (exit ${code}):\n${log.text().slice(-2000)}`);
    const imp = await engineExec(
      engine,
      ['import', '--change', 'CMD ["bash"]', '--change', 'ENV LANG=C.UTF-8', tar, tag],
      600_000,
    );
    if (!imp.ok) throw new Error(`${engine} import failed: ${imp.stderr.trim().slice(-500)}`);
    const info = await inspectImage(engine, tag);
    return { tag, sizeBytes: info?.sizeBytes ?? 0, durationMs: Math.round(performance.now() - started), cached: false };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export async function removeImage(engine: EngineName, ref: string): Promise<boolean> {
  return (await engineExec(engine, ['rmi', '-f', ref], 120_000)).ok;
}
