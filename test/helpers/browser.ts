/** Debian Chromium driven by playwright-core, headless, as the e2e tests use it. */
import { execFileSync } from 'node:child_process';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startServe, type ServeProcess } from './serve';

export function chromiumPath(): string {
  return execFileSync('sh', ['-c', 'command -v chromium || command -v chromium-browser'], { encoding: 'utf8' }).trim();
}

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath(),
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  });
}

/** The app in web mode and a Chromium page on it: what every e2e test starts with. */
export interface LabInChromium {
  serve: ServeProcess;
  browser: Browser;
  page: Page;
}

/** `env`: more variables for the host (and the workers it starts), e.g. T1LAB_DECODE_STEP_DELAY_MS. */
export async function openLabInChromium(
  dataDir: string,
  pageOptions?: Parameters<Browser['newPage']>[0],
  env: NodeJS.ProcessEnv = {},
): Promise<LabInChromium> {
  const serve = await startServe({ env: { ...env, T1LAB_HOME: dataDir } });
  try {
    const browser = await launchChromium();
    return { serve, browser, page: await browser.newPage(pageOptions) };
  } catch (error) {
    await serve.stop();
    throw error;
  }
}

export async function closeLabInChromium(lab: Partial<LabInChromium>): Promise<void> {
  await lab.browser?.close();
  await lab.serve?.stop();
}
