/** `t1lab sandbox run` and `t1lab sandbox shell` as real processes. */
import { spawnSync } from 'node:child_process';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseJsonOutput, REPO_ROOT, runT1lab } from '../../helpers/cli';
import { makeTempDir } from '../../helpers/tmp';

interface RunJson {
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  limit: string | null;
  stdout: string;
  stderr: string;
  durationMs: number;
}

// The CLI's temporary workspaces go here, so the test can see that they are removed.
const tmp = makeTempDir('t1lab-cli-tmp-');
const ws = makeTempDir('t1lab-cli-ws-');
afterAll(() => {
  tmp.remove();
  ws.remove();
});

const run = async (args: string[], input?: string) =>
  runT1lab(['sandbox', 'run', ...args], { env: { TMPDIR: tmp.path }, input });
const runJson = async (args: string[]) => {
  const r = await run(['--json', ...args]);
  expect(r.code, r.stderr).toBe(0);
  return parseJsonOutput<RunJson>(r);
};

describe('t1lab sandbox run --json', () => {
  it('prints exactly the documented shape for a successful command', async () => {
    const out = await runJson(['--', 'sh', '-c', 'echo out; echo err >&2; pwd; ls -A']);
    expect(Object.keys(out).sort()).toEqual([
      'durationMs',
      'exitCode',
      'limit',
      'signal',
      'stderr',
      'stdout',
      'timedOut',
    ]);
    expect(out).toMatchObject({
      exitCode: 0,
      signal: null,
      timedOut: false,
      limit: null,
      stdout: 'out\n/app\n',
      stderr: 'err\n',
    });
    expect(out.durationMs).toBeGreaterThan(0);
    expect(readdirSync(tmp.path).filter((n) => n.startsWith('t1lab-run-'))).toEqual([]);
  });

  it('reports a failing command', async () => {
    expect(await runJson(['--', 'sh', '-c', 'exit 7'])).toMatchObject({
      exitCode: 7,
      signal: null,
      timedOut: false,
      limit: null,
    });
  });

  it('reports a timeout', async () => {
    expect(await runJson(['--timeout', '1', '--', 'sleep', '30'])).toMatchObject({
      exitCode: null,
      signal: 'SIGKILL',
      timedOut: true,
      limit: 'wallSeconds',
    });
  });

  it('names the memory limit', async () => {
    const out = await runJson(['--memory', '64', '--', 'python3', '-c', 'x = bytearray(300 * 1024 * 1024)']);
    expect(out.limit).toBe('memoryMb');
    expect(out.exitCode).not.toBe(0);
  });

  it('names the processes limit', async () => {
    expect((await runJson(['--processes', '32', '--', 'bash', '-c', 'f(){ f | f & }; f; sleep 20'])).limit).toBe(
      'processes',
    );
  });

  it('names the CPU limit', async () => {
    expect(await runJson(['--cpu', '1', '--', 'sh', '-c', 'while :; do :; done'])).toMatchObject({
      limit: 'cpuSeconds',
      signal: 'SIGXCPU',
    });
  });

  it('names the workspace size limit', async () => {
    const out = await runJson([
      '--workspace-size',
      '5',
      '--',
      'sh',
      '-c',
      'for i in $(seq 100); do head -c 1000000 /dev/zero > /app/f$i; done',
    ]);
    expect(out.limit).toBe('workspaceMb');
  });

  it('names the output cap when output was cut', async () => {
    const out = await runJson(['--', 'sh', '-c', 'head -c 3000000 /dev/zero | tr "\\0" x']);
    expect(out.limit).toBe('output');
    expect(out.stdout).toMatch(/\[\.\.\. \d+ chars cut \.\.\.\]/);
  });

  it('uses a given workspace and leaves it in place', async () => {
    writeFileSync(join(ws.path, 'given.txt'), 'mine');
    const out = await runJson([
      '--workspace',
      ws.path,
      '--env',
      'WHO=tester',
      '--',
      'sh',
      '-c',
      'cat given.txt; echo " $WHO"; echo new > new.txt',
    ]);
    expect(out.stdout).toBe('mine tester\n');
    expect(readdirSync(ws.path).sort()).toEqual(['given.txt', 'new.txt']);
  });
});

describe('t1lab sandbox run (plain)', () => {
  it("streams the output and exits with the command's status", async () => {
    const r = await run(['--', 'sh', '-c', 'echo visible; exit 4']);
    expect(r.code).toBe(4);
    expect(r.stdout).toBe('visible\n');
  });
  it('passes stdin through', async () => {
    const r = await run(['--', 'tr', 'a-z', 'A-Z'], 'shout');
    expect(r).toMatchObject({ code: 0, stdout: 'SHOUT' });
  });
  it('says which limit fired and exits 128+signal', async () => {
    const r = await run(['--timeout', '1', '--', 'sleep', '30']);
    expect(r.code).toBe(137);
    expect(r.stderr).toMatch(/wall-clock deadline limit fired/);
  });
  it('explains a missing workspace (exit 1) and bad usage (exit 2)', async () => {
    const missing = await run(['--workspace', join(ws.path, 'nope'), '--', 'true']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/does not exist; create it first/);
    expect((await run(['--memory', 'lots', '--', 'true'])).code).toBe(2);
    expect((await run([])).code).toBe(2);
  });
});

describe('t1lab sandbox shell', () => {
  it('opens an interactive sandboxed shell in the terminal', () => {
    // script(1) gives the CLI a terminal; our input is what the user types.
    const cli = `${process.execPath} --import tsx ${join(REPO_ROOT, 'electron/cli/t1lab.ts')} sandbox shell`;
    const r = spawnSync('script', ['-qec', cli, '/dev/null'], {
      input: 'echo inside-$((40+2)) $(id -u) $PWD\nexit 3\n',
      encoding: 'utf8',
      timeout: 30_000,
      cwd: REPO_ROOT,
      env: { ...process.env, TMPDIR: tmp.path },
    });
    expect(r.stdout).toContain('inside-42 0 /app');
    expect(r.status).toBe(3);
    expect(readdirSync(tmp.path).filter((n) => n.startsWith('t1lab-shell-'))).toEqual([]);
  });
});
