import { describe, expect, test } from 'vitest';
import { fileURLToPath } from 'node:url';
import { electronInfo } from '../../../electron/lab/system/electron-info';
import { startServe } from '../../helpers/serve';
import { optionalSkip } from '../../helpers/skip';

const startScript = fileURLToPath(new URL('../../../build/start.ts', import.meta.url));

describe('npm start without the Electron binary', () => {
  test('says so in one sentence, then serves web mode and prints the URL', async (ctx) => {
    ctx.skip(
      electronInfo().binary,
      optionalSkip("Electron's binary is installed here (this case checks the fallback without it)"),
    );
    // build/start.ts is what `npm start` runs after building; it really tries to fetch Electron first.
    const s = await startServe({ command: ['--import', 'tsx', startScript] });
    try {
      const lines = s.stderr().trim().split('\n');
      expect(lines.at(-1)).toBe(
        "Electron's binary is not installed and could not be downloaded, so T1 Lab is starting in web mode: open the URL below in a browser.",
      );
      expect(s.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/\?token=/);
    } finally {
      await s.stop();
    }
  });
});
