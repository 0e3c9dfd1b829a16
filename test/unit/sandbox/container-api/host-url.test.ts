import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { apiUlimits, dockerOptions, splitRef } from '../../../../native/sandbox/container/api/client';
import { isLoopback, parseHostUrl } from '../../../../native/sandbox/container/api/host-url';
import { makeTempDir } from '../../../helpers/tmp';

describe('engine host URLs', () => {
  const tmp = makeTempDir('t1lab-hosturl-');
  afterAll(() => tmp.remove());

  it('takes a unix socket, loopback tcp, tcp with a TLS folder, and ssh', () => {
    expect(parseHostUrl('unix:///run/podman/podman.sock')).toEqual({
      transport: 'unix',
      socketPath: '/run/podman/podman.sock',
    });
    expect(parseHostUrl('tcp://127.0.0.1:2375')).toEqual({ transport: 'tcp', host: '127.0.0.1', port: 2375 });
    expect(parseHostUrl('tcp://[::1]:2375')).toEqual({ transport: 'tcp', host: '::1', port: 2375 });
    expect(parseHostUrl('tcp://gpu1.lab:2376', '/certs')).toEqual({ transport: 'tls', host: 'gpu1.lab', port: 2376 });
    expect(parseHostUrl('ssh://ana@gpu2.lab:2222')).toEqual({
      transport: 'ssh',
      host: 'gpu2.lab',
      port: 2222,
      username: 'ana',
    });
    expect(parseHostUrl('ssh://gpu2.lab')).toEqual({ transport: 'ssh', host: 'gpu2.lab', port: 22 });
  });

  it('refuses plain tcp:// to anything but loopback, naming the URL and the fix', () => {
    expect(() => parseHostUrl('tcp://10.0.0.5:2375')).toThrow(
      /'tcp:\/\/10\.0\.0\.5:2375': plain tcp:\/\/ .* refused.*--tls-dir DIR.*ssh:\/\//,
    );
    expect(() => parseHostUrl('tcp://gpu1.lab:2375')).toThrow(/refused/);
    expect(isLoopback('localhost')).toBe(true);
    expect(isLoopback('127.1.2.3')).toBe(true);
    expect(isLoopback('128.0.0.1')).toBe(false);
  });

  it('names what is wrong with a URL', () => {
    expect(() => parseHostUrl('http://x:1')).toThrow(/URL 'http:\/\/x:1': expected unix:\/\/\/PATH/);
    expect(() => parseHostUrl('unix://relative.sock')).toThrow(/absolute path/);
    expect(() => parseHostUrl('tcp://127.0.0.1')).toThrow(/needs a port/);
    expect(() => parseHostUrl('ssh://u:pw@h')).toThrow(/no password/);
    expect(() => parseHostUrl('ssh://h', '/certs')).toThrow(/--tls-dir is for tcp/);
    expect(() => parseHostUrl('tcp://127.0.0.1:1/v1.41')).toThrow(/no path/);
  });

  it('reads the TLS folder into client options, naming a missing file', () => {
    const dir = join(tmp.path, 'certs');
    mkdirSync(dir);
    writeFileSync(join(dir, 'ca.pem'), 'CA');
    writeFileSync(join(dir, 'cert.pem'), 'CERT');
    expect(() => dockerOptions({ name: 'a', url: 'tcp://h:2376', slots: 1, tlsDir: dir })).toThrow(
      /--tls-dir '.*': cannot read key\.pem \(ENOENT\)/,
    );
    writeFileSync(join(dir, 'key.pem'), 'KEY');
    const o = dockerOptions({ name: 'a', url: 'tcp://h:2376', slots: 1, tlsDir: dir });
    expect(o).toMatchObject({ protocol: 'https', host: 'h', port: 2376 });
    expect(String(o.ca)).toBe('CA');
    expect(dockerOptions({ name: 'a', url: 'ssh://u@h', slots: 1 })).toMatchObject({
      protocol: 'ssh',
      host: 'h',
      port: 22,
      username: 'u',
    });
    expect(dockerOptions({ name: 'a', url: 'unix:///s', slots: 1 })).toEqual({ socketPath: '/s' });
  });

  it('sets explicit ulimits under the hard limits, and splits image refs', () => {
    expect(apiUlimits(1024, { openFiles: 2048, processes: 100 })).toEqual([
      { Name: 'nofile', Soft: 1024, Hard: 2048 },
      { Name: 'nproc', Soft: 100, Hard: 100 },
    ]);
    expect(splitRef('localhost/t1lab-base:bookworm')).toEqual({ repo: 'localhost/t1lab-base', tag: 'bookworm' });
    expect(splitRef('registry:5000/x')).toEqual({ repo: 'registry:5000/x', tag: 'latest' });
  });
});
