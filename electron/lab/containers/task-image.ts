/**
 * A task's image, resolved in the issue's order: its `docker_image` when present locally or pullable; else
 * its Dockerfile built with the engine, cached by a content hash of the build context (a second run finds
 * the tag and builds nothing); `FROM` images that are neither local nor pullable are substituted through
 * the base-image map, and the result says so (the fidelity caveat). Tasks without an image of their own
 * run on the base image (`*` in the map, else the lab's mmdebstrap base).
 */
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { buildImage, DEFAULT_BASE_TAG, inspectImage, pullImage } from '../../../native/sandbox/container';
import type { EngineName } from '../../../native/sandbox/container';
import { LABEL_KIND } from '../../../native/sandbox/container';
import { makeOwnedTempDir } from '../../../native/util/temp-dirs';
import { LabError } from '../../ipc/common/errors';
import { decodeText, filesUnder, findFile, type Task, type TaskFile, type TaskImageSource } from '../tasks/model';
import { removeTree } from '../tasks/snapshot';
import { writeFiles } from '../tasks/write-folder';
import { fromLines, rewriteDockerfile } from './dockerfile-rewrite';
import type { ContainerSettings } from './settings';

/** Bump when the way images are built changes, so that cached builds are not reused across it. */
const BUILD_FORMAT = 't1lab-build-1';

export interface Substitution {
  from: string;
  to: string;
  why: string;
}

export interface ResolvedImage {
  ref: string;
  /** local: docker_image found; pulled; built: built now; cached: built earlier (same content hash); base: the lab's base image for a task without one. */
  source: 'local' | 'pulled' | 'built' | 'cached' | 'base';
  /** FROM images replaced through the base-image map (non-empty = fidelity caveat). */
  substitutions: Substitution[];
  /** The image's final WORKDIR ('' = none). */
  workdir: string;
  user: string;
  durationMs: number;
  /** Whether the image is the task's own environment (false: the base image plus the task's files and setup.sh). */
  taskImage: boolean;
}

export interface ResolveHooks {
  onOutput?(text: string): void;
  onStage?(stage: string): void;
}

const pulls = new Map<string, Promise<boolean>>();

async function availableLocally(
  engine: EngineName,
  ref: string,
  settings: ContainerSettings,
): Promise<{ ok: boolean; pulled: boolean; detail: string }> {
  if (await inspectImage(engine, ref)) return { ok: true, pulled: false, detail: 'local' };
  if (!settings.pull) return { ok: false, pulled: false, detail: 'not local, and pulling is off' };
  let p = pulls.get(ref);
  if (!p) {
    p = pullImage(engine, ref, 60_000).then((r) => r.ok);
    pulls.set(ref, p);
  }
  return (await p)
    ? { ok: true, pulled: true, detail: 'pulled' }
    : { ok: false, pulled: false, detail: 'not local and cannot be pulled' };
}

export function imageTagFor(taskId: string, hash: string): string {
  const name =
    taskId
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, '-')
      .replace(/^[^a-z0-9]+/, '')
      .slice(0, 100) || 'task';
  return `localhost/t1lab-task-${name}:${hash.slice(0, 16)}`;
}

/** What the resolution decided, before the image is inspected for its WORKDIR and USER. */
type ImageChoice = Pick<ResolvedImage, 'ref' | 'source' | 'substitutions' | 'taskImage'>;

const MAPPED = 'mapped by the base-image map';

export async function resolveTaskImage(
  task: Task,
  settings: ContainerSettings,
  hooks: ResolveHooks = {},
): Promise<ResolvedImage> {
  const started = performance.now();
  const source = task.environment.image ?? null;
  if (source?.problem)
    throw new LabError('UNAVAILABLE', `task '${task.id}' cannot run in a container: ${source.problem}`);
  const choice = !source
    ? await baseImageChoice(task, settings)
    : ((await declaredImageChoice(task, source, settings, hooks)) ??
      (await dockerfileImageChoice(task, source, settings, hooks)));
  return describeImage(settings.engine, choice, started);
}

/** The chosen image with its WORKDIR and USER, and how long the resolution took. */
async function describeImage(engine: EngineName, choice: ImageChoice, started: number): Promise<ResolvedImage> {
  const info = await inspectImage(engine, choice.ref);
  if (!info) throw new LabError('UNAVAILABLE', `image ${choice.ref} is missing after it was resolved`);
  return {
    ref: choice.ref,
    source: choice.source,
    substitutions: choice.substitutions,
    workdir: info.workdir,
    user: info.user,
    durationMs: Math.round(performance.now() - started),
    taskImage: choice.taskImage,
  };
}

/** A task without an image of its own runs on the base image (`*` in the map, else the lab's base). */
async function baseImageChoice(task: Task, settings: ContainerSettings): Promise<ImageChoice> {
  const base = settings.baseImages['*'] ?? DEFAULT_BASE_TAG;
  if (!(await inspectImage(settings.engine, base))) {
    throw new LabError(
      'UNAVAILABLE',
      `task '${task.id}' has no image of its own and the base image ${base} is missing; build it with \`t1lab images base\` (or map "*" to a local image)`,
    );
  }
  return { ref: base, source: 'base', substitutions: [], taskImage: false };
}

/**
 * The task's `docker_image` when it is local or pullable (or, without a Dockerfile, its mapping in the
 * base-image map); null when the Dockerfile is to be built instead.
 */
