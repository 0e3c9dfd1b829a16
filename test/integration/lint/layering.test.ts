import { describe, expect, test } from 'vitest';
import { ESLint } from 'eslint';
import { REPO_ROOT } from '../../helpers/cli';

const eslint = new ESLint({ cwd: REPO_ROOT });

async function restrictedImports(filePath: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${REPO_ROOT}/${filePath}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'no-restricted-imports').map((m) => m.message);
}

describe('the lint rule enforces the dependency direction of DESIGN.md', () => {
  test.each([
    ['electron/lab/x.ts', "import { app } from 'electron';\nexport const a = app;", "Only electron/main and electron/preload import 'electron'"],
    ['electron/web/x.ts', "import * as pty from 'node-pty';\nexport const a = pty;", 'Only native/ imports node-pty.'],
    ['electron/agent/x.ts', "import * as ort from 'onnxruntime-node';\nexport const a = ort;", 'Only native/ imports onnxruntime-node.'],
    ['electron/main/x.ts', "import * as ort from 'onnxruntime-node';\nexport const a = ort;", 'Only native/ imports onnxruntime-node.'],
    ['renderer/src/x.ts', "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;", 'The renderer never touches Node.'],
    ['renderer/src/x.ts', "import { createLabHost } from '../../electron/lab/host';\nexport const a = createLabHost;", 'The renderer imports only electron/domain'],
    ['renderer/src/x.ts', "import { startWebHost } from '../../electron/web/server';\nexport const a = startWebHost;", 'The renderer imports only electron/domain'],
    ['native/onnx/x.ts', "import { labDataDir } from '../../electron/lab/paths';\nexport const a = labDataDir;", 'native/ imports nothing above it.'],
    ['electron/lab/x.ts', "import { serve } from '../cli/commands/serve';\nexport const a = serve;", 'lab/ is below main, web and cli.'],
    ['electron/agent/x.ts', "import { createLabHost } from '../lab/host';\nexport const a = createLabHost;", 'agent/ and rl/ are below lab/.'],
    ['electron/ipc/common/x.ts', "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;", 'electron/ipc/common must run in a browser too.'],
    ['electron/domain/x.ts', "import { readFileSync } from 'node:fs';\nexport const a = readFileSync;", 'electron/domain must run in a browser too.'],
    ['electron/domain/x.ts', "import { labContract } from '../ipc/common/contract';\nexport const a = labContract;", 'electron/domain is the bottom of the app layer.'],
  ])('%s: %s is refused', async (file, code, message) => {
    expect((await restrictedImports(file, code)).join('\n')).toContain(message);
  });

  test.each([
    ['electron/main/x.ts', "import { app } from 'electron';\nexport const a = app;"],
    ['native/pty/x.ts', "import * as pty from 'node-pty';\nexport const a = pty;"],
    ['renderer/src/x.ts', "import { createClient } from '../../electron/ipc/common/client';\nexport const a = createClient;"],
    ['renderer/src/x.ts', "import { taskSchema } from '../../electron/domain/tasks';\nexport const a = taskSchema;"],
    ['electron/agent/x.ts', "import { taskSchema } from '../domain/tasks';\nexport const a = taskSchema;"],
    ['electron/lab/x.ts', "import { execQuiet } from '../../native/util/exec';\nexport const a = execQuiet;"],
  ])('%s: an allowed import passes', async (file, code) => {
    expect(await restrictedImports(file, code)).toEqual([]);
  });
});
