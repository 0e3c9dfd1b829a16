/**
 * `t1lab sandbox run [--net] [--timeout SEC] [--memory MB] [--workspace DIR] [--json] -- CMD [ARG...]`
 * `t1lab sandbox shell [--workspace DIR] [--net]`
 *
 * `run` without --json streams the command's output and exits with its status (128+N when a signal N
 * ended it), like `docker run`; with --json it prints {exitCode, signal, timedOut, limit, stdout, stderr,
 * durationMs} and exits 0 once the sandbox ran, whatever the command did. Either way, 1 means the sandbox
 * could not run (the message says why and what to do), 2 a usage mistake.
 */
import { constants } from 'node:os';
import type { Command } from 'commander';
import { describeLimit, openInteractiveShell, runInSandbox } from '../../lab/sandbox/run-command';
import { ExitStatus, UsageError } from '../errors';
import { printJson, type Io } from '../output';

interface RunOptions {
  net?: boolean;
  timeout?: string;
  memory?: string;
  cpu?: string;
  processes?: string;
  workspaceSize?: string;
  workspace?: string;
  env?: string[];
  json?: boolean;
}

function positiveInt(flag: string, value: string | undefined, min = 1): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < min)
    throw new UsageError(`${flag}: '${value}' is not a whole number of at least ${min}`);
  return n;
}

function parseEnv(pairs: string[] = []): Record<string, string> {
  const env: Record<string, string> = {};
  for (const pair of pairs) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--env: '${pair}' is not NAME=VALUE`);
    env[pair.slice(0, eq)] = pair.slice(eq + 1);
  }
  return env;
}

async function readStdin(): Promise<string | undefined> {
  if (process.stdin.isTTY) return undefined;
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

export function registerSandbox(program: Command, io: Io): void {
  const sandbox = program.command('sandbox').description('run commands and shells in a bubblewrap sandbox');

  sandbox
    .command('run')
    .description('run one command in a sandbox (a fresh empty workspace unless --workspace)')
    .argument('<command...>', 'the command and its arguments (after --)')
    .option('--net', 'allow network access (default: none, not even the host loopback)')
    .option('--timeout <sec>', 'wall-clock deadline in seconds; the whole sandbox is killed then (default 900)')
    .option('--memory <mb>', 'memory cap in MiB (default 2048)')
    .option('--cpu <sec>', 'CPU time per process in seconds (default 600)')
    .option('--processes <n>', 'processes and threads (default 256)')
    .option('--workspace-size <mb>', 'cap on the workspace size in MiB (default 2048)')
    .option('--workspace <dir>', 'host directory mounted read-write at /app')
    .option('--env <NAME=VALUE...>', 'environment variables for the command (the rest is scrubbed)')
    .option('--json', 'print {exitCode, signal, timedOut, limit, stdout, stderr, durationMs} as JSON')
    .action(async (argv: string[], opts: RunOptions) => {
      const limits = {
        wallSeconds: positiveInt('--timeout', opts.timeout),
        memoryMb: positiveInt('--memory', opts.memory),
        cpuSeconds: positiveInt('--cpu', opts.cpu),
        processes: positiveInt('--processes', opts.processes),
        workspaceMb: positiveInt('--workspace-size', opts.workspaceSize),
      };
      const stdin = await readStdin();
      const controller = new AbortController();
      const onSignal = () => controller.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        const result = await runInSandbox({
          argv,
          workspace: opts.workspace,
          net: !!opts.net,
          limits: Object.fromEntries(Object.entries(limits).filter(([, v]) => v !== undefined)),
          env: parseEnv(opts.env),
          stdin,
          signal: controller.signal,
          onOutput: opts.json ? undefined : (stream, chunk) => (stream === 'stdout' ? io.out(chunk) : io.err(chunk)),
        });
        if (opts.json) {
          const { exitCode, signal, timedOut, limit, stdout, stderr, durationMs } = result;
          printJson(io, { exitCode, signal, timedOut, limit, stdout, stderr, durationMs });
          return;
        }
        if (result.limit && result.limit !== 'output')
          io.err(`t1lab: the sandbox's ${describeLimit(result.limit)} limit fired\n`);
        const status =
          result.exitCode ?? 128 + (result.signal ? (constants.signals[result.signal as NodeJS.Signals] ?? 9) : 9);
        if (status !== 0) throw new ExitStatus(status);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });

  sandbox
    .command('shell')
    .description('an interactive shell in a sandbox (a fresh empty workspace unless --workspace)')
    .option('--workspace <dir>', 'host directory mounted read-write at /app')
    .option('--net', 'allow network access')
    .option('--memory <mb>', 'memory cap in MiB (default 2048)')
    .option('--record <file>', 'record the session as asciicast v2 (asciinema play FILE)')
    .action(async (opts: { workspace?: string; net?: boolean; memory?: string; record?: string }) => {
      const stdin = process.stdin;
      const stdout = process.stdout;
      const shell = await openInteractiveShell({
        workspace: opts.workspace,
        net: !!opts.net,
        limits: opts.memory ? { memoryMb: positiveInt('--memory', opts.memory) } : {},
        cols: stdout.columns || 80,
        rows: stdout.rows || 24,
        recordPath: opts.record,
      });
      io.err(
        `t1lab: sandboxed shell on ${shell.workspace} (at /app); network ${opts.net ? 'on' : 'off'}; memory ${shell.limits.memoryMb} MiB; exit or Ctrl-D to leave\n`,
      );
      const { session } = shell;
      session.onData((data) => stdout.write(data));
      const wasRaw = stdin.isTTY ? stdin.isRaw : false;
      if (stdin.isTTY) stdin.setRawMode(true);
      const onInput = (chunk: Buffer) => session.write(chunk.toString('utf8'));
      const onResize = () => session.resize(stdout.columns || 80, stdout.rows || 24);
      stdin.on('data', onInput);
      stdin.resume();
      stdout.on('resize', onResize);
      const exit = await new Promise<{ exitCode: number | null; limit: string | null }>((resolve) =>
        session.onExit(resolve),
      );
      stdin.off('data', onInput);
      stdout.off('resize', onResize);
      if (stdin.isTTY) stdin.setRawMode(wasRaw);
      stdin.pause();
      await shell.close();
      if (exit.limit) io.err(`t1lab: the sandbox's ${describeLimit(exit.limit as never)} limit fired\n`);
      if ((exit.exitCode ?? 1) !== 0) throw new ExitStatus(exit.exitCode ?? 1);
    });
}
