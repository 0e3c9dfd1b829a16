/**
 * The core families' conventions for the one task builder (../kit/task.ts): solve.sh under `set -e`, ids
 * from the seed, the seed in [metadata], timeouts by difficulty, 64 MB of storage, many assertions as one
 * pytest file; and the helpers and vocabulary they share.
 */
import type { FamilyRng } from '../types';
import { shq, type TaskConventions } from '../kit/task';

export const CORE: TaskConventions = {
  solvePreamble: '#!/bin/bash\nset -e\n',
  agentTimeoutSec: (difficulty) => (difficulty === 'hard' ? 900 : difficulty === 'medium' ? 600 : 300),
  verifierTimeoutSec: 60,
  storageMb: 64,
  ids: 'seed',
  maxInlineAssertions: 8,
};

/** FILE holds exactly TEXT (a trailing newline either way); on mismatch python prints both. */
export function fileEquals(path: string, text: string): string {
  return py(
    `import sys; t = open(${JSON.stringify(path)}).read(); e = ${JSON.stringify(text)}; sys.exit(0 if t.rstrip("\\n") == e.rstrip("\\n") else "expected %r, found %r" % (e[:200], t[:200]))`,
  );
}

/** A python3 one-liner assertion: `python3 -c 'CODE'` (CODE may use single quotes freely). */
export function py(code: string): string {
  return `python3 -c ${shq(code)}`;
}

/**
 * Stems of names (files, keys, packages) that the core families and the LM stage's copy drills
 * (electron/lab/training/corpus/copy-drills.ts) both draw from, so a drill's names look like a task's.
 */
export const NAME_STEMS = [
  'alpha',
  'orbit',
  'ledger',
  'harbor',
  'cedar',
  'falcon',
  'quartz',
  'meadow',
  'signal',
  'vector',
  'summit',
  'pixel',
  'ember',
  'tundra',
  'nimbus',
  'copper',
];
/** Vocabulary the families draw names from (content varies by seed; these only flavour it). */
export const NOUNS = [...NAME_STEMS, 'saffron', 'willow', 'zephyr', 'basalt'];
export const SERVICES = [
  'api',
  'auth',
  'billing',
  'cache',
  'db',
  'mailer',
  'queue',
  'scheduler',
  'search',
  'storage',
  'web',
  'worker',
];
export const PEOPLE = [
  'ada',
  'grace',
  'linus',
  'barbara',
  'ken',
  'margaret',
  'dennis',
  'frances',
  'alan',
  'edsger',
  'radia',
  'john',
  'katherine',
  'donald',
];
export const CITIES = [
  'Oslo',
  'Lima',
  'Pune',
  'Accra',
  'Quito',
  'Hanoi',
  'Perth',
  'Turin',
  'Leeds',
  'Osaka',
  'Dakar',
  'Porto',
];
export const LEVELS = ['DEBUG', 'INFO', 'WARN', 'ERROR'] as const;

/** A file name from the seed: word + suffix, distinct within one call. */
export function fileNames(rng: FamilyRng, n: number, ext: string): string[] {
  const names = new Set<string>();
  while (names.size < n) names.add(`${rng.pick(NOUNS)}_${rng.word(4)}.${ext}`);
  return [...names];
}
