import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hostname } from 'node:os';
import {
  LABEL_DEADLINE,
  LABEL_INSTALL,
  LABEL_OWNER,
  LABEL_OWNER_HOST,
  labLabels,
  sweepVerdict,
} from '../../../../native/sandbox/container/api/labels';
import { addHost, installId, listHosts, removeHost, selectHosts } from '../../../../electron/lab/hosts/store';
import { makeTempDir } from '../../../helpers/tmp';

describe('the hosts in the settings file', () => {
  const tmp = makeTempDir('t1lab-hosts-');
  afterAll(() => tmp.remove());

  it('adds, lists, selects and removes hosts, keeping the other settings', () => {
    writeFileSync(join(tmp.path, 'settings.json'), JSON.stringify({ modelFolders: ['/m'] }));
    addHost(tmp.path, { name: 'local', url: 'unix:///run/podman/podman.sock', slots: 4 });
    addHost(tmp.path, { name: 'gpu-2', url: 'ssh://ana@gpu2' });
    addHost(tmp.path, { name: 'copies', url: 'unix:///run/docker.sock', files: 'copy' });
    expect(listHosts(tmp.path)).toEqual([
      { name: 'local', url: 'unix:///run/podman/podman.sock', slots: 4, enabled: true },
      { name: 'gpu-2', url: 'ssh://ana@gpu2', slots: 2, enabled: true },
      { name: 'copies', url: 'unix:///run/docker.sock', slots: 2, enabled: true, files: 'copy' },
    ]);
    expect(selectHosts(tmp.path, ['gpu-2']).map((h) => h.name)).toEqual(['gpu-2']);
    expect(() => selectHosts(tmp.path, ['nope'])).toThrow(
      /--hosts: no host named 'nope' \(hosts: local, gpu-2, copies\)/,
    );
    expect(() => addHost(tmp.path, { name: 'local', url: 'unix:///x' })).toThrow(
      /NAME 'local': a host of that name exists/,
    );
    expect(() => addHost(tmp.path, { name: 'far', url: 'tcp://192.168.1.9:2375' })).toThrow(
      /plain tcp:\/\/ .* refused/,
    );
    expect(() =>
      addHost(tmp.path, { name: 'far', url: 'tcp://192.168.1.9:2376', tlsDir: join(tmp.path, 'none') }),
    ).toThrow(/--tls-dir '.*none': cannot read ca\.pem/);
    expect(removeHost(tmp.path, 'local').name).toBe('local');
    expect(() => removeHost(tmp.path, 'local')).toThrow(/no host named 'local'/);
    const settings = JSON.parse(readFileSync(join(tmp.path, 'settings.json'), 'utf8'));
    expect(settings.modelFolders).toEqual(['/m']);
  });

  it('keeps one install id', () => {
    const id = installId(tmp.path);
    expect(id).toMatch(/^[a-f0-9]{16}$/);
    expect(installId(tmp.path)).toBe(id);
  });
});

describe('what a sweep removes', () => {
  const id = 'abcdefabcdefabcd';
  it('removes objects of this install whose deadline passed or whose owner here is dead, nothing else', () => {
    const mine = labLabels({ installId: id, runId: 'r1' }, 'sandbox', 60_000, 1_000);
    expect(mine[LABEL_INSTALL]).toBe(id);
    expect(mine[LABEL_DEADLINE]).toBe('61000');
    // Alive owner (this process), deadline ahead: kept.
    expect(sweepVerdict(mine, id, 2_000)).toEqual({ remove: false, why: 'alive' });
    // Deadline passed: removed, whoever owns it.
    expect(sweepVerdict(mine, id, 70_000)).toEqual({ remove: true, why: 'deadline' });
    // A dead owner on this machine.
    const dead = { ...mine, [LABEL_OWNER]: mine[LABEL_OWNER]!.replace(/^\d+/, '999999') };
    expect(sweepVerdict(dead, id, 2_000, () => false)).toEqual({ remove: true, why: 'owner-dead' });
    // The same pid on another machine: not ours to judge before its deadline.
    expect(sweepVerdict({ ...dead, [LABEL_OWNER_HOST]: `${hostname()}-other` }, id, 2_000, () => false)).toEqual({
      remove: false,
      why: 'other-machine',
    });
    expect(sweepVerdict(mine, 'another-install', 70_000)).toEqual({ remove: false, why: 'other-install' });
    expect(sweepVerdict({}, id)).toEqual({ remove: false, why: 'unlabelled' });
  });
});
