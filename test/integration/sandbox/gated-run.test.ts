/**
 * A gated run (RunOptions.gate, issue 16's warm verifier): the sandbox and its command start at once; stdin,
 * the wall clock and the host monitor come with the opening; a gate shut with null stops the command.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunGateOpen } from '../../../native/sandbox/types';
import { makeTempDir } from '../../helpers/tmp';
import { backend, leftoverSandboxes, monitorIdle, specFor } from '../../helpers/sandbox';

let ws: { path: string; remove(): void };
beforeEach(() => {
  ws = makeTempDir('t1lab-gated-');
});
afterEach(() => {
  ws.remove();
  expect(leftoverSandboxes()).toEqual([]);
  expect(monitorIdle()).toBe(true);
});

function gate() {
  let open: (value: RunGateOpen | null) => void = () => {};
  const opened = new Promise<RunGateOpen | null>((resolve) => (open = resolve));
  return { opened, open };
}

async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((r) => setTimeout(r, 20));
}

describe('gated sandbox run', () => {
  it('starts the command before the gate opens and gives it stdin at the opening', async () => {
    const g = gate();
    const run = backend.run(
      specFor(ws.path),
      ['/bin/bash', '-c', 'echo up > started; read line; echo "got $line"; cat made-later.txt'],
      { gate: g.opened },
    );
    await until(() => existsSync(join(ws.path, 'started')));
    // What the host puts in the workspace before the opening is there for the command.
    writeFileSync(join(ws.path, 'made-later.txt'), 'later\n');
    g.open({ stdin: 'go\n', wallSeconds: 30 });
    expect(await run).toMatchObject({
      exitCode: 0,
      timedOut: false,
      limit: null,
      stdout: 'got go\nlater\n',
      beforeGate: false,
    });
  });

  it('starts the wall clock at the opening, with the opening deadline', async () => {
    const waited = gate();
    // limits.wallSeconds = 1 would have fired while the gate was shut: it is replaced by the opening's.
    const first = backend.run(specFor(ws.path, { wallSeconds: 1 }), ['/bin/bash', '-c', 'read line; echo "$line"'], {
      gate: waited.opened,
    });
    await new Promise((r) => setTimeout(r, 1500));
    waited.open({ stdin: 'late\n', wallSeconds: 30 });
    expect(await first).toMatchObject({ exitCode: 0, timedOut: false, stdout: 'late\n' });

    const slow = gate();
    const second = backend.run(specFor(ws.path), ['/bin/bash', '-c', 'read line; sleep 20'], { gate: slow.opened });
    slow.open({ stdin: 'go\n', wallSeconds: 1 });
    expect(await second).toMatchObject({ timedOut: true, limit: 'wallSeconds' });
  });

  it('a gate shut with null stops the command unstarted', async () => {
    const g = gate();
    const run = backend.run(specFor(ws.path), ['/bin/bash', '-c', 'echo up > started; read line; echo ran > ran'], {
      gate: g.opened,
    });
    await until(() => existsSync(join(ws.path, 'started')));
    g.open(null);
    expect(await run).toMatchObject({ aborted: true, beforeGate: true });
    expect(existsSync(join(ws.path, 'ran'))).toBe(false);
  });

  it('a command that ends before its gate opens says so', async () => {
    const g = gate();
    const r = await backend.run(specFor(ws.path), ['/bin/sh', '-c', 'exit 4'], { gate: g.opened });
    expect(r).toMatchObject({ exitCode: 4, beforeGate: true, aborted: false });
  });

  it('an abort signal given with the opening stops the command', async () => {
    const g = gate();
    const controller = new AbortController();
    const run = backend.run(specFor(ws.path), ['/bin/bash', '-c', 'read line; sleep 20'], { gate: g.opened });
    g.open({ stdin: 'go\n', wallSeconds: 30, signal: controller.signal });
    setTimeout(() => controller.abort(), 200);
    expect(await run).toMatchObject({ aborted: true, beforeGate: false });
  });
});
