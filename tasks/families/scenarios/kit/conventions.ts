/**
 * The scenario families' conventions for the one task builder (../../kit/task.ts): solve.sh under
 * `set -euo pipefail` in /app, ids from a hash of the content (two seeds with different content never
 * share an id, equal content always does), 256 MB of storage, a UTF-8 verifier, `long_horizon = true` and
 * a longer agent timeout for oracles of 20+ commands; and the assertion helpers they share.
 */
import { createHash } from 'node:crypto';
import { shq, type Assertion, type TaskConventions } from '../../kit/task';

/** Long-horizon tasks are those whose oracle needs at least this many typed commands. */
export const LONG_HORIZON_COMMANDS = 20;

export const SCENARIO: TaskConventions = {
  solvePreamble: '#!/bin/bash\nset -euo pipefail\ncd /app\n',
  agentTimeoutSec: (_difficulty, longHorizon) => (longHorizon ? 1800 : 600),
  verifierTimeoutSec: 120,
  verifierEnv: { LC_ALL: 'C.UTF-8' },
  storageMb: 256,
  ids: 'content',
  longHorizonCommands: LONG_HORIZON_COMMANDS,
};

/** An assertion that runs a python snippet (it must exit non-zero / raise to fail). */
export function pyCheck(name: string, code: string): Assertion {
  return { name, run: `python3 -c ${shq(code)}` };
}

/** Checks through tests/check.py (see ../../kit/check.ts for the verbs). */
export function check(name: string, ...args: string[]): Assertion {
  return { name, run: `python3 /tests/check.py ${args.map(shq).join(' ')}` };
}

export function sha256Hex(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}
