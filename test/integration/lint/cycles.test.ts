/**
 * No import cycles (eslint-plugin-import-x's no-cycle, eslint.config.mjs): each pair the code once had is
 * reintroduced in memory and refused, and the files as they are pass. Type-only imports do not count: they are
 * erased at compile time.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { ESLint } from 'eslint';
import { REPO_ROOT } from '../../helpers/cli';

const eslint = new ESLint({ cwd: REPO_ROOT });

async function cycles(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: join(REPO_ROOT, filePath) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'import-x/no-cycle').map((m) => m.message);
}

const source = (file: string) => readFileSync(join(REPO_ROOT, file), 'utf8');

describe('the lint refuses import cycles', () => {
  test.each([
    [
      'electron/agent/policy/types.ts',
      "import { DEFAULT_RETRY } from './http-retry';\nexport const RETRY = DEFAULT_RETRY;",
    ],
    [
      'electron/lab/ppo/session.ts',
      "import { startTraining } from '../training/session';\nexport const START = startTraining;",
    ],
    [
      'electron/lab/experiments/repro-settings.ts',
      "import { REPRO_FULL } from './repro';\nexport const FULL = REPRO_FULL;",
    ],
    ['electron/lab/experiments/repro-report.ts', "import { runRepro } from './repro';\nexport const RUN = runRepro;"],
  ])('%s: importing back what imports it is refused', async (file, added) => {
    expect(await cycles(file, `${source(file)}\n${added}\n`)).toEqual([expect.stringMatching(/Dependency cycle/)]);
  });

  test.each([
    'electron/agent/policy/types.ts',
    'electron/agent/policy/http-retry.ts',
    'electron/lab/ppo/session.ts',
    'electron/lab/training/session.ts',
    'electron/lab/experiments/repro.ts',
    'electron/lab/experiments/repro-report.ts',
    'electron/lab/experiments/repro-settings.ts',
  ])('%s as it is has none', async (file) => {
    expect(await cycles(file, source(file))).toEqual([]);
  });

  test('a type-only import back is not a cycle (erased at compile time)', async () => {
    const file = 'electron/agent/policy/types.ts';
    expect(
      await cycles(
        file,
        `${source(file)}\nimport type { PostResult } from './http-retry';\nexport type Posted = PostResult;\n`,
      ),
    ).toEqual([]);
  });
});
