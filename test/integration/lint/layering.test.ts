import { describe, expect, test } from 'vitest';
import { ESLint } from 'eslint';
import { REPO_ROOT } from '../../helpers/cli';

const eslint = new ESLint({ cwd: REPO_ROOT });

async function restrictedImports(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${REPO_ROOT}/${filePath}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('the lint rule enforces the dependency direction (dependencies point down)', () => {
  test.each([
    [
      'electron/lab/x.ts',
      "import { app } from 'electron';\nexport const a = app;",
      "Only electron/main and electron/preload import 'electron'",
    ],
    ['electron/web/x.ts', "import * as pty from 'node-pty';\nexport const a = pty;", 'Only native/ imports node-pty.'],
    [
      'electron/agent/x.ts',
      "import * as ort from 'onnxruntime-node';\nexport const a = ort;",
      'Only native/ imports onnxruntime-node.',
    ],
    [
      'electron/main/x.ts',
      "import * as ort from 'onnxruntime-node';\nexport const a = ort;",
      'Only native/ imports onnxruntime-node.',
    ],
    [
      'renderer/src/x.ts',
      "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;",
      'The renderer never touches Node.',
    ],
    [
      'renderer/src/x.ts',
      "import { createLabHost } from '../../electron/lab/host';\nexport const a = createLabHost;",
      'The renderer imports only electron/domain',
    ],
    [
      'renderer/src/x.ts',
      "import { startWebHost } from '../../electron/web/server';\nexport const a = startWebHost;",
      'The renderer imports only electron/domain',
    ],
    [
      'native/onnx/x.ts',
      "import { labDataDir } from '../../electron/lab/paths';\nexport const a = labDataDir;",
      'native/ imports nothing above it.',
    ],
    [
      'electron/lab/x.ts',
      "import { serve } from '../cli/commands/serve';\nexport const a = serve;",
      'lab/ is below main, web and cli.',
    ],
    [
      'electron/agent/x.ts',
      "import { createLabHost } from '../lab/host';\nexport const a = createLabHost;",
      'agent/ and rl/ are below lab/.',
    ],
    [
      'electron/ipc/common/x.ts',
      "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;",
      'electron/ipc/common must run in a browser too.',
    ],
    [
      'electron/domain/x.ts',
      "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;",
      'electron/domain must run in a browser too.',
    ],
    [
      'electron/domain/x.ts',
      "import { labContract } from '../ipc/common/contract';\nexport const a = labContract;",
      'electron/domain is the bottom of the app layer.',
    ],
    // Workers host lab services: lab starts them by name and never imports their entry code, nor does anything else.
    [
      'electron/lab/runs/x.ts',
      "import { serveWorker } from '../../workers/rpc-server';\nexport const a = serveWorker;",
      'lab/ starts workers by name',
    ],
    ['electron/lab/x.ts', "import '../workers/policy';", 'lab/ starts workers by name'],
    [
      'electron/web/x.ts',
      "import '../workers/pty-host';",
      'Worker entry code (electron/workers) runs only in worker processes',
    ],
    [
      'electron/cli/commands/x.ts',
      "import '../../workers/eval';",
      'Worker entry code (electron/workers) runs only in worker processes',
    ],
    [
      'electron/main/x.ts',
      "import '../workers/probe';",
      'Worker entry code (electron/workers) runs only in worker processes',
    ],
    [
      'electron/agent/x.ts',
      "import { forkLauncher } from '../processes/launcher';\nexport const a = forkLauncher;",
      'agent/ and rl/ are below lab/.',
    ],
    [
      'electron/processes/x.ts',
      "import { WorkerRegistry } from '../lab/worker-registry';\nexport const a = WorkerRegistry;",
      'electron/processes is below lab/',
    ],
    [
      'electron/processes/contracts/x.ts',
      "import { serveWorker } from '../../workers/rpc-server';\nexport const a = serveWorker;",
      'electron/processes is below lab/',
    ],
    [
      'electron/workers/x.ts',
      "import { serve } from '../cli/commands/serve';\nexport const a = serve;",
      'A worker hosts lab services',
    ],
    [
      'electron/workers/x.ts',
      "import { startWebHost } from '../web/server';\nexport const a = startWebHost;",
      'A worker hosts lab services',
    ],
    [
      'electron/workers/x.ts',
      "import * as pty from 'node-pty';\nexport const a = pty;",
      'Only native/ imports node-pty.',
    ],
    [
      'electron/ipc/common/x.ts',
      "import { policyContract } from '../../processes/contracts/policy';\nexport const a = policyContract;",
      'electron/ipc/common is below every Node layer.',
    ],
    [
      'tasks/families/core/x.ts',
      "import { typedCommands } from '../../../electron/lab/tasks';\nexport const a = typedCommands;",
      'tasks/ imports nothing above it',
    ],
    [
      'tasks/families/x.ts',
      "import type { Task } from '../../electron/domain/tasks';\nexport type A = Task;",
      'tasks/ imports nothing above it',
    ],
  ])('%s: %s is refused', async (file, code, message) => {
    expect((await restrictedImports(file, code)).join('\n')).toContain(message);
  });

  test.each([
    ['electron/main/x.ts', "import { app } from 'electron';\nexport const a = app;"],
    ['native/pty/x.ts', "import * as pty from 'node-pty';\nexport const a = pty;"],
    [
      'renderer/src/x.ts',
      "import { createClient } from '../../electron/ipc/common/client';\nexport const a = createClient;",
    ],
    ['renderer/src/x.ts', "import { taskSchema } from '../../electron/domain/tasks';\nexport const a = taskSchema;"],
    ['electron/agent/x.ts', "import { taskSchema } from '../domain/tasks';\nexport const a = taskSchema;"],
    ['electron/lab/x.ts', "import { execQuiet } from '../../native/util/exec';\nexport const a = execQuiet;"],
    [
      'electron/lab/runs/x.ts',
      "import { evalWorkerContract } from '../../processes/contracts/eval';\nexport const a = evalWorkerContract;",
    ],
    ['electron/lab/x.ts', "import { WorkerRegistry } from './worker-registry';\nexport const a = WorkerRegistry;"],
    [
      'electron/workers/x.ts',
      "import { startEvaluation } from '../lab/runs/evaluate';\nexport const a = startEvaluation;",
    ],
    [
      'electron/workers/x.ts',
      "import { policyContract } from '../processes/contracts/policy';\nexport const a = policyContract;",
    ],
    [
      'electron/cli/commands/x.ts',
      "import { forkLauncher } from '../../processes/launcher';\nexport const a = forkLauncher;",
    ],
    ['electron/main/x.ts', "import { exitNotifier } from '../processes/launcher';\nexport const a = exitNotifier;"],
    [
      'tasks/families/kit/x.ts',
      "import { typedCommands } from '../../../native/util/shell-split';\nexport const a = typedCommands;",
    ],
  ])('%s: an allowed import passes', async (file, code) => {
    expect(await restrictedImports(file, code)).toEqual([]);
  });
});
