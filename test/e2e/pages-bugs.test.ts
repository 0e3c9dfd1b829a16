/**
 * The nine bugs of issue 17, each seen the way a user meets it, in Chromium against the built web host:
 * form errors that vanish, underscores clipped in run terminals, bracketed-paste markers in recordings, a
 * provider choice ignored, an "Add folder" that accepts anything, onnx runs that cannot fit their window,
 * a lost host connection shown as live, raw schema messages, and relative shell workspaces.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { initCheckpoint } from '../../electron/lab/models/operations';
import { closeLabInChromium, launchChromium, openLabInChromium } from '../helpers/browser';
import { startServe, type ServeProcess } from '../helpers/serve';
import { writeTask } from '../helpers/tasks';
import { makeTempDir } from '../helpers/tmp';
import { freePort } from '../helpers/ports';

let serve: ServeProcess;
let browser: Browser;
let page: Page;
const home = makeTempDir();
const dataDir = join(home.path, 'data');
let suite: string;
let script: string;

/** Runs-list calls the page has sent (the periodic refresh), to wait for one without a clock. */
let listCalls = 0;

beforeAll(async () => {
  suite = join(home.path, 'suite');
  writeTask(suite, {
    id: 'make-hello',
    instruction: 'Create a file hello.txt in the working directory containing exactly the line: hello',
    assertions: { 'hello.txt says hello': 'grep -qx hello hello.txt' },
    solution: 'cd /app\necho hello > hello.txt',
  });
  script = join(home.path, 'agent.json');
  // A prompt that takes a moment to draw (as a git or virtualenv prompt does) opens the window in which
  // the harness used to type before readline was back.
  writeFileSync(
    script,
    JSON.stringify({
      turns: [
        { action: { tool: 'bash', command: `PS1='$(sleep 0.3)'"$PS1"` } },
        { action: { tool: 'bash', command: 'echo write_text __init__.py' } },
        { action: { tool: 'bash', command: 'echo hello > hello.txt' } },
        { action: { tool: 'submit' } },
      ],
    }),
  );
  // A checkpoint with a window far too small for the harness's prompts (bug 6), and one for the playground.
  initCheckpoint({
    preset: 'nano',
    out: join(dataDir, 'checkpoints', 'narrow'),
    seed: 3,
    overrides: { vocab_size: 400, num_hidden_layers: 2, num_experts: 4, max_position_embeddings: 128 },
    corpus: [],
  });
  ({ serve, browser, page } = await openLabInChromium(dataDir, {
    viewport: { width: 1440, height: 900 },
    deviceScaleFactor: 1,
  }));
  page.on('websocket', (ws) =>
    ws.on('framesent', (f) => typeof f.payload === 'string' && f.payload.includes('"runs.list"') && listCalls++),
  );
});

afterAll(async () => {
  await closeLabInChromium({ serve, browser });
  home.remove();
});

async function startEval(suitePath: string, policy: string) {
  const form = page.getByTestId('new-eval');
  await form.locator('input[name="suite"]').fill(suitePath);
  await form.locator('input[name="policy"]').fill(policy);
  await form.getByRole('button', { name: 'Start evaluation' }).click();
}

/** Wait until the page has refreshed the run list at least once more (what used to wipe the error). */
async function afterAListRefresh() {
  const seen = listCalls;
  await expect.poll(() => listCalls, { timeout: 20_000 }).toBeGreaterThan(seen);
  await page.waitForTimeout(300); // let the answer arrive and render
}

/** Lit pixels (luminance above `threshold`) in a clip of a 1× screenshot, counted in the page's own canvas. */
async function litPixels(
  clip: { x: number; y: number; width: number; height: number },
  threshold = 90,
): Promise<number> {
  const png = await page.screenshot({ clip });
  // Decoded by the browser (no PNG library here); a string, since this file is typed for Node.
  return page.evaluate(`(async () => {
    const img = new Image();
    img.src = 'data:image/png;base64,${png.toString('base64')}';
    await img.decode();
    const canvas = document.createElement('canvas');
    canvas.width = img.width;
    canvas.height = img.height;
    const ctx = canvas.getContext('2d');
    ctx.drawImage(img, 0, 0);
    const px = ctx.getImageData(0, 0, img.width, img.height).data;
    let lit = 0;
    for (let i = 0; i < px.length; i += 4) if (0.299 * px[i] + 0.587 * px[i + 1] + 0.114 * px[i + 2] > ${threshold}) lit++;
    return lit;
  })()`);
}

