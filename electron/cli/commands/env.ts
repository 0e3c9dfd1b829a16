/**
 * `t1lab env serve --suite S`: the tasks of a suite or pack as an environment service in OpenEnv's
 * protocol (electron/lab/env). Prints one line on stdout, the URL (with --json, a JSON line that also
 * names the run folder, the limits and the engine hosts); the admin token comes from
 * $T1LAB_ENV_ADMIN_TOKEN or is made per launch and written to --admin-token-file (mode 0600), never printed.
 * `--hosts a,b|all` runs the container episodes on engine hosts, as `eval --hosts` does.
 */
import type { Command } from 'commander';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { randomBytes } from 'node:crypto';
import { EnvService, ENV_DEFAULTS, RewardName } from '../../lab/env/service';
import { startEnvServer, type EnvServer } from '../../lab/env/server';
import { containerNotice, EnvHosts } from '../../lab/env/hosts';
import { openHostPool } from '../../lab/hosts/placement';
import { formatProblem, loadTaskSource } from '../../lab/tasks';
import { labDataDir } from '../../lab/paths';
import { runsDir } from '../../lab/runs/dirs';
import { newRunId } from '../../lab/runs/evaluate';
import { isLoopback, LOOPBACK } from '../../web/server';
import { keepServingOnUncaught } from '../../web/keep-serving';
import { UsageError, WorkFailed } from '../errors';
import type { Io } from '../output';
import { addBackendOptions, backendSettings, HOSTS_OPTION, withHosts, type BackendOptions } from './backend-options';
import { resolveTaskArg } from './tasks-export';

export const ADMIN_TOKEN_ENV = 'T1LAB_ENV_ADMIN_TOKEN';

export interface EnvServeOptions extends BackendOptions {
  suite: string;
  host?: string;
  port?: string;
  maxSessions?: string;
  ttl?: string;
  idleTimeout?: string;
  reward?: string;
  out?: string;
  adminTokenFile?: string;
  json?: boolean;
}

/** What `--json` prints at start (one line). */
export interface EnvServeStartup {
  url: string;
  runDir: string;
  adminTokenFile: string | null;
  suite: string;
  tasks: number;
  maxSessions: number;
  /** --max-sessions, bounded by the live hosts' slots when container tasks run on hosts. */
  sessionCap: number;
  backend: string;
  /** Tasks whose episodes run in a container (on the hosts, with --hosts). */
  containerTasks: number;
  hosts: ReturnType<EnvService['hostViews']>;
  /** Tasks that need a container and cannot be served here (none with --hosts or a local engine). */
  unservable: string[];
}

function positiveInt(flag: string, value: string | undefined, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n <= 0) throw new UsageError(`${flag}: '${value}' is not a positive whole number`);
  return n;
}

export async function envServe(
  opts: EnvServeOptions,
  io: Io,
): Promise<{ server: EnvServer; tokenFile: string | null; runDir: string; startup: EnvServeStartup }> {
  const host = opts.host ?? LOOPBACK;
  const port = opts.port === undefined ? 0 : Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port: '${opts.port}' is not a port number (0-65535)`);
  const reward = RewardName.safeParse(opts.reward ?? 'dense');
  if (!reward.success) throw new UsageError(`--reward: '${opts.reward}' is not dense, fraction or binary`);
  const maxSessions = positiveInt('--max-sessions', opts.maxSessions, ENV_DEFAULTS.maxSessions);
  const ttlSec = positiveInt('--ttl', opts.ttl, ENV_DEFAULTS.ttlSec);
  const idleSec = positiveInt('--idle-timeout', opts.idleTimeout, ENV_DEFAULTS.idleSec);
  const containers = withHosts(backendSettings(opts), opts.hosts);
  const suite = resolve(resolveTaskArg(opts.suite));
  const source = await loadTaskSource(suite);
  for (const bad of source.invalid) {
    io.err(`invalid task ${bad.id} (not served):\n`);
    for (const p of bad.problems) io.err(`  ${formatProblem(p)}\n`);
  }
  if (source.tasks.length === 0) throw new WorkFailed(`no tasks found in ${opts.suite}`);
  const dataDir = labDataDir();
  const fromEnv = process.env[ADMIN_TOKEN_ENV] || undefined;
  if (fromEnv !== undefined && fromEnv.length < 16)
    throw new UsageError(`$${ADMIN_TOKEN_ENV}: the admin token needs at least 16 characters`);
  const adminToken = fromEnv ?? randomBytes(32).toString('base64url');
  let tokenFile: string | null = null;
  if (fromEnv === undefined) {
    tokenFile = resolve(opts.adminTokenFile ?? join(dataDir, 'env', 'admin-token'));
    mkdirSync(dirname(tokenFile), { recursive: true, mode: 0o700 });
    writeFileSync(tokenFile, `${adminToken}\n`, { mode: 0o600 });
    chmodSync(tokenFile, 0o600);
  }
  if (!isLoopback(host))
    io.err(
      `warning: serving on ${host}, not loopback: anyone who reaches it with a session token runs shells in this machine's sandboxes. Prefer an SSH tunnel.\n`,
    );
  const runDir = resolve(opts.out ?? join(runsDir(dataDir), newRunId('eval', 'env-serve')));
  const log = (line: string) => io.err(`t1lab env: ${line}\n`);
  const notice = await containerNotice(source.tasks, containers);
  if (notice) io.err(`warning: ${notice.message}\n`);
  // Engine hosts: asked and swept now (an unreachable one is left out, with the reason), swept again at the end.
  const pool = await openHostPool(containers.hosts, dataDir, basename(runDir), log);
  const hosts = pool ? new EnvHosts(pool, containers.hosts ?? []) : undefined;
  const service = new EnvService({
    tasks: source.tasks,
    suite,
    runDir,
    adminToken,
    maxSessions,
    ttlSec,
    idleSec,
    reward: reward.data,
    containers,
    hosts,
    log,
  });
  const server = await startEnvServer({ service, host, port, log });
  const startup: EnvServeStartup = {
    url: server.url,
    runDir,
    adminTokenFile: tokenFile,
    suite,
    tasks: source.tasks.length,
    maxSessions,
    sessionCap: service.sessionCap(),
    backend: containers.backend,
    containerTasks: service.containerTaskIds().length,
    hosts: service.hostViews(),
    unservable: notice?.tasks ?? [],
  };
  return { server, tokenFile, runDir, startup };
}

