/**
 * Files -> Task: understands the Harbor layout (with our extensions) and the legacy TB1 layout, validates
 * everything, and reports each problem with its file, field and reason. The same code serves folders and
 * pack lines, so a task behaves the same from both.
 */
import { imageSource } from './image-source';
import type { TaskProblem, TaskRuntime } from '../../domain/tasks';
import {
  parseSolutionYaml,
  parseTaskYaml,
  TB1_DEFAULT_AGENT_TIMEOUT_SEC,
  TB1_DEFAULT_TEST_TIMEOUT_SEC,
} from './config/task-yaml';
import {
  DEFAULT_CPUS,
  DEFAULT_MEMORY_MB,
  DEFAULT_STORAGE_MB,
  DEFAULT_WORKDIR,
  parseTaskToml,
  sizeToMb,
  type TaskToml,
} from './config/task-toml';
import {
  decodeText,
  TASK_PATHS,
  TB1_PATHS,
  type Task,
  type TaskFile,
  type TaskOrigin,
  type TaskSolution,
} from './model';
import { Problems } from './problems';

export interface BuildResult {
  task: Task | null;
  /** Errors (task is null) and warnings (also in task.warnings). */
  problems: TaskProblem[];
}

/** Build a task from its files (already checked for paths, symlinks and sizes by the reader). */
export function buildTask(
  id: string,
  files: TaskFile[],
  origin: TaskOrigin,
  inherited: TaskProblem[] = [],
): BuildResult {
  const problems = new Problems();
  problems.list.push(...inherited);
  const byPath = new Map(files.map((f) => [f.path, f]));
  const text = (path: string): string | null => {
    const f = byPath.get(path);
    if (!f) return null;
    const t = decodeText(f.data);
    if (t === null) problems.error(path, null, 'is not valid UTF-8 text');
    return t;
  };

  let task: Task | null = null;
  if (byPath.has(TASK_PATHS.toml)) task = buildHarbor(id, byPath, origin, problems, text);
  else if (byPath.has(TB1_PATHS.yaml)) task = buildTb1(id, byPath, origin, problems, text);
  else if (byPath.has(TASK_PATHS.instruction))
    problems.error(TASK_PATHS.toml, null, 'missing: a Harbor task needs task.toml next to instruction.md');
  else problems.error('.', null, 'not a task: no task.toml (Harbor layout) or task.yaml (Terminal-Bench 1 layout)');

  if (problems.hasErrors || !task) return { task: null, problems: problems.list };
  task.warnings = problems.list.filter((p) => p.severity === 'warning');
  return { task, problems: problems.list };
}

type TextOf = (path: string) => string | null;