describe('bug 1: Runs form errors stay next to their field', () => {
  const cases: [string, string, 'suite' | 'policy'][] = [
    ['/no/such/suite', 'oracle', 'suite'],
    ['/etc', 'oracle', 'suite'],
    ['SUITE', 'replay:/nope.json', 'policy'],
    ['SUITE', 'onnx:/nope', 'policy'],
  ];
  test.each(cases)('suite %s, policy %s: the error stays by the %s field', async (suitePath, policy, field) => {
    await page.goto(`${serve.url}#/runs`);
    await page.getByTestId('page-runs').waitFor();
    await startEval(suitePath === 'SUITE' ? suite : suitePath, policy);
    const error = page.getByTestId(`error-${field}`);
    await error.waitFor({ timeout: 60_000 });
    const text = await error.textContent();
    // The refresh that used to wipe the error is the same for every input: watch it once.
    if (suitePath === '/no/such/suite') {
      await afterAListRefresh();
      expect(await error.isVisible()).toBe(true);
      expect(await error.textContent()).toBe(text);
    }
    // Changing the field it concerns clears it.
    await page.getByTestId('new-eval').locator(`input[name="${field}"]`).press('End');
    await page.getByTestId('new-eval').locator(`input[name="${field}"]`).pressSequentially('x');
    expect(await error.count()).toBe(0);
  });

  test('a dismissed error goes away', async () => {
    await startEval('/no/such/suite', 'oracle');
    const error = page.getByTestId('error-suite');
    await error.waitFor({ timeout: 60_000 });
    await error.getByRole('button', { name: 'Dismiss' }).click();
    expect(await error.count()).toBe(0);
  });
});

describe('bugs 2 and 3: what a human watches is what the shell showed, readably', () => {
  test('bug 3: the recording has no bracketed-paste markers and shows each command once', async () => {
    await page.goto(`${serve.url}#/runs`);
    await startEval(suite, `replay:${script}`);
    await expect
      .poll(() => page.getByTestId('run-progress').getAttribute('data-state'), { timeout: 120_000 })
      .toBe('done');
    await page.getByTestId('run-tab-episodes').click();
    await page.locator('[data-testid="episode-row"]').first().click({ timeout: 30_000 });
    await page.getByTestId('load-recording').click();
    const player = page.getByTestId('cast-player');
    await player.waitFor();
    // Show the whole recording (the poster frame, or the end of the scrubber on older players).
    const slider = player.locator('input[aria-label="position"]');
    await slider.fill((await slider.getAttribute('max')) ?? '0');
    const screen = player.locator('.cast-screen');
    await expect.poll(() => screen.innerText(), { timeout: 15_000 }).toContain('write_text __init__.py');
    const text = await screen.innerText();
    expect(text).not.toContain('[200~');
    expect(text).not.toContain('[201~');
    expect(text.split('echo write_text __init__.py').length - 1).toBe(1);

    // The file itself, as `asciinema play` would show it.
    const cast = readFileSync(findFile(join(dataDir, 'runs'), 'recording.cast')!, 'utf8');
    expect(cast).not.toContain('^[[200~');
  });

  test('bug 2: the underscores of `write_text` are drawn at 1× DPI (the row is not clipped)', async () => {
    const screen = page.getByTestId('cast-player').locator('.cast-screen');
    const cast = readFileSync(findFile(join(dataDir, 'runs'), 'recording.cast')!, 'utf8');
    const row = screen.locator('.xterm-rows > div').filter({ hasText: 'echo write_text __init__.py' }).first();
    const rowBox = (await row.boundingBox())!;
    const rowText = (await row.textContent()) ?? '';
    const screenBox = (await screen.locator('.xterm-screen').boundingBox())!;
    const cols = Number(JSON.parse(cast.split('\n')[0]!).width);
    const cell = screenBox.width / cols;
    const col = rowText.indexOf('write_text') + 'write'.length;
    const underscore = await litPixels({ x: rowBox.x + col * cell, y: rowBox.y, width: cell, height: rowBox.height });
    const space = await litPixels({
      x: rowBox.x + rowText.indexOf(' write_text') * cell,
      y: rowBox.y,
      width: cell,
      height: rowBox.height,
    });
    expect(space).toBe(0);
    expect(underscore).toBeGreaterThan(2);
  });
});

