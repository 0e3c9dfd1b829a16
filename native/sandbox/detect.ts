/**
 * Is bubblewrap here and usable? Used by `t1lab doctor` and before any sandbox starts, so that a missing
 * package or disabled user namespaces get a clear error with the fix instead of a cryptic bwrap failure.
 */
import { execQuiet } from '../util/exec';

export interface BubblewrapStatus {
  backend: 'bubblewrap';
  path: string | null;
  version: string | null;
  ok: boolean;
  /** What to do when not ok; null when ok. */
  hint: string | null;
}

export const INSTALL_BWRAP_HINT = 'install bubblewrap: `sudo apt-get install bubblewrap` (Debian/Ubuntu) or `sudo dnf install bubblewrap` (Fedora)';
export const USERNS_HINT =
  'bubblewrap cannot create user namespaces here; allow them with `sudo sysctl -w kernel.unprivileged_userns_clone=1` ' +
  '(Debian) or `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (Ubuntu 24.04+), or run inside a VM/container that permits them';

let cached: Promise<BubblewrapStatus> | null = null;

export function detectBubblewrap(options: { fresh?: boolean } = {}): Promise<BubblewrapStatus> {
  if (!cached || options.fresh) cached = probe();
  return cached;
}

async function probe(): Promise<BubblewrapStatus> {
  const which = await execQuiet('sh', ['-c', 'command -v bwrap']);
  const path = which.ok ? which.stdout.trim() : null;
  if (!path) return { backend: 'bubblewrap', path: null, version: null, ok: false, hint: INSTALL_BWRAP_HINT };
  const v = await execQuiet(path, ['--version']);
  const version = v.ok ? v.stdout.trim().replace(/^bubblewrap\s+/, '') : null;
  // The smallest real sandbox: new user + pid namespaces, read-only root, run `true`.
  const trial = await execQuiet(path, ['--unshare-user', '--unshare-pid', '--die-with-parent', '--ro-bind', '/', '/', '--proc', '/proc', '--dev', '/dev', 'true'], { timeoutMs: 10_000 });
  if (!trial.ok) {
    const detail = trial.stderr.trim().split('\n')[0] ?? '';
    return { backend: 'bubblewrap', path, version, ok: false, hint: `${USERNS_HINT} (bwrap said: ${detail})` };
  }
  return { backend: 'bubblewrap', path, version, ok: true, hint: null };
}
