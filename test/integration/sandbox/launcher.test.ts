/**
 * The launcher shell (bwrap-args.ts) on its own, run by the real /bin/sh with a harmless command in place
 * of bwrap: it sets every outside rlimit as a hard limit, in the units the kernel reports, and refuses to
 * start anything when a limit or a cgroup cannot be set.
 */
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { innerCommand, LAUNCHER_SCRIPT, launcherLimits } from '../../../native/sandbox/bwrap-args';
import { shellRcText, SHELL_NPROC_ENV } from '../../../native/sandbox/shell-start';
import { testLimits } from '../../helpers/sandbox';
import { makeTempDir } from '../../helpers/tmp';

const tmp = makeTempDir('t1lab-launcher-');
afterAll(() => tmp.remove());

function launch(pre: string[], limits: string[], command: string[]) {
  return spawnSync('/bin/sh', ['-c', LAUNCHER_SCRIPT, 't1lab-sandbox', ...pre, '--', ...limits, '--', ...command], {
    encoding: 'utf8',
  });
}

/** "Max open files  1024  1024  files" lines of /proc/self/limits as soft/hard pairs by name. */
function limitsOf(text: string): Record<string, [string, string]> {
  const out: Record<string, [string, string]> = {};
  for (const line of text.split('\n').slice(1)) {
    const m = /^(Max [a-z ]+?)\s{2,}(\S+)\s+(\S+)/.exec(line);
    if (m) out[m[1] as string] = [m[2] as string, m[3] as string];
  }
  return out;
}

describe('sandbox launcher', () => {
  it('sets file size, open files, CPU time, core size and address space as hard limits, in bytes and seconds', () => {
    const limits = testLimits({ openFiles: 333, fileSizeMb: 12, cpuSeconds: 55, memoryMb: 500 });
    const r = launch([''], launcherLimits({ limits, cgroupMemory: false }), ['/bin/cat', '/proc/self/limits']);
    expect(r.status).toBe(0);
    const l = limitsOf(r.stdout);
    expect(l['Max open files']).toEqual(['333', '333']);
    expect(l['Max file size']).toEqual([String(12 * 1024 * 1024), String(12 * 1024 * 1024)]);
    expect(l['Max cpu time']).toEqual(['55', '56']);
    expect(l['Max core file size']).toEqual(['0', '0']);
    expect(l['Max address space']).toEqual([String(500 * 1024 * 1024), String(500 * 1024 * 1024)]);
  });

  it('leaves the address space alone when a cgroup caps memory, and caps a file at the workspace size', () => {
    const limits = testLimits({ workspaceMb: 7, fileSizeMb: 100 });
    const l = limitsOf(
      launch([''], launcherLimits({ limits, cgroupMemory: true }), ['/bin/cat', '/proc/self/limits']).stdout,
    );
    expect(l['Max address space']).toEqual(['unlimited', 'unlimited']);
    expect(l['Max file size']?.[1]).toBe(String(7 * 1024 * 1024));
  });

  it('opens the seccomp program on fd 3 for bwrap', () => {
    const file = join(tmp.path, 'program');
    spawnSync('/bin/sh', ['-c', `printf filter > ${file}`]);
    const r = launch([file], [], ['/bin/cat', '/proc/self/fd/3']);
    expect(r.stdout).toBe('filter');
  });

  it('starts nothing when a limit cannot be set, and says which (status 125)', () => {
    const r = launch([''], ['-n', '1'.repeat(30)], ['/bin/echo', 'STARTED']);
    expect(r.status).toBe(125);
    expect(r.stdout).not.toContain('STARTED');
    expect(r.stderr).toMatch(/^t1lab: cannot set limit: ulimit -n 1+/m);
  });

  it('starts nothing when the cgroup cannot be joined (status 125)', () => {
    const r = launch(['', join(tmp.path, 'no-such-dir', 'cgroup.procs')], [], ['/bin/echo', 'STARTED']);
    expect(r.status).toBe(125);
    expect(r.stdout).not.toContain('STARTED');
    expect(r.stderr).toContain('t1lab: cannot join cgroup');
  });

  it('runs a command behind prlimit --nproc, and the lab shell as it is', () => {
    const plan = { limits: testLimits({ processes: 42 }), prlimitPath: '/usr/bin/prlimit', argv: ['/bin/true'] };
    expect(innerCommand(plan)).toEqual(['/usr/bin/prlimit', '--nproc=42', '--', '/bin/true']);
    expect(innerCommand({ ...plan, argv: ['/bin/bash', '-i'], shell: true })).toEqual(['/bin/bash', '-i']);
  });

  it("the shell's rc sets the process cap first and ends the shell when it cannot", () => {
    const rc = join(tmp.path, 'rc');
    spawnSync('/bin/sh', ['-c', `cat > ${rc}`], { input: shellRcText('echo "rest ran; cap $(ulimit -Hu)"') });
    const ok = spawnSync('/bin/bash', ['--norc', '-c', `. ${rc}`], {
      encoding: 'utf8',
      env: { [SHELL_NPROC_ENV]: '77', PATH: '/usr/bin:/bin' },
    });
    expect(ok.stdout).toBe('rest ran; cap 77\n');
    const bad = spawnSync('/bin/bash', ['--norc', '-c', `. ${rc}`], {
      encoding: 'utf8',
      env: { PATH: '/usr/bin:/bin' },
    });
    expect(bad.status).toBe(125);
    expect(bad.stdout).not.toContain('rest ran');
    expect(bad.stderr).toContain('t1lab: cannot set the process limit');
  });
});
