/**
 * The allocator tunables: merged into what GLIBC_TUNABLES already sets, and a process that starts without
 * them re-executes itself with them (same pid) before it runs anything else; T1LAB_ALLOCATOR=system keeps
 * glibc's defaults.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ALLOCATOR_TUNABLES, hasAllocatorTunables, mergeTunables } from '../../../native/onnx/allocator-env';

const MODULE = fileURLToPath(new URL('../../../native/onnx/allocator-env.ts', import.meta.url));
const hasExecve = typeof (process as { execve?: unknown }).execve === 'function';

describe('allocator tunables', () => {
  it('adds ours to the tunables already set, and keeps a value the user chose', () => {
    expect(mergeTunables(undefined)).toBe(ALLOCATOR_TUNABLES.join(':'));
    expect(mergeTunables('glibc.malloc.arena_max=2')).toBe(
      ['glibc.malloc.arena_max=2', ...ALLOCATOR_TUNABLES].join(':'),
    );
    expect(mergeTunables('glibc.malloc.mmap_max=5')).toBe(['glibc.malloc.mmap_max=5', ALLOCATOR_TUNABLES[1]].join(':'));
    expect(hasAllocatorTunables({ GLIBC_TUNABLES: mergeTunables('glibc.malloc.arena_max=2') })).toBe(true);
    expect(hasAllocatorTunables({ GLIBC_TUNABLES: 'glibc.malloc.arena_max=2' })).toBe(false);
    expect(hasAllocatorTunables({})).toBe(false);
  });

  it.skipIf(!hasExecve || process.platform !== 'linux')(
    're-executes a process that started without them, in place',
    () => {
      const script = `import { reexecWithAllocatorTunables } from ${JSON.stringify(MODULE)};
process.stdout.write('start ' + process.pid + '\\n');
reexecWithAllocatorTunables();
process.stdout.write('run ' + process.pid + ' ' + (process.env.GLIBC_TUNABLES || '-') + ' ' + process.argv.slice(2).join(',') + '\\n');`;
      const run = (env: NodeJS.ProcessEnv) => {
        const r = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script, 'a', 'b'], {
          env: { ...process.env, GLIBC_TUNABLES: '', T1LAB_ALLOCATOR: '', ...env },
          encoding: 'utf8',
        });
        expect(r.status, r.stderr).toBe(0);
        return r.stdout.trim().split('\n');
      };
      const lines = run({});
      // Printed twice before the re-exec (the old image and the new one), once after, all with one pid.
      expect(lines.filter((l) => l.startsWith('start '))).toHaveLength(2);
      const [, pid, tunables] = lines.find((l) => l.startsWith('run '))!.split(' ');
      expect(lines[0]).toBe(`start ${pid}`);
      expect(tunables).toBe(ALLOCATOR_TUNABLES.join(':'));
      const kept = run({ T1LAB_ALLOCATOR: 'system' });
      expect(kept).toHaveLength(2);
      expect(kept[1]).toMatch(/^run \d+ - b$/);
    },
  );
});
