/**
 * A loaded task, whatever it was loaded from (Harbor folder, legacy TB1 folder, pack line): plain data with
 * every file in memory, so that the same task runs the same way from a folder or a pack.
 */
import { z } from 'zod';
import { Difficulty, TaskLayout, TaskProblem, TaskRuntime } from '../../domain/tasks';

export const TaskFile = z.object({
  /** Relative POSIX path inside the task, checked by `taskPathProblem`. */
  path: z.string(),
  data: z.custom<Uint8Array>((v) => v instanceof Uint8Array, 'must be bytes'),
  executable: z.boolean(),
});
export type TaskFile = z.infer<typeof TaskFile>;

export const TaskOrigin = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('folder'), path: z.string() }),
  z.object({ kind: z.literal('pack'), path: z.string(), line: z.number().int() }),
]);
export type TaskOrigin = z.infer<typeof TaskOrigin>;

export const TaskAssertion = z.object({ name: z.string(), run: z.string(), timeoutSec: z.number().nullable() });
export type TaskAssertion = z.infer<typeof TaskAssertion>;

export const TaskSolution = z.discriminatedUnion('kind', [
  /** A script run with bash (solution/solve.sh, TB1 solution.sh). */
  z.object({ kind: z.literal('script'), path: z.string() }),
  /** TB1's solution.yaml: commands typed one by one. */
  z.object({ kind: z.literal('commands'), path: z.string(), commands: z.array(z.string()) }),
]);
export type TaskSolution = z.infer<typeof TaskSolution>;

/** Where the task's container image comes from (image-source.ts); null when it has none. */
export const TaskImageSource = z.object({
  /** [environment].docker_image (or a compose service's image), used when present locally or pullable. */
  dockerImage: z.string().nullable(),
  /** The Dockerfile to build otherwise (a task file path). */
  dockerfile: z.string().nullable(),
  /** Its build context: a folder of the task ('' = the task root). */
  contextDir: z.string(),
  /** Why no image can be made for it (a multi-service compose file, ...), or null. */
  problem: z.string().nullable(),
});
export type TaskImageSource = z.infer<typeof TaskImageSource>;

export const Task = z.object({
  id: z.string(),
  layout: TaskLayout,
  origin: TaskOrigin,
  instruction: z.string(),
  metadata: z.object({
    category: z.string(),
    difficulty: Difficulty.nullable(),
    tags: z.array(z.string()),
    /** Everything else in [metadata] (author, time estimates, ...), as written. */
    extra: z.record(z.string(), z.unknown()),
  }),
  agent: z.object({ timeoutSec: z.number() }),
  verifier: z.object({
    timeoutSec: z.number(),
    env: z.record(z.string(), z.string()),
    /** tests/test.sh (TB1: run-tests.sh), or null. */
    testScript: z.string().nullable(),
    /** Whether the verifier runs the test script (see FORMAT.md for when it does not). */
    runTestScript: z.boolean(),
    /** tests/test_outputs.py when present: run with the system pytest and --junitxml. */
    pytest: z.string().nullable(),
    assertions: z.array(TaskAssertion),
  }),
  environment: z.object({
    cpus: z.number(),
    memoryMb: z.number(),
    storageMb: z.number(),
    allowInternet: z.boolean(),
    workdir: z.string(),
    env: z.record(z.string(), z.string()),
    requires: z.array(z.string()),
    runtime: TaskRuntime,
    /** environment/setup.sh, or null. */
    setup: z.string().nullable(),
    /** Deadline of setup.sh ([environment].build_timeout_sec), or null for the default. */
    setupTimeoutSec: z.number().nullable(),
    /** The task's own image, for the container backends (additive; absent = none). */
    image: TaskImageSource.nullable().optional(),
    /** Where the agent's shell and the oracle start when not the workdir (a later Dockerfile WORKDIR; additive). */
    startDir: z.string().nullable().optional(),
    /** Commands provided by name in the sandbox (`python` -> /usr/bin/python3 for python base images; additive). */
    commandAliases: z.record(z.string(), z.string()).optional(),
  }),
  solution: TaskSolution.nullable(),
  solutionEnv: z.record(z.string(), z.string()),
  files: z.array(TaskFile),
  /** Problems that did not stop the task from loading. */
  warnings: z.array(TaskProblem),
});
export type Task = z.infer<typeof Task>;

/** Where in a task things live (Harbor layout; FORMAT.md). */
export const TASK_PATHS = {
  toml: 'task.toml',
  instruction: 'instruction.md',
  environmentDir: 'environment',
  filesDir: 'environment/files',
  setup: 'environment/setup.sh',
  dockerfile: 'environment/Dockerfile',
  solve: 'solution/solve.sh',
  testsDir: 'tests',
  testSh: 'tests/test.sh',
  pytest: 'tests/test_outputs.py',
} as const;

/** Legacy Terminal-Bench 1 layout. */
export const TB1_PATHS = {
  yaml: 'task.yaml',
  solutionSh: 'solution.sh',
  solutionYaml: 'solution.yaml',
  runTests: 'run-tests.sh',
  dockerfile: 'Dockerfile',
  compose: 'docker-compose.yaml',
} as const;

// ignoreBOM keeps a leading BOM in the text, so that text -> bytes round-trips exactly (packs rely on it).
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

export function decodeText(data: Uint8Array): string | null {
  try {
    return utf8.decode(data);
  } catch {
    return null;
  }
}

export function findFile(task: Pick<Task, 'files'>, path: string): TaskFile | undefined {
  return task.files.find((f) => f.path === path);
}

export function fileText(task: Pick<Task, 'files'>, path: string): string | null {
  const file = findFile(task, path);
  return file ? decodeText(file.data) : null;
}

/** Files under `dir/`, with their paths relative to it. */
export function filesUnder(task: Pick<Task, 'files'>, dir: string): TaskFile[] {
  const prefix = `${dir}/`;
  return task.files.filter((f) => f.path.startsWith(prefix)).map((f) => ({ ...f, path: f.path.slice(prefix.length) }));
}

export function taskBytes(task: Pick<Task, 'files'>): number {
  return task.files.reduce((sum, f) => sum + f.data.byteLength, 0);
}

/** The first non-empty line of the instruction, without Markdown heading marks, for lists. */
export function taskTitle(task: Pick<Task, 'instruction'>): string {
  const line = task.instruction.split('\n').find((l) => l.trim().length > 0) ?? '';
  const title = line.replace(/^#+\s*/, '').trim();
  return title.length > 120 ? `${title.slice(0, 117)}...` : title;
}
