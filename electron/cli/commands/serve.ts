/** `t1lab serve`: the app in a browser. Prints exactly one line on stdout: the URL with its token. */
import type { Command } from 'commander';
import { createLabHost } from '../../lab/host';
import { rendererDir } from '../../lab/app-paths';
import { labDataDir } from '../../lab/paths';
import { forkLauncher } from '../../processes/launcher';
import { isLoopback, LOOPBACK, startWebHost, type WebHost } from '../../web/server';
import { newToken } from '../../web/auth';
import { keepServingOnUncaught } from '../../web/keep-serving';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Io } from '../output';
import { UsageError } from '../errors';

export interface ServeOptions {
  host?: string;
  port?: string;
  token?: string;
}

export async function serve(opts: ServeOptions, io: Io): Promise<{ web: WebHost; stop: () => Promise<void> }> {
  const host = opts.host ?? LOOPBACK;
  const port = opts.port === undefined ? 0 : Number(opts.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new UsageError(`--port: '${opts.port}' is not a port number (0-65535)`);
  const token = opts.token ?? process.env.T1LAB_TOKEN ?? newToken();
  if (token.length < 16) throw new UsageError('--token / T1LAB_TOKEN: a token needs at least 16 characters');
  const staticDir = rendererDir();
  if (!existsSync(join(staticDir, 'index.html')))
    throw new UsageError(`the UI is not built (${staticDir} has no index.html): run \`npm run build\``);
  if (!isLoopback(host)) {
    io.err(
      `warning: serving on ${host}, not loopback: anyone who can reach this address and has the token can run shells as you. ` +
        'Prefer an SSH tunnel to 127.0.0.1.\n',
    );
  }
  const lab = createLabHost({ dataDir: labDataDir(), launcher: forkLauncher });
  const web = await startWebHost({ attach: (c) => lab.attach(c), staticDir, token, host, port });
  return {
    web,
    stop: async () => {
      await web.close();
      await lab.dispose();
    },
  };
}

export function registerServe(program: Command, io: Io): void {
  program
    .command('serve')
    .description('serve the app to a browser (web mode): loopback only unless --host says otherwise')
    .option('--host <host>', 'address to bind (default 127.0.0.1)')
    .option('--port <port>', 'port to bind (default: a free one)')
    .option('--token <token>', 'access token (default: $T1LAB_TOKEN, else random per launch)')
    .action(async (opts: ServeOptions) => {
      const { web, stop } = await serve(opts, io);
      keepServingOnUncaught((line) => io.err(`t1lab serve: ${line}\n`));
      io.out(`${web.url}\n`);
      await new Promise<void>((resolve) => {
        const quit = () => resolve();
        process.once('SIGINT', quit);
        process.once('SIGTERM', quit);
      });
      await stop();
    });
}