function buildHarbor(
  id: string,
  files: Map<string, TaskFile>,
  origin: TaskOrigin,
  problems: Problems,
  text: TextOf,
): Task | null {
  const instruction = text(TASK_PATHS.instruction);
  if (!files.has(TASK_PATHS.instruction))
    problems.error(TASK_PATHS.instruction, null, 'missing: the task needs an instruction');
  else if (instruction !== null && instruction.trim() === '') problems.error(TASK_PATHS.instruction, null, 'is empty');

  const tomlText = text(TASK_PATHS.toml);
  if (tomlText === null) return null;
  const parsed = parseTaskToml(tomlText);
  if (!parsed.ok) {
    if (parsed.syntax) problems.error(TASK_PATHS.toml, null, parsed.syntax);
    if (parsed.issues) problems.fromZod(TASK_PATHS.toml, parsed.issues);
    return null;
  }
  const config = parsed.value;
  const metadata = splitMetadata(config.metadata, TASK_PATHS.toml, 'metadata.', problems);

  const assertions = (config.verifier.assertions ?? []).map((a) => ({
    name: a.name,
    run: a.run,
    timeoutSec: a.timeout_sec ?? null,
  }));
  const seen = new Set<string>();
  assertions.forEach((a, i) => {
    if (seen.has(a.name))
      problems.error(TASK_PATHS.toml, `verifier.assertions[${i}].name`, `duplicate assertion name '${a.name}'`);
    seen.add(a.name);
  });

  const testScript = files.has(TASK_PATHS.testSh) ? TASK_PATHS.testSh : null;
  const runTestScript = testScript !== null && config.verifier.use_test_sh !== false;
  const pytest = files.has(TASK_PATHS.pytest) ? TASK_PATHS.pytest : null;
  if (config.verifier.use_test_sh === true && !testScript)
    problems.error(TASK_PATHS.toml, 'verifier.use_test_sh', 'is true but tests/test.sh does not exist');
  if (!runTestScript && !pytest && assertions.length === 0) {
    problems.error(
      TASK_PATHS.testsDir,
      null,
      testScript
        ? 'no verifier: tests/test.sh is disabled (use_test_sh = false) and there is no tests/test_outputs.py or [[verifier.assertions]]'
        : 'no verifier: add tests/test.sh, tests/test_outputs.py or [[verifier.assertions]] in task.toml',
    );
  }
  for (const script of [TASK_PATHS.testSh, TASK_PATHS.pytest, TASK_PATHS.solve, TASK_PATHS.setup])
    if (files.has(script)) text(script);

  const env = config.environment;
  const solution: TaskSolution | null = files.has(TASK_PATHS.solve) ? { kind: 'script', path: TASK_PATHS.solve } : null;
  if (!solution)
    problems.warning(
      TASK_PATHS.solve,
      null,
      'missing: without an oracle solution the task cannot be audited (verdict no-oracle)',
    );

  return {
    id,
    layout: 'harbor',
    origin,
    instruction: instruction ?? '',
    metadata,
    agent: { timeoutSec: config.agent.timeout_sec },
    verifier: {
      timeoutSec: config.verifier.timeout_sec,
      env: config.verifier.env ?? {},
      testScript,
      runTestScript,
      pytest,
      assertions,
    },
    environment: {
      cpus: env.cpus ?? DEFAULT_CPUS,
      memoryMb: env.memory_mb ?? (env.memory ? sizeToMb(env.memory) : DEFAULT_MEMORY_MB),
      storageMb: env.storage_mb ?? (env.storage ? sizeToMb(env.storage) : DEFAULT_STORAGE_MB),
      allowInternet: env.allow_internet ?? false,
      workdir: env.workdir ?? DEFAULT_WORKDIR,
      env: env.env ?? {},
      requires: env.requires ?? [],
      runtime: harborRuntime(config, files),
      setup: files.has(TASK_PATHS.setup) ? TASK_PATHS.setup : null,
      setupTimeoutSec: env.build_timeout_sec ?? null,
      image: imageSource(files, env.docker_image ?? null, 'harbor'),
      startDir: env.start_dir ?? null,
      commandAliases: env.command_aliases ?? {},
    },
    solution,
    solutionEnv: config.solution.env ?? {},
    files: [...files.values()],
    warnings: [],
  };
}

function harborRuntime(config: TaskToml, files: Map<string, TaskFile>): TaskRuntime {
  const env = config.environment;
  if (env.runtime === 'sandbox') return { kind: 'sandbox' };
  if (env.runtime === 'container')
    return { kind: 'container', reason: env.container_reason ?? 'task.toml declares runtime = "container"' };
  if (env.docker_image)
    return { kind: 'container', reason: `uses the prebuilt image '${env.docker_image}' (environment.docker_image)` };
  if ((env.gpus ?? 0) > 0)
    return {
      kind: 'container',
      reason: `needs ${env.gpus} GPU(s) (environment.gpus), which the sandbox does not provide`,
    };
  const compose = [
    'environment/docker-compose.yaml',
    'environment/docker-compose.yml',
    'environment/compose.yaml',
  ].find((p) => files.has(p));
  if (compose) return { kind: 'container', reason: `defines services in ${compose}` };
  if (files.has(TASK_PATHS.dockerfile)) {
    return {
      kind: 'container',
      reason:
        'is built from environment/Dockerfile; `t1lab tasks import-tb` converts simple Dockerfiles to a sandbox environment',
    };
  }
  return { kind: 'sandbox' };
}

