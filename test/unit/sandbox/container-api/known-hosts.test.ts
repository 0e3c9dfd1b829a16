/**
 * The host key check of ssh:// engine hosts, on real keys (ssh2's generator) and real known_hosts files:
 * plain, `[host]:port`, comma lists, wildcards and negation, hashed names as `ssh-keygen -H` writes them,
 * @revoked; an unknown or changed key is refused with a message naming the host, the fingerprint (as
 * `ssh-keygen -lf` prints it), the file and the command that trusts it. The client wires it into ssh2.
 */
import { spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { utils } from 'ssh2';
import { afterAll, describe, expect, it } from 'vitest';
import { dockerOptions, EngineClient } from '../../../../native/sandbox/container/api/client';
import {
  checkHostKey,
  fingerprint,
  hostKeyAlgorithms,
  knownKeyTypes,
  patternsMatch,
} from '../../../../native/sandbox/container/api/known-hosts';
import { addHost, listHosts } from '../../../../electron/lab/hosts/store';
import { missingProgram } from '../../../helpers/skip';
import { makeTempDir } from '../../../helpers/tmp';

/** A fresh public key: its known_hosts form ("TYPE BASE64") and its raw bytes, as a server offers them. */
function newKey(type: 'ed25519' | 'ecdsa' | 'rsa' = 'ed25519'): { line: string; raw: Buffer } {
  const pair =
    type === 'rsa'
      ? utils.generateKeyPairSync('rsa', { bits: 2048 })
      : type === 'ecdsa'
        ? utils.generateKeyPairSync('ecdsa', { bits: 256 })
        : utils.generateKeyPairSync('ed25519');
  const [kind, base64] = pair.public.trim().split(/\s+/) as [string, string];
  return { line: `${kind} ${base64}`, raw: Buffer.from(base64, 'base64') };
}

describe('ssh host keys against known_hosts', () => {
  const tmp = makeTempDir('t1lab-knownhosts-');
  afterAll(() => tmp.remove());
  const file = (name: string, text: string) => {
    const path = join(tmp.path, name);
    writeFileSync(path, text);
    return path;
  };
  const host = newKey();
  const other = newKey();

  it('takes the key on file under the host name ssh uses: HOST on port 22, [HOST]:PORT on another', () => {
    const f = file('plain', `# a comment\n\ngpu1.lab ${host.line}\n[127.0.0.1]:2222 ${host.line} a note\n`);
    expect(checkHostKey(f, 'gpu1.lab', 22, host.raw)).toEqual({ ok: true });
    expect(checkHostKey(f, '127.0.0.1', 2222, host.raw)).toEqual({ ok: true });
    // Port 22's entry does not vouch for another port, nor another port's for 22.
    expect(checkHostKey(f, 'gpu1.lab', 2200, host.raw).ok).toBe(false);
    expect(checkHostKey(f, '127.0.0.1', 22, host.raw).ok).toBe(false);
  });

  it('refuses an unknown key naming the host, the fingerprint, the file and the ssh-keyscan that trusts it', () => {
    const f = file('unknown', `elsewhere ${other.line}\n`);
    const verdict = checkHostKey(f, '127.0.0.1', 2222, host.raw);
    expect(verdict.ok).toBe(false);
    const message = (verdict as { message: string }).message;
    expect(message).toContain(`ssh host key of [127.0.0.1]:2222 is not known`);
    expect(message).toContain(`ssh-ed25519 key ${fingerprint(host.raw)}`);
    expect(message).toContain(`ssh-keyscan -p 2222 127.0.0.1 >> ${f}`);
    const missing = checkHostKey(join(tmp.path, 'nope'), 'gpu1.lab', 22, host.raw);
    expect((missing as { message: string }).message).toMatch(
      /not in .*nope \(no such file\).*`ssh-keyscan gpu1\.lab >> /,
    );
  });

  it('refuses a key other than the one on file: a changed key or a man in the middle', () => {
    const f = file('changed', `x ${other.line}\n[127.0.0.1]:2222 ${other.line}\n`);
    const verdict = checkHostKey(f, '127.0.0.1', 2222, host.raw) as { ok: false; message: string };
    expect(verdict.ok).toBe(false);
    expect(verdict.message).toContain(`ssh host key of [127.0.0.1]:2222 does NOT match ${f}`);
    expect(verdict.message).toContain(`line 2: ssh-ed25519 ${fingerprint(other.raw)}`);
    expect(verdict.message).toContain(`it offered its ssh-ed25519 key ${fingerprint(host.raw)}`);
    expect(verdict.message).toContain(`ssh-keygen -R '[127.0.0.1]:2222' -f ${f}`);
  });

  it('refuses a key marked @revoked even when it is also on file', () => {
    const f = file('revoked', `gpu1.lab ${host.line}\n@revoked * ${host.line}\n`);
    expect(checkHostKey(f, 'gpu1.lab', 22, host.raw)).toEqual({
      ok: false,
      message: `ssh host key of gpu1.lab refused: its ssh-ed25519 key ${fingerprint(host.raw)} is marked @revoked in ${f} (line 2)`,
    });
  });

  it('reads comma lists, wildcards and negation as ssh does', () => {
    expect(patternsMatch('a.lab,b.lab', 'b.lab')).toBe(true);
    expect(patternsMatch('*.lab', 'GPU3.lab')).toBe(true);
    expect(patternsMatch('gpu?.lab', 'gpu3.lab')).toBe(true);
    expect(patternsMatch('gpu?.lab', 'gpu33.lab')).toBe(false);
    expect(patternsMatch('!bad.lab,*.lab', 'bad.lab')).toBe(false);
    expect(patternsMatch('a.b', 'aXb')).toBe(false);
  });

  it('reads names hashed by `ssh-keygen -H`, with the fingerprint ssh-keygen prints', (ctx) => {
    const skip = missingProgram('ssh-keygen', 'openssh-client');
    ctx.skip(skip !== null, skip ?? undefined);
    const f = file('hashed', `[127.0.0.1]:2222 ${host.line}\ngpu1.lab ${other.line}\n`);
    expect(spawnSync('ssh-keygen', ['-H', '-f', f]).status).toBe(0);
    expect(readFileSync(f, 'utf8')).not.toContain('127.0.0.1'); // hashed now
    expect(checkHostKey(f, '127.0.0.1', 2222, host.raw)).toEqual({ ok: true });
    expect(checkHostKey(f, 'gpu1.lab', 22, other.raw)).toEqual({ ok: true });
    expect(checkHostKey(f, '127.0.0.1', 2222, other.raw).ok).toBe(false);
    const pub = file('host.pub', `${host.line}\n`);
    expect(spawnSync('ssh-keygen', ['-lf', pub], { encoding: 'utf8' }).stdout).toContain(fingerprint(host.raw));
  });

  it('asks the host for a key type on file first, so a host with several keys shows the known one', () => {
    const rsa = newKey('rsa');
    const f = file('types', `gpu1.lab ${rsa.line}\n`);
    expect(knownKeyTypes(f, 'gpu1.lab', 22)).toEqual(['ssh-rsa']);
    expect(hostKeyAlgorithms(['ssh-rsa']).slice(0, 3)).toEqual(['rsa-sha2-512', 'rsa-sha2-256', 'ssh-rsa']);
    expect(hostKeyAlgorithms([])[0]).toBe('ssh-ed25519');
    expect(hostKeyAlgorithms(['ecdsa-sha2-nistp256'])).toHaveLength(7);
  });

  it('gives ssh2 a verifier that refuses what is not on file, and the client keeps the refusal to report', () => {
    const f = file('client', `[127.0.0.1]:2222 ${host.line}\n`);
    const config = { name: 'h', url: 'ssh://root@127.0.0.1:2222', slots: 1, knownHosts: f };
    const ssh = dockerOptions(config).sshOptions as { hostVerifier: (key: Buffer) => boolean };
    expect(ssh.hostVerifier(host.raw)).toBe(true);
    expect(ssh.hostVerifier(other.raw)).toBe(false);
    const client = new EngineClient(config);
    expect(client.hostKeys?.verify(other.raw)).toBe(false);
    expect(client.hostKeys?.refusal).toContain(`does NOT match ${f}`);
    expect(new EngineClient({ name: 'u', url: 'unix:///s', slots: 1 }).hostKeys).toBeNull();
  });

  it("stores a host's own known_hosts file, absolute, and only for ssh:// hosts", () => {
    const data = join(tmp.path, 'data');
    addHost(data, { name: 'far', url: 'ssh://ana@gpu2', knownHosts: 'rel/known_hosts' });
    expect(listHosts(data)[0]?.knownHosts).toBe(join(process.cwd(), 'rel/known_hosts'));
    expect(() => addHost(data, { name: 'near', url: 'unix:///s', knownHosts: '/k' })).toThrow(
      /--known-hosts is for ssh:\/\/ hosts .* 'unix:\/\/\/s' is not ssh:\/\//,
    );
  });
});
