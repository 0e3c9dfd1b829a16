// Lint, including the dependency direction of DESIGN.md ("dependencies point down"):
//   renderer -> electron/ipc/common only;  main, web, cli -> lab -> agent, rl -> native;  native -> nothing above.
//   Only electron/main and electron/preload import 'electron'; only native/ imports node-pty or onnxruntime-node.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const restrict = (files, { paths = [], patterns = [] }, ignores = []) => ({
  files,
  ignores,
  rules: { 'no-restricted-imports': ['error', { paths, patterns }] },
});

const electronOnly = { name: 'electron', message: "Only electron/main and electron/preload import 'electron'; inject what you need." };
const nativeOnly = [
  { name: 'node-pty', message: 'Only native/ imports node-pty.' },
  { name: 'onnxruntime-node', message: 'Only native/ imports onnxruntime-node.' },
];
const up = (dirs, why) => ({ group: dirs.flatMap((d) => [`**/${d}`, `**/${d}/**`]), message: why });

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', 'release/**', 'coverage/**', '**/*.d.ts', 'tasks/**/files/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      'no-constant-condition': ['error', { checkLoops: false }],
    },
  },
  { files: ['bin/**/*.js', 'build/**/*.mjs'], languageOptions: { globals: { process: 'readonly', console: 'readonly', URL: 'readonly' } } },
  // Everything but main and preload: no 'electron', no native runtimes outside native/.
  restrict(['**/*.ts', '**/*.tsx'], { paths: [electronOnly, ...nativeOnly] }, ['electron/main/**', 'electron/preload/**', 'native/**']),
  restrict(['electron/main/**', 'electron/preload/**'], { paths: nativeOnly }),
  // native/ is the bottom layer.
  restrict(['native/**'], { paths: [electronOnly], patterns: [up(['electron', 'renderer'], 'native/ imports nothing above it.')] }),
  // The renderer reaches the Node side only through the pure contract code in electron/ipc/common.
  restrict(['renderer/**'], {
    paths: [electronOnly, ...nativeOnly, { name: 'ws', message: 'The renderer uses the browser WebSocket.' }],
    patterns: [
      { regex: '^node:', message: 'The renderer never touches Node.' },
      { regex: '(^|/)electron/(?!(ipc/common|domain)(/|$))', message: 'The renderer imports only electron/domain (the data model) and electron/ipc/common (pure contract and client).' },
      { regex: '(^|/)native(/|$)', message: 'The renderer never imports native/.' },
    ],
  }),
  // electron/domain is the data model (tasks, trajectories, runs, checkpoints as zod schemas): it runs anywhere
  // and imports nothing of the app.
  restrict(['electron/domain/**'], {
    paths: [electronOnly, ...nativeOnly],
    patterns: [
      { regex: '^node:', message: 'electron/domain must run in a browser too.' },
      up(['ipc', 'lab', 'agent', 'rl', 'main', 'web', 'cli', 'workers', 'native'], 'electron/domain is the bottom of the app layer.'),
    ],
  }),
  // electron/ipc/common runs anywhere (renderer included): no Node, nothing above it but the domain model.
  restrict(['electron/ipc/common/**'], {
    paths: [electronOnly, ...nativeOnly],
    patterns: [
      { regex: '^node:', message: 'electron/ipc/common must run in a browser too.' },
      up(['lab', 'agent', 'rl', 'main', 'web', 'cli', 'workers', 'native'], 'electron/ipc/common is below every Node layer.'),
    ],
  }),
  restrict(['electron/lab/**'], { paths: [electronOnly, ...nativeOnly], patterns: [up(['main', 'web', 'cli', 'preload', 'renderer'], 'lab/ is below main, web and cli.')] }),
  restrict(['electron/agent/**', 'electron/rl/**'], {
    paths: [electronOnly, ...nativeOnly],
    patterns: [up(['lab', 'main', 'web', 'cli', 'preload', 'renderer'], 'agent/ and rl/ are below lab/.')],
  }),
);
