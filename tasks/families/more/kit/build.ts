/**
 * Assembles a GeneratedTask from a family's parts: the instruction, workspace files, set-up, oracle and
 * verifier (inline assertions and/or pytest), and writes task.toml with the [metadata] the synthesizer
 * reads. The id ends in a hash of the task's content, so two seeds with different content never share an
 * id and equal content always does. expectedCommands is the oracle split the way the harness types it.
 */
import { createHash } from 'node:crypto';
import { typedCommands } from '../../../../electron/lab/tasks/shell-split';
import type { Difficulty, FamilyFile, FamilyRng, GeneratedTask, Split, TbCategory } from '../../types';
import { CHECK_PY } from './check';

export interface Assertion {
  name: string;
  /** bash, run in the workdir by the verifier; exit 0 = passed. */
  run: string;
  timeoutSec?: number;
}

export interface TaskParts {
  family: { name: string; category: TbCategory };
  difficulty: Difficulty;
  split: Split;
  instruction: string;
  /** Workspace files (copied to /app before the agent starts), by path relative to the workspace. */
  files: Record<string, string>;
  /** Workspace paths that are executable. */
  executables?: string[];
  /** Body of environment/setup.sh (runs in /app), if any. */
  setup?: string;
  /** Body of solution/solve.sh after `set -euo pipefail` and `cd /app`. */
  solve: string;
  assertions?: Assertion[];
  /** tests/test_outputs.py, if any. */
  pytest?: string;
  /** Files the verifier reads from /tests/expected/ (never visible to the agent). */
  expected?: Record<string, string>;
  tags: string[];
  agentTimeoutSec?: number;
  verifierTimeoutSec?: number;
  /** Commands the task needs on this machine beyond coreutils/python3 (checked before running). */
  requires?: string[];
  /** [environment].env, for the agent's shell, set-up and the oracle. */
  env?: Record<string, string>;
}

/** A TOML basic string: JSON's escapes (\" \\ \n \t \uXXXX) are all valid TOML. */
export function tomlString(s: string): string {
  return JSON.stringify(s);
}

function tomlInlineTable(env: Record<string, string>): string {
  return `{ ${Object.entries(env)
    .map(([k, v]) => `${k} = ${tomlString(v)}`)
    .join(', ')} }`;
}

export const SOLVE_PREAMBLE = '#!/bin/bash\nset -euo pipefail\ncd /app\n';

/** Long-horizon tasks are those whose oracle needs at least this many typed commands. */
export const LONG_HORIZON_COMMANDS = 20;

export function buildFamilyTask(parts: TaskParts): GeneratedTask {
  const solve = `${SOLVE_PREAMBLE}${parts.solve.trim()}\n`;
  const expectedCommands = typedCommands(solve).length;
  const assertions = parts.assertions ?? [];
  const names = new Set<string>();
  for (const a of assertions) {
    if (names.has(a.name)) throw new Error(`${parts.family.name}: duplicate assertion name '${a.name}'`);
    names.add(a.name);
  }
  if (assertions.length === 0 && !parts.pytest) throw new Error(`${parts.family.name}: a task needs a verifier`);
  const longHorizon = expectedCommands >= LONG_HORIZON_COMMANDS;
  const toml = [
    'version = "1.0"',
    '',
    '[metadata]',
    `family = ${tomlString(parts.family.name)}`,
    `category = ${tomlString(parts.family.category)}`,
    `difficulty = ${tomlString(parts.difficulty)}`,
    `expected_commands = ${expectedCommands}`,
    `split = ${tomlString(parts.split)}`,
    `tags = [${parts.tags.map(tomlString).join(', ')}]`,
    ...(longHorizon ? ['long_horizon = true'] : []),
    '',
    '[agent]',
    `timeout_sec = ${parts.agentTimeoutSec ?? (longHorizon ? 1800 : 600)}`,
    '',
    '[verifier]',
    `timeout_sec = ${parts.verifierTimeoutSec ?? 120}`,
    'env = { LC_ALL = "C.UTF-8" }',
    '',
    '[environment]',
    'storage_mb = 256',
    ...(parts.env ? [`env = ${tomlInlineTable(parts.env)}`] : []),
    ...(parts.requires?.length ? [`requires = [${parts.requires.map(tomlString).join(', ')}]`] : []),
    ...assertions.flatMap((a) => ['', '[[verifier.assertions]]', `name = ${tomlString(a.name)}`, `run = ${tomlString(a.run)}`, ...(a.timeoutSec ? [`timeout_sec = ${a.timeoutSec}`] : [])]),
    '',
  ].join('\n');

  const executables = new Set(parts.executables ?? []);
  const files: FamilyFile[] = [
    { path: 'instruction.md', text: `${parts.instruction.trim()}\n` },
    { path: 'task.toml', text: toml },
    { path: 'solution/solve.sh', text: solve, executable: true },
    ...Object.entries(parts.files).map(([path, text]) => ({ path: `environment/files/${path}`, text, ...(executables.has(path) ? { executable: true } : {}) })),
  ];
  if (parts.setup) files.push({ path: 'environment/setup.sh', text: `#!/bin/bash\nset -euo pipefail\n${parts.setup.trim()}\n`, executable: true });
  if (parts.pytest) files.push({ path: 'tests/test_outputs.py', text: parts.pytest });
  const expected = Object.entries(parts.expected ?? {});
  if (expected.length || assertions.some((a) => a.run.includes('/tests/check.py'))) files.push({ path: 'tests/check.py', text: CHECK_PY });
  for (const [path, text] of expected) files.push({ path: `tests/expected/${path}`, text });
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  const hash = createHash('sha256');
  for (const f of files) hash.update(`${f.path}\0${f.text}\0`);
  return { id: `${parts.family.name}-${hash.digest('hex').slice(0, 10)}`, files, difficulty: parts.difficulty, expectedCommands };
}

/**
 * One of a family's phrasings. The last phrasing is kept for the eval split (in-distribution held-out
 * suites see a wording training never did); train draws among the others.
 */
export function phrase(rng: FamilyRng, split: Split, variants: readonly string[]): string {
  if (variants.length < 2) throw new Error('a family needs at least two phrasings');
  return split === 'eval' ? variants[variants.length - 1]! : rng.pick(variants.slice(0, -1));
}

/** Single-quote a string for bash. */
export function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** An assertion that runs a python snippet (it must exit non-zero / raise to fail). */
export function pyCheck(name: string, code: string): Assertion {
  return { name, run: `python3 -c ${shq(code)}` };
}

/** Checks through tests/check.py (see check.ts for the verbs). */
export function check(name: string, ...args: string[]): Assertion {
  return { name, run: `python3 /tests/check.py ${args.map(shq).join(' ')}` };
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
