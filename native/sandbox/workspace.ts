/**
 * Checks on what a sandbox will see of the host: the workspace (and any extra mount) must exist, be of
 * the right kind, and must not be, or contain, a path the sandbox has to hide (home directories, the
 * lab's data dir, the project's checkout, /). A directory inside those is fine: only it is mounted.
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SandboxError } from './errors';
import type { Mount, SandboxSpec } from './types';

/** The lab's data dir by the same rule as electron/lab/paths.ts (native cannot import it). */
export function defaultDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.T1LAB_HOME) return resolve(env.T1LAB_HOME);
  if (env.XDG_DATA_HOME) return join(resolve(env.XDG_DATA_HOME), 't1-lab');
  return join(homedir(), '.local', 'share', 't1-lab');
}

/** The checkout (or installed app folder) this code runs from: the nearest package.json named t1-lab. */
export function appCheckout(from: string = fileURLToPath(import.meta.url)): string | null {
  let dir = dirname(from);
  for (;;) {
    const pkg = join(dir, 'package.json');
    if (existsSync(pkg)) {
      try {
        if ((JSON.parse(readFileSync(pkg, 'utf8')) as { name?: string }).name === 't1-lab') return dir;
      } catch {
        // not ours
      }
    }
    const parent = dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/** Paths no sandbox may see: each home directory root, the data dir, the checkout. */
export function defaultProtectedPaths(env: NodeJS.ProcessEnv = process.env): string[] {
  const paths = ['/home', '/root', homedir(), defaultDataDir(env)];
  const checkout = appCheckout();
  if (checkout) paths.push(checkout);
  return [...new Set(paths.map((p) => realOrSelf(p)))];
}

function realOrSelf(p: string): string {
  try {
    return realpathSync(p);
  } catch {
    return resolve(p);
  }
}

function isSameOrInside(child: string, parent: string): boolean {
  const rel = relative(parent, child);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
}

/** Resolve and check the workspace; returns its real path (what is bind-mounted). */
export function checkWorkspace(path: string, protectedPaths: string[]): string {
  if (typeof path !== 'string' || path.length === 0)
    throw new SandboxError('BAD_SPEC', 'workspace: a directory path is required');
  const abs = resolve(path);
  let st;
  try {
    st = statSync(abs);
  } catch {
    throw new SandboxError(
      'WORKSPACE_MISSING',
      `workspace ${abs} does not exist`,
      `create it first (mkdir -p ${abs}) or pass an existing directory`,
    );
  }
  if (!st.isDirectory())
    throw new SandboxError('WORKSPACE_NOT_DIR', `workspace ${abs} is not a directory`, 'pass a directory');
  const real = realpathSync(abs);
  checkExposure('workspace', real, protectedPaths);
  return real;
}

/** Check an extra mount: the host path exists and exposes nothing protected; the sandbox path is absolute and clean. */
export function checkMount(mount: Mount, index: number, protectedPaths: string[]): Mount {
  const field = `mounts[${index}]`;
  if (!isAbsolute(mount.sandbox) || mount.sandbox.split('/').includes('..')) {
    throw new SandboxError('BAD_SPEC', `${field}.sandbox: '${mount.sandbox}' must be an absolute path without '..'`);
  }
  const target = mount.sandbox.replace(/\/+$/, '') || '/';
  if (
    ['/', '/usr', '/proc', '/dev', '/etc', '/tmp', '/root', '/run'].includes(target) ||
    target.startsWith('/etc/') ||
    target.startsWith('/usr/') ||
    target.startsWith('/proc/')
  ) {
    throw new SandboxError(
      'BAD_SPEC',
      `${field}.sandbox: '${mount.sandbox}' would replace a system directory of the sandbox`,
    );
  }
  const abs = resolve(mount.host);
  if (!existsSync(abs)) throw new SandboxError('BAD_SPEC', `${field}.host: ${abs} does not exist`);
  const real = realpathSync(abs);
  checkExposure(field, real, protectedPaths);
  return { ...mount, host: real };
}

function checkExposure(field: string, real: string, protectedPaths: string[]): void {
  const systemRoots = ['/proc', '/sys', '/dev', '/usr', '/etc', '/boot', '/run', '/bin', '/sbin', '/lib', '/lib64'];
  if (real === sep || real === '/var' || real === '/tmp' || systemRoots.some((p) => isSameOrInside(real, p))) {
    throw new SandboxError(
      'WORKSPACE_UNSAFE',
      `${field} ${real} is a system directory`,
      'use a directory of its own, e.g. one made with mktemp -d',
    );
  }
  for (const p of protectedPaths) {
    if (isSameOrInside(p, real)) {
      throw new SandboxError(
        'WORKSPACE_UNSAFE',
        `${field} ${real} would expose ${p} (home directories, the lab's data dir and the checkout stay hidden)`,
        'use a directory inside it that holds only the task files',
      );
    }
  }
}

/** Apply the checks to a whole spec; returns the spec with real paths. */
export function checkSpecPaths(spec: SandboxSpec, protectedPaths: string[]): { workspace: string; mounts: Mount[] } {
  const workspace = checkWorkspace(spec.workspace, protectedPaths);
  const mounts = (spec.mounts ?? []).map((m, i) => checkMount(m, i, protectedPaths));
  return { workspace, mounts };
}
