/**
 * The one task builder of both family sets (core/, scenarios/): from a family's parts it writes instruction.md,
 * task.toml with the [metadata] the synthesizer reads, solution/solve.sh, the workspace files, set-up and
 * verifier, and names the task. What differs between the sets (solve.sh's first lines, timeouts, storage,
 * ids from the seed or from the content) is a `TaskConventions` value, not a second builder.
 * expectedCommands is the oracle split the way the harness types it.
 */
import { createHash } from 'node:crypto';
import { typedCommands } from '../../../native/util/shell-split';
import type { Difficulty, FamilyFile, FamilyRng, GeneratedTask, Split, TbCategory } from '../types';
import { CHECK_PY } from './check';

export interface Assertion {
  name: string;
  /** bash, run in the workdir by the verifier; exit 0 = passed. Must fail on the untouched workspace. */
  run: string;
  timeoutSec?: number;
}

export interface TaskParts {
  family: { name: string; category: TbCategory };
  difficulty: Difficulty;
  split: Split;
  /** The task's seed, written to [metadata] (and the id, where the conventions name tasks by seed). */
  seed?: number;
  instruction: string;
  /** The oracle's commands: solve.sh after the conventions' first lines; runs in /app. */
  solve: string;
  assertions?: Assertion[];
  /** Workspace files (copied to /app before the agent starts), by path relative to the workspace. */
  files?: Record<string, string>;
  /** Workspace paths that are executable. */
  executables?: string[];
  /** Body of environment/setup.sh (runs in /app), if any. */
  setup?: string;
  /** tests/test_outputs.py, if any. */
  pytest?: string;
  /** Files the verifier reads from /tests/expected/ (never visible to the agent). */
  expected?: Record<string, string>;
  tags?: string[];
  agentTimeoutSec?: number;
  verifierTimeoutSec?: number;
  /** Commands the task needs on this machine beyond coreutils/python3 (checked before running). */
  requires?: string[];
  /** [environment].env, for the agent's shell, set-up and the oracle. */
  env?: Record<string, string>;
}

/** A family set's defaults: everything the builder writes that is not a family's own content. */
export interface TaskConventions {
  /** solve.sh's first lines, before the oracle's commands. */
  solvePreamble: string;
  /** [agent].timeout_sec unless the family sets one. */
  agentTimeoutSec(difficulty: Difficulty, longHorizon: boolean): number;
  verifierTimeoutSec: number;
  /** [verifier].env, if any. */
  verifierEnv?: Record<string, string>;
  storageMb: number;
  /** 'seed': family name plus the seed in base 36; 'content': family name plus a hash of every file. */
  ids: 'seed' | 'content';
  /** Oracles of at least this many typed commands mark the task `long_horizon = true` (absent: never). */
  longHorizonCommands?: number;
  /** Above this many assertions (and without a pytest file of its own) the verifier is one pytest file, each assertion a test. */
  maxInlineAssertions?: number;
}

/** A TOML basic string: JSON's escapes (\" \\ \n \t \uXXXX) are all valid TOML. */
export function tomlString(s: string): string {
  return JSON.stringify(s);
}

function tomlInlineTable(table: Record<string, string>): string {
  return `{ ${Object.entries(table)
    .map(([k, v]) => `${k} = ${tomlString(v)}`)
    .join(', ')} }`;
}

