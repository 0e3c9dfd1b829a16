/**
 * Red team, network: without `net`, a sandbox has its own empty network namespace: no internet, no host
 * loopback services, no host abstract unix sockets (X11, D-Bus live there). The host side counts what
 * reached it: nothing may.
 */
import { createServer, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { plantCanary, type Canary } from '../../helpers/host-canary';
import { backend, leftoverSandboxes, specFor } from '../../helpers/sandbox';
import { makeTempDir } from '../../helpers/tmp';

let canary: Canary;
let before: string;
const ws = makeTempDir('t1lab-redteam-net-');
let tcp: Server;
let tcpPort = 0;
let abstractServer: Server;
const abstractName = `t1lab-redteam-${process.pid}`;
let connections = 0;

beforeAll(async () => {
  canary = plantCanary();
  before = canary.snapshot();
  tcp = createServer((s) => {
    connections++;
    s.end('HOST-SERVICE\n');
  });
  await new Promise<void>((r) => tcp.listen(0, '127.0.0.1', r));
  tcpPort = (tcp.address() as { port: number }).port;
  abstractServer = createServer((s) => {
    connections++;
    s.end('ABSTRACT\n');
  });
  await new Promise<void>((r) => abstractServer.listen(`\0${abstractName}`, r));
});
afterAll(async () => {
  await new Promise((r) => tcp.close(r));
  await new Promise((r) => abstractServer.close(r));
  canary.remove();
  ws.remove();
});

async function attack(script: string) {
  const r = await backend.run(specFor(ws.path, { wallSeconds: 20 }), ['/usr/bin/python3', '-c', script]);
  expect(canary.snapshot(), 'the host changed').toBe(before);
  expect(leftoverSandboxes()).toEqual([]);
  expect(connections, 'a connection reached the host').toBe(0);
  return r;
}

const tryConnect = (target: string) => `
import socket
def attempt(family, addr):
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(3)
    try:
        s.connect(addr); print("CONNECTED", s.recv(64))
    except OSError as e:
        print("refused", type(e).__name__)
${target}
`;

describe('red team: network', () => {
  it('internet-without-net: no route out, no DNS', async () => {
    const r = await attack(
      tryConnect(`
attempt(socket.AF_INET, ("1.1.1.1", 53))
attempt(socket.AF_INET6, ("2606:4700:4700::1111", 53))
try:
    socket.getaddrinfo("registry.npmjs.org", 443); print("RESOLVED")
except OSError as e:
    print("dns", type(e).__name__)
`),
    );
    expect(r.stdout).not.toMatch(/CONNECTED|RESOLVED/);
    expect(r.stdout.match(/refused/g)?.length).toBe(2);
  });

  it('host-loopback-without-net: a service on the host 127.0.0.1 is unreachable', async () => {
    const r = await attack(tryConnect(`attempt(socket.AF_INET, ("127.0.0.1", ${tcpPort}))`));
    expect(r.stdout).toBe('refused ConnectionRefusedError\n');
  });

  it('abstract-unix-socket-without-net: the host abstract socket namespace is not shared', async () => {
    const r = await attack(tryConnect(`attempt(socket.AF_UNIX, "\\0${abstractName}")`));
    expect(r.stdout).toBe('refused ConnectionRefusedError\n');
  });

  it('interfaces-without-net: only its own loopback exists', async () => {
    const r = await attack(`import socket; print(sorted(n for _, n in socket.if_nameindex()))`);
    expect(r.stdout.trim()).toBe("['lo']");
  });
});
