/**
 * Whether an engine host sees this machine's files. Then the API backend binds a spec's folders (the
 * workspace, /tests, the shell's rc file) as the CLI path does, instead of copying them in before the start
 * and the writable ones back after the stop (~250 ms an episode, measured on a local podman service). A
 * unix socket alone does not say it: the engine may run in a VM whose socket is forwarded here. So the host
 * is asked once: a container that binds a fresh folder of this machine reads a random token written there
 * and writes it back, and the answer is kept for the host (its EngineClient). The file it wrote must be
 * this process's user's too: a rootful engine under a lab that is not root would leave root's files in the
 * workspace, which the lab could not remove (copies are unpacked as the lab's user). Only a unix-socket
 * host is asked (a tcp or ssh one is taken as elsewhere: a bind there would make a folder on that
 * machine), and a host set to `files: 'copy'` never is.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type Docker from 'dockerode';
import { defaultLimits } from '../../limits';
import type { SandboxSpec } from '../../types';
import type { HardLimits } from '../engine';
import { containerName } from '../run-args';
import { withTimeout, type ApiEngine, type EngineClient } from './client';
import { createOptions } from './create-options';
import { exitStatus } from './exit-status';
import { labLabels, type LabelContext } from './labels';

/** How long the probe's container may take, from its creation to its exit. */
export const PROBE_MS = 30_000;
/** Where the probe's container sees the folder (it is removed after; nothing is committed). */
const PROBE_MOUNT = '/t1lab-probe';
/** The probe reads the token with the shell's builtins only: any image the lab runs has a /bin/sh. */
const PROBE_SCRIPT = 'read -r t < "$0/in" && printf "%s\\n" "$t" > "$0/out"';

const answers = new WeakMap<EngineClient, Promise<boolean>>();

/** Whether the host's containers can bind this machine's folders (asked once per host; `image` runs the probe). */
export function sharesFiles(
  client: EngineClient,
  engine: ApiEngine,
  image: string,
  labels: LabelContext,
  hard?: HardLimits,
): Promise<boolean> {
  if (client.config.files === 'copy' || client.parsed.transport !== 'unix') return Promise.resolve(false);
  let answer = answers.get(client);
  if (!answer) {
    answer = probe(client, engine, image, labels, hard).catch((e: { statusCode?: number }) => {
      // The engine refused the bind (the folder is not there: another machine's engine): copy from now on.
      // No answer (the host is down) or no such image: copy this time, and ask again next time.
      if (!e?.statusCode || e.statusCode === 404) answers.delete(client);
      return false;
    });
    answers.set(client, answer);
  }
  return answer;
}

/** Forget what a host answered (tests; a host whose engine moved). */
export function forgetSharedFiles(client: EngineClient): void {
  answers.delete(client);
}

async function probe(
  client: EngineClient,
  engine: ApiEngine,
  image: string,
  labels: LabelContext,
  hard?: HardLimits,
): Promise<boolean> {
  const dir = await mkdtemp(join(tmpdir(), `t1lab-share-${process.pid}-`));
  const token = randomBytes(16).toString('hex');
  let container: Docker.Container | null = null;
  try {
    await writeFile(join(dir, 'in'), `${token}\n`);
    const spec: SandboxSpec = {
      workspace: dir,
      net: false,
      limits: defaultLimits(),
      mounts: [{ host: dir, sandbox: PROBE_MOUNT, readOnly: false }],
      // As root: the folder is this machine's user's (0700), whoever the image's user is.
      container: { image, user: '0:0' },
    };
    container = await client.docker.createContainer(
      createOptions(
        spec,
        ['/bin/sh', '-c', PROBE_SCRIPT, PROBE_MOUNT],
        containerName(),
        labLabels(labels, 'probe', PROBE_MS),
        { tty: false, stdin: false, bindMounts: true },
        hard,
      ),
    );
    const made = container;
    const status = await withTimeout(
      made.start().then(() => exitStatus(made, engine)),
      PROBE_MS,
      `the file-sharing probe took over ${PROBE_MS / 1000} s`,
    );
    if (status !== 0) return false;
    const out = join(dir, 'out');
    if ((await readFile(out, 'utf8').catch(() => '')).trim() !== token) return false;
    return (await stat(out)).uid === (process.getuid?.() ?? 0);
  } finally {
    await container?.remove({ force: true, v: true }).catch(() => {});
    await rm(dir, { recursive: true, force: true });
  }
}
