/**
 * A sandbox's process tree as the kill path and the monitor read it: from the tree's own /proc children
 * lists, the same processes as the host's whole process table gives (which it no longer scans per kill).
 */
import { spawn, spawnSync } from 'node:child_process';
import { afterAll, describe, expect, it } from 'vitest';
import {
  childrenIndex,
  descendants,
  hasChildrenLists,
  killTreeNow,
  processTree,
  readProcessTable,
} from '../../../native/sandbox/proc';
import { backend, leftoverSandboxes, specFor } from '../../helpers/sandbox';
import { makeTempDir } from '../../helpers/tmp';
import { optionalSkip } from '../../helpers/skip';

const ws = makeTempDir('t1lab-proc-tree-');
afterAll(() => ws.remove());

/** Wait until `pid`'s tree holds `count` processes (the shell has started its children). */
async function treeOf(pid: number, count: number): Promise<number[]> {
  for (let i = 0; i < 500; i++) {
    const tree = processTree(pid);
    if (tree.length >= count) return tree;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`the tree of ${pid} never reached ${count} processes`);
}

describe('process tree', () => {
  it('lists the same processes as the host process table, root first', async () => {
    // bash, a subshell and its sleep, and a second sleep: three levels.
    const child = spawn('bash', ['-c', '(sleep 30.271; true) & sleep 30.272 & wait'], { stdio: 'ignore' });
    const tree = await treeOf(child.pid as number, 4);
    try {
      expect(tree[0]).toBe(child.pid);
      expect(new Set(tree)).toEqual(new Set(descendants(child.pid as number, childrenIndex(readProcessTable()))));
    } finally {
      killTreeNow(tree);
    }
  });

  it('kills a sandbox and everything in it from its tree', async () => {
    const pty = await backend.spawnPty(
      specFor(ws.path, { wallSeconds: 0 }),
      ['/bin/bash', '-c', 'sleep 30.273 & sleep 30.274 & wait'],
      { cols: 80, rows: 24 },
    );
    const exited = new Promise<void>((resolve) => pty.onExit(() => resolve()));
    // bwrap, its init, bash and the two sleeps (prlimit execs bash).
    const tree = await treeOf(pty.pid, 5);
    expect(tree[0]).toBe(pty.pid);
    killTreeNow(tree);
    await exited;
    expect(leftoverSandboxes()).toEqual([]);
    const alive = spawnSync('ps', ['-eo', 'stat=,args='], { encoding: 'utf8' })
      .stdout.split('\n')
      .filter((l) => !l.trim().startsWith('Z'));
    expect(alive.filter((l) => /sleep 30\.27[34]/.test(l))).toEqual([]);
  });

  it('falls back to the process table where the kernel keeps no children lists', (ctx) => {
    ctx.skip(
      hasChildrenLists(),
      optionalSkip(
        'this kernel keeps /proc/PID/task/TID/children lists, so processTree does not fall back here (the first test compares both listings)',
      ),
    );
    expect(processTree(process.pid)[0]).toBe(process.pid);
  });
});