async function declaredImageChoice(
  task: Task,
  source: TaskImageSource,
  settings: ContainerSettings,
  hooks: ResolveHooks,
): Promise<ImageChoice | null> {
  if (!source.dockerImage) return null;
  hooks.onStage?.(`looking for ${source.dockerImage}`);
  const mapped = settings.baseImages[source.dockerImage];
  const have = mapped ? null : await availableLocally(settings.engine, source.dockerImage, settings);
  if (have?.ok)
    return { ref: source.dockerImage, source: have.pulled ? 'pulled' : 'local', substitutions: [], taskImage: true };
  if (source.dockerfile) return null;
  if (mapped)
    return {
      ref: mapped,
      source: 'local',
      substitutions: [{ from: source.dockerImage, to: mapped, why: MAPPED }],
      taskImage: true,
    };
  throw new LabError(
    'UNAVAILABLE',
    `task '${task.id}': image ${source.dockerImage} is not here, cannot be pulled, and the task ships no Dockerfile to build it from`,
  );
}

/** The task's Dockerfile built (its FROM images substituted where needed), or found built under its content hash. */
async function dockerfileImageChoice(
  task: Task,
  source: TaskImageSource,
  settings: ContainerSettings,
  hooks: ResolveHooks,
): Promise<ImageChoice> {
  const dockerfilePath = source.dockerfile as string;
  const dockerfile = decodeText(findFile(task, dockerfilePath)?.data ?? new Uint8Array()) ?? '';
  const { replace, substitutions } = await substituteFromImages(task, dockerfilePath, dockerfile, settings, hooks);
  const text = rewriteDockerfile(dockerfile, replace, { verifierLayer: true });
  const context = contextFiles(task, source.contextDir);
  const tag = imageTagFor(task.id, await buildHash(settings.engine, text, replace, context));
  if (await inspectImage(settings.engine, tag)) return { ref: tag, source: 'cached', substitutions, taskImage: true };
  await buildTaskImage(task, settings.engine, { tag, text, context, dockerfilePath, substitutions }, hooks);
  return { ref: tag, source: 'built', substitutions, taskImage: true };
}

/** FROM images: mapped ones are substituted; others must be local or pullable, else "*" stands in. */
async function substituteFromImages(
  task: Task,
  dockerfilePath: string,
  dockerfile: string,
  settings: ContainerSettings,
  hooks: ResolveHooks,
): Promise<{ replace: Map<string, string>; substitutions: Substitution[] }> {
  const substitutions: Substitution[] = [];
  const replace = new Map<string, string>();
  for (const f of fromLines(dockerfile)) {
    if (replace.has(f.image)) continue;
    const mapped = settings.baseImages[f.image];
    if (mapped) {
      replace.set(f.image, mapped);
      substitutions.push({ from: f.image, to: mapped, why: MAPPED });
      continue;
    }
    hooks.onStage?.(`looking for ${f.image}`);
    const have = await availableLocally(settings.engine, f.image, settings);
    if (have.ok) continue;
    const fallback = settings.baseImages['*'];
    if (!fallback) {
      throw new LabError(
        'UNAVAILABLE',
        `task '${task.id}': ${dockerfilePath} line ${f.line}: FROM ${f.image} is ${have.detail}; map it to a local image with --base-image ${f.image}=IMAGE (or "*": every such image) — \`t1lab images base\` builds a Debian one`,
      );
    }
    replace.set(f.image, fallback);
    substitutions.push({ from: f.image, to: fallback, why: `${have.detail}; "*" in the base-image map` });
  }
  return { replace, substitutions };
}

/** The content hash a build is cached under: the rewritten Dockerfile, its substituted bases (by image id) and the context. */
async function buildHash(
  engine: EngineName,
  text: string,
  replace: Map<string, string>,
  context: TaskFile[],
): Promise<string> {
  const hash = createHash('sha256').update(BUILD_FORMAT).update('\0').update(text).update('\0');
  for (const [to] of replace) hash.update(`${to}\0`);
  for (const to of new Set(replace.values())) hash.update(`${(await inspectImage(engine, to))?.id ?? to}\0`);
  for (const f of [...context].sort((a, b) => (a.path < b.path ? -1 : 1)))
    hash
      .update(`${f.path}\0${f.executable ? 1 : 0}\0`)
      .update(f.data)
      .update('\0');
  return hash.digest('hex');
}

/** Builds the rewritten Dockerfile over the context in a temporary folder; a failed build throws its log's tail. */
async function buildTaskImage(
  task: Task,
  engine: EngineName,
  build: { tag: string; text: string; context: TaskFile[]; dockerfilePath: string; substitutions: Substitution[] },
  hooks: ResolveHooks,
): Promise<void> {
  const { tag, substitutions } = build;
  hooks.onStage?.(`building ${tag}`);
  const dir = await makeOwnedTempDir('context');
  try {
    await mkdir(join(dir, 'ctx'));
    await writeFiles(join(dir, 'ctx'), build.context);
    const built = await buildImage(engine, {
      contextDir: join(dir, 'ctx'),
      dockerfile: build.text,
      tag,
      labels: { [LABEL_KIND]: 'task', 't1lab.task': task.id },
      onOutput: hooks.onOutput,
    });
    if (!built.ok) {
      const tail = built.log.trim().split('\n').slice(-15).join('\n');
      throw new LabError(
        'UNAVAILABLE',
        `task '${task.id}': building ${build.dockerfilePath} failed${substitutions.length ? ` (with ${substitutions.map((s) => `${s.from} -> ${s.to}`).join(', ')})` : ''}:\n${tail}`,
        { log: built.log },
      );
    }
  } finally {
    await removeTree(dir);
  }
}

/** The build context: every task file under `contextDir` ('' = the task root, TB1), with paths relative to it. */
function contextFiles(task: Task, contextDir: string): TaskFile[] {
  return contextDir ? filesUnder(task, contextDir) : task.files;
}
