/**
 * Where `tasks import-tb` says a task runs, for both layouts it reads: a runtime that task.toml declares is
 * kept; otherwise whatever needs the container (here a verifier that downloads) makes it a container task.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { HostProbe } from '../../../electron/lab/tasks/import/dockerfile';
import { importTerminalBench } from '../../../electron/lab/tasks/import/import-tb';
import { makeTempDir } from '../../helpers/tmp';

/** A host with every package and module: only the task's own needs decide. */
const fullHost: HostProbe = {
  missingDebs: async () => [],
  missingPythonModules: async () => [],
  hasCommand: async () => true,
};

/** A verifier that fetches a tool from the network: the sandbox cannot run it. */
const DOWNLOADING_TESTS = '#!/bin/bash\ncurl -fsSL https://example.org/check.sh | sh\n';
const OFFLINE_TESTS = '#!/bin/bash\ntest -f /app/done && echo 1 > /logs/verifier/reward.txt\n';
const DOWNLOAD_REASON = 'the verifier script installs software from the network';

let src: { path: string; remove(): void };
let dest: { path: string; remove(): void };
beforeEach(() => {
  src = makeTempDir('t1lab-import-src-');
  dest = makeTempDir('t1lab-import-dest-');
});
afterEach(() => {
  src.remove();
  dest.remove();
});

function writeTask(id: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    const file = join(src.path, id, path);
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text, { mode: 0o755 });
  }
}

function harborTask(id: string, tests: string, runtime?: 'sandbox' | 'container'): void {
  const environment = runtime ? `\n[environment]\nruntime = "${runtime}"\n` : '';
  writeTask(id, {
    'instruction.md': 'Create /app/done.\n',
    'task.toml': `version = "1.0"\n\n[metadata]\ndifficulty = "easy"\n${environment}`,
    'solution/solve.sh': '#!/bin/bash\ntouch /app/done\n',
    'tests/test.sh': tests,
  });
}

function tb1Task(id: string, tests: string): void {
  writeTask(id, {
    'task.yaml': 'instruction: Create /app/done.\ndifficulty: easy\n',
    'solution.sh': '#!/bin/bash\ntouch /app/done\n',
    'run-tests.sh': tests,
  });
}

/** The imported tasks' runtimes as the report gives them and as their written task.toml declares them. */
async function importedRuntimes(): Promise<Record<string, { reported: unknown; declared: unknown }>> {
  const report = await importTerminalBench(src.path, dest.path, fullHost);
  expect(report.failed).toEqual([]);
  return Object.fromEntries(
    report.imported.map((t) => {
      const toml = parseToml(readFileSync(join(t.dest, 'task.toml'), 'utf8')) as {
        environment?: Record<string, unknown>;
      };
      return [
        t.id,
        {
          reported: t.runtime,
          declared: { runtime: toml.environment?.runtime, reason: toml.environment?.container_reason },
        },
      ];
    }),
  );
}

describe('tasks import-tb: the runtime', () => {
  it('Harbor: keeps a declared runtime, and decides one only when none is declared', async () => {
    harborTask('declared-sandbox', DOWNLOADING_TESTS, 'sandbox');
    harborTask('declared-container', OFFLINE_TESTS, 'container');
    harborTask('undeclared-downloads', DOWNLOADING_TESTS);
    harborTask('undeclared-offline', OFFLINE_TESTS);
    expect(await importedRuntimes()).toEqual({
      'declared-sandbox': { reported: { kind: 'sandbox' }, declared: { runtime: 'sandbox', reason: undefined } },
      'declared-container': {
        reported: { kind: 'container', reason: expect.any(String) },
        declared: { runtime: 'container', reason: undefined },
      },
      'undeclared-downloads': {
        reported: { kind: 'container', reason: DOWNLOAD_REASON },
        declared: { runtime: 'container', reason: DOWNLOAD_REASON },
      },
      'undeclared-offline': { reported: { kind: 'sandbox' }, declared: { runtime: 'sandbox', reason: undefined } },
    });
  });

  it('Terminal-Bench 1: decides the same way from run-tests.sh', async () => {
    tb1Task('tb1-downloads', DOWNLOADING_TESTS);
    tb1Task('tb1-offline', OFFLINE_TESTS);
    expect(await importedRuntimes()).toEqual({
      'tb1-downloads': {
        reported: { kind: 'container', reason: DOWNLOAD_REASON },
        declared: { runtime: 'container', reason: DOWNLOAD_REASON },
      },
      'tb1-offline': { reported: { kind: 'sandbox' }, declared: { runtime: 'sandbox', reason: undefined } },
    });
  });
});
