import { describe, expect, test } from 'vitest';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { basename, join } from 'node:path';
import {
  makeOwnedTempDir,
  makeOwnedTempDirSync,
  sweepOrphanedTempDirs,
  tempDirOwner,
} from '../../../native/util/temp-dirs';
import { makeTempDir } from '../../helpers/tmp';

function deadPid(): number {
  for (let pid = 4_000_000; pid > 3_000_000; pid -= 7919) {
    try {
      process.kill(pid, 0);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ESRCH') return pid;
    }
  }
  throw new Error('no free pid found');
}

describe('owned temp dirs', () => {
  test('their names carry the owner pid', async () => {
    const parent = makeTempDir();
    const a = await makeOwnedTempDir('episode', parent.path);
    const b = makeOwnedTempDirSync('verify', parent.path);
    expect(tempDirOwner(basename(a))).toBe(process.pid);
    expect(tempDirOwner(basename(b))).toBe(process.pid);
    expect(basename(a)).toMatch(new RegExp(`^t1lab-episode-${process.pid}-`));
    expect(tempDirOwner('t1lab-episode-abc123')).toBeNull();
    expect(tempDirOwner('unrelated')).toBeNull();
    expect(() => makeOwnedTempDirSync('../escape', parent.path)).toThrow(/kind/);
    parent.remove();
  });

  test('a sweep removes the folders of dead owners only', () => {
    const parent = makeTempDir();
    const dead = join(parent.path, `t1lab-episode-${deadPid()}-AbC123`);
    mkdirSync(join(dead, 'workspace', 'deep'), { recursive: true });
    writeFileSync(join(dead, 'workspace', 'deep', 'file'), 'left behind by a killed run');
    const mine = makeOwnedTempDirSync('episode', parent.path);
    const parentsPid = join(parent.path, `t1lab-audit-${process.ppid}-XyZ789`);
    mkdirSync(parentsPid);
    const foreign = join(parent.path, 'someone-elses-folder');
    mkdirSync(foreign);
    expect(sweepOrphanedTempDirs(parent.path)).toEqual([dead]);
    expect(existsSync(dead)).toBe(false);
    for (const kept of [mine, parentsPid, foreign]) expect(existsSync(kept)).toBe(true);
    parent.remove();
  });
});