export function registerEnv(program: Command, io: Io): void {
  const env = program.command('env').description('serve tasks to trainers outside the lab (OpenEnv protocol)');
  addBackendOptions(
    env
      .command('serve')
      .description(
        "serve the tasks of a suite or pack over OpenEnv's protocol (/reset, /step, /state, /ws), one sandbox and bearer token per session",
      )
      .requiredOption(
        '--suite <suite>',
        'a suite name (nano-bench, id-nano, ...), a pack (.jsonl), a task folder or a folder of tasks',
      )
      .option('--host <host>', 'address to bind (default 127.0.0.1)')
      .option('--port <port>', 'port to bind (default: a free one)')
      .option(
        '--max-sessions <n>',
        `sessions at once; the next gets 429 with Retry-After (default ${ENV_DEFAULTS.maxSessions})`,
      )
      .option('--ttl <seconds>', `a session's whole life (default ${ENV_DEFAULTS.ttlSec})`)
      .option(
        '--idle-timeout <seconds>',
        `a session without a request for this long is ended (default ${ENV_DEFAULTS.idleSec})`,
      )
      .option(
        '--reward <name>',
        'the reward of the final step: dense, fraction or binary (all three are in its observation; default dense)',
      )
      .option('--out <dir>', 'the run folder the episodes are recorded in (default: a new run under $T1LAB_HOME/runs)')
      .option(
        '--admin-token-file <file>',
        `where the per-launch admin token is written, mode 0600 (default $T1LAB_HOME/env/admin-token; $${ADMIN_TOKEN_ENV} gives one instead)`,
      )
      .option(
        HOSTS_OPTION[0],
        'run the sessions\' container episodes on these engine hosts (comma-separated, from `t1lab hosts list`; "all": every enabled host), one free slot each; sessions are bounded also by the live hosts\' slots; bubblewrap tasks stay local',
      )
      .option(
        '--json',
        'print one JSON line {url, runDir, adminTokenFile, suite, tasks, maxSessions, sessionCap, backend, containerTasks, hosts [{name, url, slots, alive}], unservable} instead of the URL',
      ),
  ).action(async (opts: EnvServeOptions) => {
    const { server, tokenFile, runDir, startup } = await envServe(opts, io);
    keepServingOnUncaught((line) => io.err(`t1lab env: ${line}\n`));
    io.err(
      `t1lab env: admin token ${tokenFile ? `in ${tokenFile}` : `from $${ADMIN_TOKEN_ENV}`}; episodes recorded in ${runDir}\n`,
    );
    if (startup.hosts.length)
      io.err(
        `t1lab env: container episodes on ${startup.hosts.map((h) => `${h.name} (${h.alive ? `${h.slots} slot${h.slots === 1 ? '' : 's'}` : 'down'})`).join(', ')}; at most ${startup.sessionCap} sessions at once\n`,
      );
    io.out(opts.json ? `${JSON.stringify(startup)}\n` : `${server.url}\n`);
    await new Promise<void>((done) => {
      process.once('SIGINT', () => done());
      process.once('SIGTERM', () => done());
    });
    await server.close();
  });
}