describe('bug 6: an onnx checkpoint whose window cannot hold the prompts', () => {
  test('is reported before the run starts, and each episode says tokens vs budget', async () => {
    await page.goto(`${serve.url}#/runs`);
    await startEval(suite, `onnx:${join(dataDir, 'checkpoints', 'narrow')}`);
    const error = page.getByTestId('error-policy');
    await error.waitFor({ timeout: 120_000 });
    expect(await error.textContent()).toMatch(
      /1 of 1 task cannot fit .*\d+-token prompt.*window leaves \d+ \(128 positions less \d+ kept for the reply\)/,
    );
    await page.getByTestId('start-anyway').click();
    await expect
      .poll(() => page.getByTestId('run-progress').getAttribute('data-state'), { timeout: 120_000 })
      .toBe('done');
    await page.getByTestId('run-tab-episodes').click();
    await page.locator('[data-testid="episode-row"]').first().click({ timeout: 30_000 });
    const context = page.getByTestId('context-events');
    await context.waitFor();
    expect(await context.textContent()).toMatch(/needed \d[\d,]* tokens; the budget is \d+ .*so the episode stopped/);
  });
});

describe('bugs 4, 5 and 8: Models', () => {
  test('a changed provider reloads the session or fails with the reason (never samples on the old one)', async () => {
    await page.goto(`${serve.url}#/models`);
    await page.getByTestId('checkpoints').getByText('narrow').click();
    await page.getByLabel('prompt', { exact: true }).fill('ls -la');
    await page.getByLabel('max tokens').fill('4');
    await page.getByLabel('provider').selectOption('cpu');
    const button = page.getByRole('button', { name: /^Sampl/ });
    await button.click();
    await expect.poll(() => page.getByTestId('sample-meta').textContent(), { timeout: 60_000 }).toContain('on cpu');
    await page.getByLabel('provider').selectOption('cuda');
    await button.click();
    await expect.poll(() => button.textContent(), { timeout: 60_000 }).toBe('Sample');
    const meta = (await page.getByTestId('sample-meta').count())
      ? await page.getByTestId('sample-meta').textContent()
      : '';
    const alert = (await page.getByRole('alert').count()) ? await page.getByRole('alert').first().textContent() : '';
    // On a machine with CUDA the sample runs there; without, the request fails and says why.
    if (!/on cuda/.test(meta ?? '')) expect(alert).toMatch(/cuda/i);
  });

  test('schema errors are said in words, with the field highlighted', async () => {
    await page.getByLabel('provider').selectOption('cpu');
    await page.getByLabel('max tokens').fill('0');
    await page.getByRole('button', { name: /^Sampl/ }).click();
    const alert = page.getByRole('alert').first();
    await expect.poll(() => alert.textContent(), { timeout: 30_000 }).toContain('Max tokens must be at least 1');
    expect(await alert.textContent()).not.toMatch(/models\.sample|maxTokens|Too small/);
    expect(await page.getByLabel('max tokens').getAttribute('class')).toContain('invalid');
  });

  test('"Add folder" validates, lists each checkpoint once, persists and removes', async () => {
    const outside = join(home.path, 'models', 'mine');
    mkdirSync(outside, { recursive: true });
    initCheckpoint({
      preset: 'nano',
      out: join(outside, 'tiny'),
      seed: 5,
      overrides: { vocab_size: 400, num_hidden_layers: 2, num_experts: 4, max_position_embeddings: 256 },
      corpus: [],
    });
    const input = page.getByLabel('checkpoint folder');
    const add = page.getByRole('button', { name: 'Add folder' });
    await input.fill('');
    expect(await add.isDisabled()).toBe(true);
    for (const [path, message] of [
      ['/no/such/folder', /no folder at \/no\/such\/folder/],
      ['/etc', /\/etc holds no checkpoint/],
      ['relative/path', /relative path/],
    ] as const) {
      await input.fill(path);
      await add.click();
      await expect.poll(() => page.getByTestId('folder-error').textContent(), { timeout: 10_000 }).toMatch(message);
    }
    await input.fill(outside);
    await add.click();
    await page.getByTestId('checkpoints').getByText('tiny').waitFor({ timeout: 10_000 });
    await input.fill(join(home.path, 'models'));
    await add.click();
    await expect.poll(() => page.getByTestId('model-folder').count()).toBe(1);
    expect(await page.getByTestId('checkpoints').getByText('tiny', { exact: true }).count()).toBe(1);
    await page.reload();
    await page.getByTestId('checkpoints').getByText('tiny').waitFor({ timeout: 10_000 });
    expect(await page.getByTestId('model-folder').count()).toBe(1);
    await page.getByTestId('checkpoints').getByText('tiny').click();
    expect(await page.getByTestId('checkpoint-details').locator('td[data-key="tokenizer"]').textContent()).toMatch(
      /^\d+ tokens$/,
    );
    await page.getByRole('button', { name: /^Remove / }).click();
    await expect.poll(() => page.getByTestId('model-folder').count()).toBe(0);
    await expect.poll(() => page.getByTestId('checkpoints').getByText('tiny', { exact: true }).count()).toBe(0);
  });
});

