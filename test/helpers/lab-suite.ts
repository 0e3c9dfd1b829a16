/**
 * An e2e file's lab: the set-up every e2e file of a page repeats (a temp data folder with its fixtures, `t1lab
 * serve` on it, Chromium logged in through the served URL's token) as one call that registers the file's hooks.
 * Built on browser.ts, which stays free of vitest for the benches.
 */
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { closeLabInChromium, openLabInChromium, type LabInChromium } from './browser';
import { makeTempDir } from './tmp';

/** The lab one e2e file shares: its temp home and data folder, and the app in Chromium, set up in beforeAll. */
export interface LabSuite extends LabInChromium {
  /** A temp folder the file owns (a downloaded file goes here), removed after the file's tests. */
  readonly home: string;
  /** The data folder `t1lab serve` runs on (T1LAB_HOME), inside `home`. */
  readonly data: string;
}

export interface LabSuiteOptions {
  /** Writes the fixtures (runs, training runs) into the data folder before the server starts. */
  prepare?: (data: string) => void | Promise<void>;
  /** The page's options (a viewport). */
  page?: Parameters<Browser['newPage']>[0];
  /** More variables for the host (see openLabInChromium). */
  env?: NodeJS.ProcessEnv;
  /**
   * Open the page in a context of its own, so that a test can open more tabs beside it (`page.context()
   * .newPage()`); a page from `browser.newPage()` cannot have another tab.
   */
  tabs?: boolean;
}

/** Starting the server and Chromium takes a while on a loaded machine. */
const LAB_SET_UP_TIMEOUT_MS = 120_000;

/**
 * The set-up every e2e file of a page repeats: a temp home with a data folder, its fixtures written, `t1lab
 * serve` on it and a Chromium page (the token comes in `serve.url`), all stopped and removed after the file's
 * tests. Registers the file's beforeAll and afterAll; what it returns is there once beforeAll has run.
 */
export function useLabInChromium(options: LabSuiteOptions = {}): LabSuite {
  const home = makeTempDir();
  const data = join(home.path, 'data');
  let lab: LabInChromium | null = null;
  const started = (): LabInChromium => {
    if (!lab) throw new Error('the lab is not started: use it in a test or a hook after useLabInChromium');
    return lab;
  };
  beforeAll(async () => {
    await options.prepare?.(data);
    const opened = await openLabInChromium(data, options.tabs ? undefined : options.page, options.env);
    if (options.tabs) {
      await opened.page.close();
      opened.page = await (await opened.browser.newContext(options.page)).newPage();
    }
    lab = opened;
  }, LAB_SET_UP_TIMEOUT_MS);
  afterAll(async () => {
    await closeLabInChromium(lab ?? {});
    home.remove();
  });
  return {
    home: home.path,
    data,
    get serve() {
      return started().serve;
    },
    get browser() {
      return started().browser;
    },
    get page() {
      return started().page;
    },
  };
}

/** expect.poll with the e2e tests' timeout: long enough for the page's refresh and a loaded machine. */
export const poll = <T>(fn: () => T | Promise<T>) => expect.poll(fn, { timeout: 15_000 });
