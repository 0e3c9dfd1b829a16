// Lint, including the dependency direction ("dependencies point down"):
//   renderer -> electron/ipc/common and electron/domain only;
//   main, web, cli -> lab -> agent, rl -> native;  native -> nothing above;
//   workers (process entry points hosting lab services) -> lab, processes;  nothing imports electron/workers;
//   processes (contracts, launchers, supervisor, where entries are) is below lab: lab starts workers through it.
//   Only electron/main and electron/preload import 'electron'; only native/ imports node-pty or onnxruntime-node.
//   tasks/ (task families and suites) -> native/ only: it never imports electron/ (shared pieces move down).
// And no import cycles (eslint-plugin-import-x's no-cycle): a cycle means two files that are one, or a piece
// that belongs below both. Type-only imports (`import type`) are erased at compile time and do not count.
import js from '@eslint/js';
import { createNodeResolver, importX } from 'eslint-plugin-import-x';
import tseslint from 'typescript-eslint';

const restrict = (files, { paths = [], patterns = [] }, ignores = []) => ({
  files,
  ignores,
  rules: { 'no-restricted-imports': ['error', { paths, patterns }] },
});

const electronOnly = {
  name: 'electron',
  message: "Only electron/main and electron/preload import 'electron'; inject what you need.",
};
const nativeOnly = [
  { name: 'node-pty', message: 'Only native/ imports node-pty.' },
  { name: 'onnxruntime-node', message: 'Only native/ imports onnxruntime-node.' },
];
const up = (dirs, why) => ({ group: dirs.flatMap((d) => [`**/${d}`, `**/${d}/**`]), message: why });
const notWorkerEntries = up(
  ['workers'],
  'Worker entry code (electron/workers) runs only in worker processes: start workers by name through electron/processes.',
);

// Functions of at most 100 lines, blank and comment lines not counted (`npx tsx build/long-functions.ts --app` lists
// the longer ones, counted the same way): past a screen or two a function is a story of steps, and the steps want
// names and tests of their own (collectRollouts, saveCheckpoint, startEvaluation ... read that way now).
// App code only: a test reads top to bottom as its scenario. Task-family generators stay under the rule: a
// `generate` is seeded code, not a data table (its word lists and templates already live in constants).
// The functions still over the limit, each file capped at its longest so that nothing in it grows; split one and
// lower or drop its line here.
const MAX_FUNCTION_LINES = 100;
const maxLines = (max) => ['error', { max, skipBlankLines: true, skipComments: true }];
/** [file, cap, the function and why it is not split yet] */
const LONG_FUNCTIONS = [];