describe('bugs 8 and 9: Shell', () => {
  test('a relative workspace is refused and says why; limits are named as on screen', async () => {
    await page.goto(`${serve.url}#/shell`);
    await page.getByLabel('workspace').fill('some/relative/dir');
    await page.getByRole('button', { name: 'Open shell' }).click();
    const error = page.getByTestId('shell-error');
    await error.waitFor({ timeout: 30_000 });
    expect(await error.textContent()).toMatch(/relative path.*starting with \//);
    expect(await page.getByTestId('sandbox-panel').locator('td[data-key="state"]').textContent()).toBe('not open');

    await page.getByLabel('workspace').fill('');
    await page.getByLabel('memory').fill('1');
    await page.getByRole('button', { name: 'Open shell' }).click();
    await expect.poll(() => error.textContent(), { timeout: 30_000 }).toContain('Memory (MiB) must be at least 32');
    expect(await error.textContent()).not.toMatch(/terminal\.open|limits\.memoryMb|Invalid input/);
    expect(await page.getByLabel('memory').getAttribute('class')).toContain('invalid');
  });
});

describe('bug 7: a lost host connection', () => {
  test('shows a banner, disables inputs, marks the shell disconnected, and reconnects with fresh state', async () => {
    const port = await freePort();
    const token = 'pages-e2e-token-0123456789abcdef';
    const args = ['--port', String(port)];
    const env = { T1LAB_HOME: join(home.path, 'data7'), T1LAB_TOKEN: token };
    let host = await startServe({ args, env });
    const other = await launchChromium();
    try {
      const tab = await other.newPage();
      await tab.goto(`${host.url.replace(/#.*$/, '')}#/shell`);
      await tab.getByRole('button', { name: 'Open shell' }).click();
      await expect
        .poll(() => tab.getByTestId('sandbox-panel').locator('td[data-key="state"]').textContent(), { timeout: 60_000 })
        .toBe('running');
      await host.stop();
      const banner = tab.getByTestId('connection-banner');
      await banner.waitFor({ timeout: 15_000 });
      expect(await tab.getByTestId('sandbox-panel').locator('td[data-key="state"]').textContent()).toMatch(
        /disconnected/,
      );
      expect(await tab.getByTestId('page-fieldset').getAttribute('disabled')).not.toBeNull();
      expect(await tab.getByLabel('workspace').isDisabled()).toBe(true);
      expect(await tab.locator('.xterm-helper-textarea').isDisabled()).toBe(true);

      host = await startServe({ args, env });
      await banner.waitFor({ state: 'detached', timeout: 30_000 });
      expect(await tab.getByTestId('connection').textContent()).toBe('connected');
      expect(await tab.getByLabel('workspace').isDisabled()).toBe(false);
      // The token left the address bar once the cookie worked (deep links: no secret in history or screenshots).
      expect(tab.url()).not.toContain('token=');
      // State refreshed from the new host: its (empty) run list.
      await tab.goto(`http://127.0.0.1:${port}/#/runs`);
      await tab.getByTestId('page-runs').waitFor();
    } finally {
      await other.close();
      await host.stop();
    }
  });
});

function findFile(dir: string, name: string): string | null {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isFile() && entry.name === name) return path;
    if (entry.isDirectory()) {
      const found = findFile(path, name);
      if (found) return found;
    }
  }
  return null;
}
