/**
 * A podman API service of the test's own (`podman system service` on a unix socket in a temp folder, with
 * its own storage root), and a tiny root file system (busybox and bash, from the Debian archive with
 * mmdebstrap, cached in the temp dir) to import into it. `stop()` ends the service and resets its storage.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, renameSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { stopEngine, unmountUnder, waitForEngine } from './engine-service';
import { missingProgram, optionalSkip } from './skip';

const RUNC = ['/usr/bin/runc', '/usr/sbin/runc', '/usr/local/bin/runc'].find((p) => existsSync(p));

/** Why podman API tests cannot run here, or null. */
export function podmanServiceSkip(): string | null {
  if (process.getuid?.() !== 0)
    return optionalSkip('the podman API service is tested as root (rootless podman needs /etc/subuid set up)');
  return (
    missingProgram('podman', 'podman') ??
    missingProgram('mmdebstrap', 'mmdebstrap') ??
    (RUNC ? null : missingProgram('runc', 'runc'))
  );
}

export interface PodmanService {
  dir: string;
  socket: string;
  url: string;
  child: ChildProcess;
  /** podman's own CLI on this service's storage (for checks the test makes behind the API's back). */
  cli(args: string[]): { status: number | null; stdout: string; stderr: string };
  stop(): Promise<void>;
}

/** `sharedStorage`: the machine's own podman storage (as the CLI sees it); `stop()` then removes nothing there. */
export async function startPodmanService(
  dir: string,
  options: { sharedStorage?: boolean } = {},
): Promise<PodmanService> {
  mkdirSync(dir, { recursive: true });
  const socket = join(dir, 'podman.sock');
  const own = !options.sharedStorage;
  const storage = [
    ...(own ? ['--root', join(dir, 'root'), '--runroot', join(dir, 'run')] : []),
    ...(RUNC ? ['--runtime', RUNC] : []),
  ];
  const child = spawn('podman', [...storage, 'system', 'service', '--time=0', `unix://${socket}`], {
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await waitForEngine(child, socket, { what: 'podman system service', timeoutMs: 30_000, pollMs: 200 });
  const cli = (args: string[]) => {
    const r = spawnSync('podman', [...storage, ...args], { encoding: 'utf8', timeout: 120_000 });
    return { status: r.status, stdout: r.stdout, stderr: r.stderr };
  };
  return {
    dir,
    socket,
    url: `unix://${socket}`,
    child,
    cli,
    async stop() {
      // Containers first (a container outlives its service, conmon holding it), then the service, then storage.
      if (own) cli(['rm', '--all', '--force', '--time', '0']);
      await stopEngine(child, 10_000);
      if (own) {
        cli(['system', 'reset', '--force']);
        // The overlay driver bind-mounts its own folder; a reset can leave that mount, and then the folder cannot go.
        unmountUnder(dir);
      }
    },
  };
}

/** A root file system tarball with busybox (its applets linked in /bin) and bash: ~25 MB, ~10 s to build once. */
export function tinyRootfs(): string {
  const tar = join(tmpdir(), 't1lab-test-rootfs-busybox-bash-1.tar');
  if (existsSync(tar)) return tar;
  const dir = join(tmpdir(), `t1lab-test-rootfs-${process.pid}`);
  const build = spawnSync(
    'sh',
    [
      '-c',
      `set -e; rm -rf "$1"; mmdebstrap --quiet --variant=extract --include=busybox-static,bash bookworm "$1"; chroot "$1" /bin/busybox --install -s /bin; mkdir -p "$1/tmp" "$1/root"; tar -C "$1" -cf "$2.part" .; rm -rf "$1"`,
      'sh',
      dir,
      tar,
    ],
    { encoding: 'utf8', timeout: 300_000 },
  );
  if (build.status !== 0) throw new Error(`building the test root file system failed:\n${build.stderr.slice(-2000)}`);
  renameSync(`${tar}.part`, tar);
  return tar;
}
