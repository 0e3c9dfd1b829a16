/**
 * Is bubblewrap here and usable? Used by `t1lab doctor` and before any sandbox starts, so that a missing
 * package or disabled user namespaces get a clear error with the fix instead of a cryptic bwrap failure.
 */
import { existsSync } from 'node:fs';
import { execQuiet } from '../util/exec';
import type { BwrapFeatures } from './bwrap-args';

export interface BubblewrapStatus {
  backend: 'bubblewrap';
  path: string | null;
  version: string | null;
  ok: boolean;
  /** What to do when not ok; null when ok. */
  hint: string | null;
  /** Why it is not ok, as a code the backend turns into its error (additive). */
  problem?: 'missing' | 'userns' | 'prlimit' | null;
  /** Options this bwrap supports (additive). */
  features?: BwrapFeatures;
  /** Where prlimit (util-linux) is; it sets the rlimits inside the sandbox. */
  prlimitPath?: string | null;
}

export const INSTALL_BWRAP_HINT =
  'install bubblewrap: `sudo apt-get install bubblewrap` (Debian/Ubuntu) or `sudo dnf install bubblewrap` (Fedora)';
export const USERNS_HINT =
  'bubblewrap cannot create user namespaces here; allow them with `sudo sysctl -w kernel.unprivileged_userns_clone=1` ' +
  '(Debian) or `sudo sysctl -w kernel.apparmor_restrict_unprivileged_userns=0` (Ubuntu 24.04+), or run inside a VM/container that permits them';
export const PRLIMIT_HINT =
  'install util-linux (it provides /usr/bin/prlimit, which sets the sandbox limits): `sudo apt-get install util-linux`';

let cached: Promise<BubblewrapStatus> | null = null;

export function detectBubblewrap(options: { fresh?: boolean } = {}): Promise<BubblewrapStatus> {
  if (!cached || options.fresh) cached = probe();
  return cached;
}

async function probe(): Promise<BubblewrapStatus> {
  const which = await execQuiet('sh', ['-c', 'command -v bwrap']);
  const path = which.ok ? which.stdout.trim() : null;
  if (!path)
    return {
      backend: 'bubblewrap',
      path: null,
      version: null,
      ok: false,
      hint: INSTALL_BWRAP_HINT,
      problem: 'missing',
    };
  const [v, help] = await Promise.all([execQuiet(path, ['--version']), execQuiet(path, ['--help'])]);
  const version = v.ok ? v.stdout.trim().replace(/^bubblewrap\s+/, '') : null;
  const helpText = help.stdout + help.stderr;
  const features: BwrapFeatures = {
    disableUserns: helpText.includes('--disable-userns'),
    tmpfsSize: helpText.includes('--size') && helpText.includes('--perms'),
  };
  // The smallest real sandbox: new user + pid namespaces, read-only root, run `true`.
  const trial = await execQuiet(
    path,
    [
      '--unshare-user',
      '--unshare-pid',
      '--die-with-parent',
      '--ro-bind',
      '/',
      '/',
      '--proc',
      '/proc',
      '--dev',
      '/dev',
      'true',
    ],
    { timeoutMs: 10_000 },
  );
  if (!trial.ok) {
    const detail = trial.stderr.trim().split('\n')[0] ?? '';
    return {
      backend: 'bubblewrap',
      path,
      version,
      ok: false,
      hint: `${USERNS_HINT} (bwrap said: ${detail})`,
      problem: 'userns',
      features,
    };
  }
  const prlimitPath = ['/usr/bin/prlimit', '/bin/prlimit'].find((p) => existsSync(p)) ?? null;
  if (!prlimitPath)
    return {
      backend: 'bubblewrap',
      path,
      version,
      ok: false,
      hint: PRLIMIT_HINT,
      problem: 'prlimit',
      features,
      prlimitPath,
    };
  return { backend: 'bubblewrap', path, version, ok: true, hint: null, problem: null, features, prlimitPath };
}