function buildTb1(
  id: string,
  files: Map<string, TaskFile>,
  origin: TaskOrigin,
  problems: Problems,
  text: TextOf,
): Task | null {
  const yamlText = text(TB1_PATHS.yaml);
  if (yamlText === null) return null;
  const parsed = parseTaskYaml(yamlText);
  if (!parsed.ok) {
    if (parsed.syntax) problems.error(TB1_PATHS.yaml, null, parsed.syntax);
    if (parsed.issues) problems.fromZod(TB1_PATHS.yaml, parsed.issues);
    return null;
  }
  const config = parsed.value;
  const { instruction, difficulty, category, tags, max_agent_timeout_sec, max_test_timeout_sec, ...rest } = config;
  const metadata = splitMetadata({ ...rest, difficulty, category, tags }, TB1_PATHS.yaml, '', problems);

  const pytest = files.has(TASK_PATHS.pytest) ? TASK_PATHS.pytest : null;
  const testScript = files.has(TB1_PATHS.runTests) ? TB1_PATHS.runTests : null;
  if (!pytest && !testScript)
    problems.error(
      TB1_PATHS.runTests,
      null,
      'no verifier: a Terminal-Bench 1 task needs run-tests.sh or tests/test_outputs.py',
    );
  for (const script of [TB1_PATHS.runTests, TASK_PATHS.pytest, TB1_PATHS.solutionSh])
    if (files.has(script)) text(script);

  let solution: TaskSolution | null = null;
  if (files.has(TB1_PATHS.solutionSh)) solution = { kind: 'script', path: TB1_PATHS.solutionSh };
  else if (files.has(TB1_PATHS.solutionYaml)) {
    const yaml = text(TB1_PATHS.solutionYaml);
    const commands = yaml === null ? null : parseSolutionYaml(yaml);
    if (commands && !commands.ok) problems.error(TB1_PATHS.solutionYaml, null, commands.reason);
    else if (commands?.ok)
      solution = { kind: 'commands', path: TB1_PATHS.solutionYaml, commands: commands.value.map((c) => c.command) };
  } else
    problems.warning(
      TB1_PATHS.solutionSh,
      null,
      'missing: without an oracle solution the task cannot be audited (verdict no-oracle)',
    );

  const container = [TB1_PATHS.dockerfile, TB1_PATHS.compose, 'docker-compose.yml'].find((p) => files.has(p));
  return {
    id,
    layout: 'tb1',
    origin,
    instruction,
    metadata,
    agent: { timeoutSec: max_agent_timeout_sec ?? TB1_DEFAULT_AGENT_TIMEOUT_SEC },
    // TB1's run-tests.sh installs pytest from the network and runs tests/test_outputs.py; when that file
    // exists the verifier runs it with the system pytest instead (FORMAT.md, "Legacy layout").
    verifier: {
      timeoutSec: max_test_timeout_sec ?? TB1_DEFAULT_TEST_TIMEOUT_SEC,
      env: {},
      testScript,
      runTestScript: testScript !== null && !pytest,
      pytest,
      assertions: [],
    },
    environment: {
      cpus: DEFAULT_CPUS,
      memoryMb: DEFAULT_MEMORY_MB,
      storageMb: DEFAULT_STORAGE_MB,
      allowInternet: false,
      workdir: DEFAULT_WORKDIR,
      env: {},
      requires: [],
      runtime: container
        ? {
            kind: 'container',
            reason: `is built from ${container}; \`t1lab tasks import-tb\` converts simple ones to a sandbox environment`,
          }
        : { kind: 'sandbox' },
      setup: files.has(TASK_PATHS.setup) ? TASK_PATHS.setup : null,
      setupTimeoutSec: null,
      image: imageSource(files, null, 'tb1'),
      startDir: null,
    },
    solution,
    solutionEnv: {},
    files: [...files.values()],
    warnings: [],
  };
}

function splitMetadata(
  raw: Record<string, unknown>,
  file: string,
  prefix: string,
  problems: Problems,
): Task['metadata'] {
  const { category, difficulty, tags, ...extra } = raw as {
    category?: string;
    difficulty?: Task['metadata']['difficulty'];
    tags?: string[];
  };
  if (!category) problems.warning(file, `${prefix}category`, "missing; the task is listed as 'uncategorized'");
  if (!difficulty) problems.warning(file, `${prefix}difficulty`, 'missing (expected easy, medium or hard)');
  return { category: category ?? 'uncategorized', difficulty: difficulty ?? null, tags: tags ?? [], extra };
}
