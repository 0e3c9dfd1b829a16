/**
 * What every core family needs to write a task: task.toml with its [metadata] and inline assertions,
 * solve.sh, shell quoting, split-aware phrasing. A family supplies the content; the kit the format.
 */
import { typedCommands } from '../../../electron/lab/tasks/shell-split';
import type { Difficulty, FamilyFile, FamilyRng, GeneratedTask, Split, TaskFamily } from '../types';

export interface InlineCheck {
  name: string;
  /** bash, run in /app by the verifier; exit 0 = passed. Must fail on the untouched workspace. */
  run: string;
}

/** Single-quoted for bash: any text, including quotes and newlines, reaches the command unchanged. */
export function sq(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

/** A TOML basic string. JSON's escapes (\", \\, \n, \uXXXX) are exactly TOML's. */
export function tomlString(text: string): string {
  return JSON.stringify(text);
}

/** FILE holds exactly TEXT (a trailing newline either way); on mismatch python prints both. */
export function fileEquals(path: string, text: string): string {
  return py(`import sys; t = open(${JSON.stringify(path)}).read(); e = ${JSON.stringify(text)}; sys.exit(0 if t.rstrip("\\n") == e.rstrip("\\n") else "expected %r, found %r" % (e[:200], t[:200]))`);
}

/** A python3 one-liner assertion: `python3 -c 'CODE'` (CODE may use single quotes freely). */
export function py(code: string): string {
  return `python3 -c ${sq(code)}`;
}

/**
 * Phrasings are split by a fixed rule (docs/readme/synth.md): the last phrasing of a family is kept for
 * eval (in-distribution held-out suites), the others are for training. A family with one phrasing uses
 * it in both.
 */
export function phrase<T>(rng: FamilyRng, phrasings: readonly T[], split: Split): T {
  if (phrasings.length <= 1) return rng.pick(phrasings);
  return split === 'eval' ? phrasings[phrasings.length - 1]! : rng.pick(phrasings.slice(0, -1));
}

/** Above this many checks a task's verifier is one pytest file (each check a test) instead of inline assertions. */
export const MAX_INLINE_CHECKS = 8;

/** Checks as pytest tests: each runs its bash check in /app; the docstring carries the check's name. */
export function checksPytest(checks: readonly InlineCheck[]): string {
  const ident = (name: string, i: number) => `test_${String(i + 1).padStart(2, '0')}_${name.toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_|_$/g, '').slice(0, 60)}`;
  const lines = [
    'import subprocess',
    '',
    '',
    'def check(script):',
    '    r = subprocess.run(["bash", "--noprofile", "--norc", "-c", script], cwd="/app", capture_output=True, text=True, timeout=30)',
    '    assert r.returncode == 0, "check failed (exit %d): %s\\n%s%s" % (r.returncode, script, r.stdout, r.stderr)',
  ];
  checks.forEach((c, i) => lines.push('', '', `def ${ident(c.name, i)}():`, `    # ${c.name.replace(/\n/g, ' ')}`, `    check(${JSON.stringify(c.run)})`));
  return `${lines.join('\n')}\n`;
}

export interface TaskParts {
  family: TaskFamily;
  seed: number;
  split: Split;
  difficulty: Difficulty;
  instruction: string;
  /** solve.sh body (after `#!/bin/bash` and `set -e`); runs in /app. */
  solution: string;
  checks?: InlineCheck[];
  /** environment/files/<path> */
  files?: Record<string, string>;
  /** environment/setup.sh body, if any. */
  setup?: string;
  /** tests/test_outputs.py, if any. */
  pytest?: string;
  tags?: string[];
  agentTimeoutSec?: number;
  verifierTimeoutSec?: number;
  requires?: string[];
}

/** A stable, short task id: family name plus the seed in base 36. */
export function taskId(family: string, seed: number): string {
  return `${family}-${(seed >>> 0).toString(36)}`;
}

export function assemble(parts: TaskParts): GeneratedTask {
  const solve = `#!/bin/bash\nset -e\n${parts.solution.trimEnd()}\n`;
  const expectedCommands = typedCommands(solve).length;
  const checks = parts.checks ?? [];
  // Many checks become pytest tests (one verifier sandbox for all) rather than inline assertions (one each).
  const checksAsPytest = checks.length > MAX_INLINE_CHECKS && !parts.pytest;
  const toml = [
    'version = "1.0"',
    '',
    '[metadata]',
    `family = ${tomlString(parts.family.name)}`,
    `category = ${tomlString(parts.family.category)}`,
    `difficulty = ${tomlString(parts.difficulty)}`,
    `expected_commands = ${expectedCommands}`,
    `split = ${tomlString(parts.split)}`,
    `seed = ${parts.seed >>> 0}`,
    `tags = [${(parts.tags ?? []).map(tomlString).join(', ')}]`,
    '',
    '[agent]',
    `timeout_sec = ${parts.agentTimeoutSec ?? (parts.difficulty === 'hard' ? 900 : parts.difficulty === 'medium' ? 600 : 300)}`,
    '',
    '[verifier]',
    `timeout_sec = ${parts.verifierTimeoutSec ?? 60}`,
    '',
    '[environment]',
    'storage_mb = 64',
    ...(parts.requires?.length ? [`requires = [${parts.requires.map(tomlString).join(', ')}]`] : []),
    '',
    ...(checksAsPytest ? [] : checks.flatMap((c) => ['[[verifier.assertions]]', `name = ${tomlString(c.name)}`, `run = ${tomlString(c.run)}`, ''])),
  ].join('\n');
  const files: FamilyFile[] = [
    { path: 'instruction.md', text: `${parts.instruction.trim()}\n` },
    { path: 'task.toml', text: toml },
    { path: 'solution/solve.sh', text: solve, executable: true },
  ];
  for (const [path, text] of Object.entries(parts.files ?? {})) files.push({ path: `environment/files/${path}`, text });
  if (parts.setup) files.push({ path: 'environment/setup.sh', text: `#!/bin/bash\nset -euo pipefail\n${parts.setup.trimEnd()}\n`, executable: true });
  if (parts.pytest) files.push({ path: 'tests/test_outputs.py', text: parts.pytest });
  else if (checksAsPytest) files.push({ path: 'tests/test_outputs.py', text: checksPytest(checks) });
  return { id: taskId(parts.family.name, parts.seed), files, difficulty: parts.difficulty, expectedCommands };
}

/** Vocabulary the families draw names from (content varies by seed; these only flavour it). */
export const NOUNS = ['alpha', 'orbit', 'ledger', 'harbor', 'cedar', 'falcon', 'quartz', 'meadow', 'signal', 'vector', 'summit', 'pixel', 'ember', 'tundra', 'nimbus', 'copper', 'saffron', 'willow', 'zephyr', 'basalt'];
export const SERVICES = ['api', 'auth', 'billing', 'cache', 'db', 'mailer', 'queue', 'scheduler', 'search', 'storage', 'web', 'worker'];
export const PEOPLE = ['ada', 'grace', 'linus', 'barbara', 'ken', 'margaret', 'dennis', 'frances', 'alan', 'edsger', 'radia', 'john', 'katherine', 'donald'];
export const CITIES = ['Oslo', 'Lima', 'Pune', 'Accra', 'Quito', 'Hanoi', 'Perth', 'Turin', 'Leeds', 'Osaka', 'Dakar', 'Porto'];
export const LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;

/** A file name from the seed: word + suffix, distinct within one call. */
export function fileNames(rng: FamilyRng, n: number, ext: string): string[] {
  const names = new Set<string>();
  while (names.size < n) names.add(`${rng.pick(NOUNS)}_${rng.word(4)}.${ext}`);
  return [...names];
}
