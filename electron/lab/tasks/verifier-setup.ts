/**
 * What a sandboxed verifier run has before its first step, shared by the cold start (verifier.ts) and the
 * warm one (warm-verifier.ts): its folders, the pristine read-only /tests, its mounts and environment, the
 * way the task's test script is run, and the lab's own pytest command.
 */
import { chmod, mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Mount } from '../../../native/sandbox/types';
import { offlineTestScript, withPytestFunction } from './import/offline-tests';
import { fileText, filesUnder, findFile, TASK_PATHS, type Task, type TaskFile } from './model';
import { VERIFIER_LOGS_DIR, VERIFIER_TESTS_DIR } from './sandbox-spec';
import { writeFiles } from './write-folder';

/** The system python (Debian's python3-pytest), never one the workspace could put first on PATH. */
export const SYSTEM_PYTHON = '/usr/bin/python3';
/** How verifier steps run bash: no profile or rc file the workspace could plant. */
export const VERIFIER_BASH = ['bash', '--noprofile', '--norc'];

export type ContainerMode =
  | { kind: 'test-sh'; why: string }
  | { kind: 'offline-script'; script: string; why: string }
  | { kind: 'pytest'; why: string };

/** A verifier's temp folder: workspace/ (the snapshot), tests/ (the pristine copy), logs/ (its /logs/verifier). */
export interface VerifierDirs {
  root: string;
  work: string;
  tests: string;
  logs: string;
}

export function verifierDirs(root: string): VerifierDirs {
  return { root, work: join(root, 'workspace'), tests: join(root, 'tests'), logs: join(root, 'logs') };
}

/** tests/ written (a container's stays writable: a fresh copy per run, Harbor's) and an empty logs/. */
export async function writeVerifierInputs(task: Task, dirs: VerifierDirs): Promise<void> {
  await writeFiles(dirs.tests, testFiles(task), { readOnly: false });
  await mkdir(dirs.logs);
}

export function verifierMounts(dirs: VerifierDirs): Mount[] {
  return [
    { host: dirs.tests, sandbox: VERIFIER_TESTS_DIR, readOnly: true },
    { host: dirs.logs, sandbox: VERIFIER_LOGS_DIR, readOnly: false },
  ];
}

export function verifierEnv(task: Task): Record<string, string> {
  return { TEST_DIR: VERIFIER_TESTS_DIR, PYTHONDONTWRITEBYTECODE: '1', ...task.verifier.env };
}

/**
 * In the sandbox, a test script the lab does not run as written (it installs pytest from the network) still
 * has its other steps run, in order, with the system pytest in place of the installed one (FORMAT.md).
 */
export function sandboxMode(task: Task): ContainerMode | null {
  const script = task.verifier.testScript;
  if (!script || task.verifier.runTestScript || !task.verifier.pytest) return null;
  const text = fileText(task, script);
  const offline = text === null ? null : offlineTestScript(text);
  if (!offline?.ok) return null;
  return {
    kind: 'offline-script',
    script: withPytestFunction(offline.script, [SYSTEM_PYTHON], `${VERIFIER_LOGS_DIR}/junit.xml`),
    why: `${script} without its ${offline.dropped.length} install step(s), the system pytest in place of the installed one`,
  };
}

/** A sandboxed verifier whose first step is the lab's pytest run (no test script before it). */
export function pytestRunsFirst(task: Task): boolean {
  if (!task.verifier.pytest) return false;
  if (sandboxMode(task)) return false;
  return !(task.verifier.testScript && task.verifier.runTestScript);
}

/** The lab's pytest run of tests/test_outputs.py: its arguments after `python -m pytest`. */
export function labPytestArgs(task: Task): string[] {
  return [
    inSandboxTests(task.verifier.pytest as string),
    `--rootdir=${VERIFIER_TESTS_DIR}`,
    '-p',
    'no:cacheprovider',
    `--junitxml=${VERIFIER_LOGS_DIR}/junit.xml`,
    '-rA',
    '--color=no',
  ];
}

/** The pristine /tests: tests/ as shipped, plus TB1's run-tests.sh beside them. */
function testFiles(task: Task): TaskFile[] {
  const files = filesUnder(task, TASK_PATHS.testsDir);
  const script = task.verifier.testScript;
  if (script && !script.startsWith(`${TASK_PATHS.testsDir}/`)) {
    const file = findFile(task, script) as TaskFile;
    if (!files.some((f) => f.path === script)) files.push({ ...file, path: script });
  }
  return files;
}

export function inSandboxTests(script: string): string {
  return `${VERIFIER_TESTS_DIR}/${script.startsWith(`${TASK_PATHS.testsDir}/`) ? script.slice(TASK_PATHS.testsDir.length + 1) : script}`;
}

export async function makeReadOnly(dir: string): Promise<void> {
  for (const e of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) await makeReadOnly(path);
    else if (e.isFile()) await chmod(path, (await stat(path)).mode & 0o555);
  }
}