export default tseslint.config(
  {
    ignores: ['dist/**', 'node_modules/**', '.tools/**', 'release/**', 'coverage/**', '**/*.d.ts', 'tasks/**/files/**'],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' },
      ],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  {
    files: ['bin/**/*.js', 'build/**/*.mjs'],
    languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } },
  },
  {
    files: ['**/*.ts', '**/*.tsx'],
    plugins: { 'import-x': importX },
    settings: {
      'import-x/parsers': { '@typescript-eslint/parser': ['.ts', '.tsx'] },
      // Relative imports without an extension, as the sources write them: the .ts file, or the folder's index.ts.
      'import-x/resolver-next': [createNodeResolver({ extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'] })],
    },
    rules: { 'import-x/no-cycle': ['error', { ignoreExternal: true }] },
  },
  // Everything but main and preload: no 'electron', no native runtimes outside native/.
  restrict(['**/*.ts', '**/*.tsx'], { paths: [electronOnly, ...nativeOnly] }, [
    'electron/main/**',
    'electron/preload/**',
    'native/**',
  ]),
  restrict(['electron/main/**', 'electron/preload/**'], { paths: nativeOnly }),
  // tasks/ sits on native/: the families and the suite tooling import nothing of the app.
  restrict(['tasks/**'], {
    paths: [electronOnly, ...nativeOnly],
    patterns: [
      up(
        ['electron', 'renderer'],
        'tasks/ imports nothing above it (native/ and itself only): move what it needs down.',
      ),
    ],
  }),
  // native/ is the bottom layer.
  restrict(['native/**'], {
    paths: [electronOnly],
    patterns: [up(['electron', 'renderer'], 'native/ imports nothing above it.')],
  }),
  // The renderer reaches the Node side only through the pure contract code in electron/ipc/common.
  restrict(['renderer/**'], {
    paths: [electronOnly, ...nativeOnly, { name: 'ws', message: 'The renderer uses the browser WebSocket.' }],
    patterns: [
      { regex: '^node:', message: 'The renderer never touches Node.' },
      {
        regex: '(^|/)electron/(?!(ipc/common|domain)(/|$))',
        message:
          'The renderer imports only electron/domain (the data model) and electron/ipc/common (pure contract and client).',
      },
      { regex: '(^|/)native(/|$)', message: 'The renderer never imports native/.' },
    ],
  }),
  // electron/domain is the data model (tasks, trajectories, runs, checkpoints as zod schemas): it runs anywhere
  // and imports nothing of the app.
  restrict(['electron/domain/**'], {
    paths: [electronOnly, ...nativeOnly],
    patterns: [
      { regex: '^node:', message: 'electron/domain must run in a browser too.' },
      up(
        ['ipc', 'lab', 'agent', 'rl', 'main', 'web', 'cli', 'workers', 'processes', 'native'],
        'electron/domain is the bottom of the app layer.',
      ),
    ],
  }),
  // electron/ipc/common runs anywhere (renderer included): no Node, nothing above it but the domain model.
  restrict(['electron/ipc/common/**'], {
    paths: [electronOnly, ...nativeOnly],
    patterns: [
      { regex: '^node:', message: 'electron/ipc/common must run in a browser too.' },
      up(
        ['lab', 'agent', 'rl', 'main', 'web', 'cli', 'workers', 'processes', 'native'],
        'electron/ipc/common is below every Node layer.',
      ),
    ],
  }),
  restrict(['electron/lab/**'], {
    paths: [electronOnly, ...nativeOnly],
    patterns: [
      up(['main', 'web', 'cli', 'preload', 'renderer'], 'lab/ is below main, web and cli.'),
      up(
        ['workers'],
        'lab/ starts workers by name (electron/processes) and never imports their entry code: a worker hosts lab services, not the reverse.',
      ),
    ],
  }),
  // main, web and cli start workers through electron/processes; worker entry code runs only in worker processes.
  // (A later entry replaces an earlier one's options for the same files, so each repeats the paths it keeps.)
  restrict(['electron/web/**', 'electron/cli/**'], {
    paths: [electronOnly, ...nativeOnly],
    patterns: [notWorkerEntries],
  }),
  restrict(['electron/main/**'], { paths: nativeOnly, patterns: [notWorkerEntries] }),
  restrict(['electron/agent/**', 'electron/rl/**'], {
    paths: [electronOnly, ...nativeOnly],
    patterns: [
      up(
        ['lab', 'main', 'web', 'cli', 'preload', 'renderer', 'workers', 'processes'],
        'agent/ and rl/ are below lab/.',
      ),
    ],
  }),
  // electron/processes: worker contracts, launchers, the supervisor and where entries are. Lab imports it, so it
  // imports nothing of lab or above.
  restrict(['electron/processes/**'], {
    paths: [electronOnly, ...nativeOnly],
    patterns: [
      up(
        ['lab', 'agent', 'rl', 'workers', 'main', 'web', 'cli', 'preload', 'renderer'],
        'electron/processes is below lab/: contracts and process plumbing only.',
      ),
    ],
  }),
  // electron/workers: process entry points hosting lab services; they import lab, never what sits above it.
  restrict(['electron/workers/**'], {
    paths: [electronOnly, ...nativeOnly],
    patterns: [
      up(
        ['main', 'web', 'cli', 'preload', 'renderer'],
        'A worker hosts lab services: it imports lab and processes, never main, web or cli.',
      ),
    ],
  }),
  // Functions of at most MAX_FUNCTION_LINES lines in app code (see LONG_FUNCTIONS above).
  {
    files: ['**/*.ts', '**/*.tsx', '**/*.js', '**/*.mjs'],
    ignores: ['test/**', '**/*.test.ts', '**/*.test.tsx'],
    rules: { 'max-lines-per-function': maxLines(MAX_FUNCTION_LINES) },
  },
  ...LONG_FUNCTIONS.map(([file, cap]) => ({ files: [file], rules: { 'max-lines-per-function': maxLines(cap) } })),
);
