/**
 * `npm start`: the desktop app when Electron's binary is here (or can be fetched now); otherwise web mode,
 * said in one sentence, with the URL printed.
 */
import { spawn, spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { electronInfo } from '../electron/lab/system/electron-info';
import { runCli } from '../electron/cli/main';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const FETCH_TIMEOUT_MS = 120_000;

function tryFetchElectron(): boolean {
  const installer = join(dirname(require.resolve('electron/package.json')), 'install.js');
  process.stderr.write('Electron binary not found; trying to download it…\n');
  const result = spawnSync(process.execPath, [installer], { stdio: 'ignore', timeout: FETCH_TIMEOUT_MS });
  return result.status === 0 && electronInfo().binary;
}

let info = electronInfo();
if (!info.binary && process.env.T1LAB_NO_ELECTRON_FETCH !== '1') info = tryFetchElectron() ? electronInfo() : info;

if (info.binary && info.binaryPath) {
  const args = [root];
  if (process.getuid?.() === 0) args.push('--no-sandbox'); // Chromium refuses to run as root with its own sandbox
  const child = spawn(info.binaryPath, args, { stdio: 'inherit' });
  child.on('exit', (code) => process.exit(code ?? 0));
} else {
  process.stderr.write(
    "Electron's binary is not installed and could not be downloaded, so T1 Lab is starting in web mode: open the URL below in a browser.\n",
  );
  process.exitCode = await runCli(['serve', ...process.argv.slice(2)]);
}