/** Single-quote a string for bash: any text, quotes and newlines included, reaches the command unchanged. */
export function shq(s: string): string {
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/**
 * One of a family's phrasings. The last phrasing is kept for the eval split (in-distribution held-out
 * suites see a wording training never did); train draws among the others.
 */
export function phrase<T>(rng: FamilyRng, split: Split, variants: readonly T[]): T {
  if (variants.length < 2) throw new Error('a family needs at least two phrasings');
  return split === 'eval' ? variants[variants.length - 1]! : rng.pick(variants.slice(0, -1));
}

/** Assertions as pytest tests: each runs its bash check in /app; a comment carries the assertion's name. */
export function assertionsPytest(assertions: readonly Assertion[]): string {
  const ident = (name: string, i: number) =>
    `test_${String(i + 1).padStart(2, '0')}_${name
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, '_')
      .replace(/^_|_$/g, '')
      .slice(0, 60)}`;
  const lines = [
    'import subprocess',
    '',
    '',
    'def check(script):',
    '    r = subprocess.run(["bash", "--noprofile", "--norc", "-c", script], cwd="/app", capture_output=True, text=True, timeout=30)',
    '    assert r.returncode == 0, "check failed (exit %d): %s\\n%s%s" % (r.returncode, script, r.stdout, r.stderr)',
  ];
  assertions.forEach((c, i) =>
    lines.push(
      '',
      '',
      `def ${ident(c.name, i)}():`,
      `    # ${c.name.replace(/\n/g, ' ')}`,
      `    check(${JSON.stringify(c.run)})`,
    ),
  );
  return `${lines.join('\n')}\n`;
}

export function buildTask(conventions: TaskConventions, parts: TaskParts): GeneratedTask {
  const solve = `${conventions.solvePreamble}${parts.solve.trim()}\n`;
  const expectedCommands = typedCommands(solve).length;
  const assertions = parts.assertions ?? [];
  const names = new Set<string>();
  for (const a of assertions) {
    if (names.has(a.name)) throw new Error(`${parts.family.name}: duplicate assertion name '${a.name}'`);
    names.add(a.name);
  }
  if (assertions.length === 0 && !parts.pytest) throw new Error(`${parts.family.name}: a task needs a verifier`);
  // Many assertions become pytest tests (one verifier sandbox for all) rather than inline assertions (one each).
  const asPytest =
    conventions.maxInlineAssertions !== undefined &&
    assertions.length > conventions.maxInlineAssertions &&
    !parts.pytest;
  const longHorizon =
    conventions.longHorizonCommands !== undefined && expectedCommands >= conventions.longHorizonCommands;
  if (conventions.ids === 'seed' && parts.seed === undefined)
    throw new Error(`${parts.family.name}: tasks named by seed need the seed`);
  const toml = [
    'version = "1.0"',
    '',
    '[metadata]',
    `family = ${tomlString(parts.family.name)}`,
    `category = ${tomlString(parts.family.category)}`,
    `difficulty = ${tomlString(parts.difficulty)}`,
    `expected_commands = ${expectedCommands}`,
    `split = ${tomlString(parts.split)}`,
    ...(parts.seed !== undefined ? [`seed = ${parts.seed >>> 0}`] : []),
    `tags = [${(parts.tags ?? []).map(tomlString).join(', ')}]`,
    ...(longHorizon ? ['long_horizon = true'] : []),
    '',
    '[agent]',
    `timeout_sec = ${parts.agentTimeoutSec ?? conventions.agentTimeoutSec(parts.difficulty, longHorizon)}`,
    '',
    '[verifier]',
    `timeout_sec = ${parts.verifierTimeoutSec ?? conventions.verifierTimeoutSec}`,
    ...(conventions.verifierEnv ? [`env = ${tomlInlineTable(conventions.verifierEnv)}`] : []),
    '',
    '[environment]',
    `storage_mb = ${conventions.storageMb}`,
    ...(parts.env ? [`env = ${tomlInlineTable(parts.env)}`] : []),
    ...(parts.requires?.length ? [`requires = [${parts.requires.map(tomlString).join(', ')}]`] : []),
    ...(asPytest
      ? []
      : assertions.flatMap((a) => [
          '',
          '[[verifier.assertions]]',
          `name = ${tomlString(a.name)}`,
          `run = ${tomlString(a.run)}`,
          ...(a.timeoutSec ? [`timeout_sec = ${a.timeoutSec}`] : []),
        ])),
    '',
  ].join('\n');

  const executables = new Set(parts.executables ?? []);
  const files: FamilyFile[] = [
    { path: 'instruction.md', text: `${parts.instruction.trim()}\n` },
    { path: 'task.toml', text: toml },
    { path: 'solution/solve.sh', text: solve, executable: true },
    ...Object.entries(parts.files ?? {}).map(([path, text]) => ({
      path: `environment/files/${path}`,
      text,
      ...(executables.has(path) ? { executable: true } : {}),
    })),
  ];
  if (parts.setup)
    files.push({
      path: 'environment/setup.sh',
      text: `#!/bin/bash\nset -euo pipefail\n${parts.setup.trim()}\n`,
      executable: true,
    });
  if (parts.pytest) files.push({ path: 'tests/test_outputs.py', text: parts.pytest });
  else if (asPytest) files.push({ path: 'tests/test_outputs.py', text: assertionsPytest(assertions) });
  const expected = Object.entries(parts.expected ?? {});
  if (expected.length || assertions.some((a) => a.run.includes('/tests/check.py')))
    files.push({ path: 'tests/check.py', text: CHECK_PY });
  for (const [path, text] of expected) files.push({ path: `tests/expected/${path}`, text });
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));

  let id: string;
  if (conventions.ids === 'seed') id = `${parts.family.name}-${(parts.seed! >>> 0).toString(36)}`;
  else {
    const hash = createHash('sha256');
    for (const f of files) hash.update(`${f.path}\0${f.text}\0`);
    id = `${parts.family.name}-${hash.digest('hex').slice(0, 10)}`;
  }
  return { id, files, difficulty: parts.difficulty, expectedCommands };
}
