import { describe, expect, it } from 'vitest';
import { specMounts, createOptions } from '../../../../native/sandbox/container/api/create-options';
import { defaultLimits } from '../../../../native/sandbox';
import type { SandboxSpec } from '../../../../native/sandbox/types';

describe('a sandbox spec as an Engine API create body', () => {
  const spec: SandboxSpec = {
    workspace: '/tmp/ws',
    workdir: '/app',
    net: false,
    env: { A: '1' },
    limits: { ...defaultLimits(), memoryMb: 512, processes: 64, openFiles: 2048, cpuSeconds: 30, fileSizeMb: 8 },
    mounts: [{ host: '/tmp/tests', sandbox: '/tests', readOnly: true }],
    container: { image: 'localhost/x:1', bindWorkspace: true, cpus: 1.5, user: 'agent' },
  };

  it('carries the limits, the network switch, explicit ulimits and the labels', () => {
    const o = createOptions(spec, ['bash', '-i'], 'n1', { 't1lab.install': 'i' }, { tty: true, stdin: true });
    expect(o).toMatchObject({
      name: 'n1',
      Image: 'localhost/x:1',
      Cmd: ['bash', '-i'],
      Entrypoint: [],
      Tty: true,
      OpenStdin: true,
      WorkingDir: '/app',
      User: 'agent',
      Labels: { 't1lab.install': 'i' },
    });
    expect(o.Env).toEqual(['A=1', 'TERM=xterm-256color']);
    expect(o.HostConfig).toMatchObject({
      NetworkMode: 'none',
      Memory: 512 * 2 ** 20,
      MemorySwap: 512 * 2 ** 20,
      PidsLimit: 64,
      NanoCpus: 1.5e9,
    });
    expect(o.HostConfig?.Ulimits).toEqual([
      { Name: 'nofile', Soft: 2048, Hard: 4096 },
      { Name: 'nproc', Soft: 1024, Hard: 2048 },
      { Name: 'cpu', Soft: 30, Hard: 30 },
      { Name: 'fsize', Soft: 8 * 2 ** 20, Hard: 8 * 2 ** 20 },
    ]);
    expect(
      createOptions({ ...spec, net: true }, ['true'], 'n2', {}, { tty: false, stdin: false }).HostConfig?.NetworkMode,
    ).toBe('bridge');
  });

  it('copies the bound workspace and the mounts (the engine may be elsewhere), or binds them when asked', () => {
    expect(specMounts(spec)).toEqual([
      { host: '/tmp/ws', sandbox: '/app', readOnly: false },
      { host: '/tmp/tests', sandbox: '/tests', readOnly: true },
    ]);
    expect(createOptions(spec, ['true'], 'n3', {}, { tty: false, stdin: false }).HostConfig?.Binds).toBeUndefined();
    expect(
      createOptions(spec, ['true'], 'n3', {}, { tty: false, stdin: false, bindMounts: true }).HostConfig?.Binds,
    ).toEqual(['/tmp/ws:/app:rw', '/tmp/tests:/tests:ro']);
  });

  it("mounts the lab's volumes where copied read-only folders go (no commit includes a volume)", () => {
    const volumes = [{ name: 't1lab-1-ab-ro0', target: '/tests' }];
    const o = createOptions(spec, ['true'], 'n4', {}, { tty: false, stdin: false, volumes });
    expect(o.HostConfig?.Mounts).toEqual([{ Type: 'volume', Source: 't1lab-1-ab-ro0', Target: '/tests' }]);
    expect(createOptions(spec, ['true'], 'n5', {}, { tty: false, stdin: false }).HostConfig?.Mounts).toBeUndefined();
  });
});
