/** Networking: longest-prefix match of addresses against a routing table. */
import type { TaskFamily } from '../types';
import { buildTask, phrase, shq } from '../kit/task';
import { CORE, fileEquals, py } from './kit';

interface Route {
  cidr: string;
  base: number;
  bits: number;
  via: string;
}

const ip = (n: number) => [24, 16, 8, 0].map((s) => (n >>> s) & 255).join('.');

export const routeLookup: TaskFamily = {
  name: 'route-lookup',
  category: 'networking',
  summary: 'resolve which gateway each address uses (longest-prefix match over a routing table)',
  heldOut: false,
  difficulty: 'medium',
  generate(rng, { seed, split }) {
    const net = (10 << 24) | (rng.int(0, 255) << 16);
    const routes: Route[] = [{ cidr: '0.0.0.0/0', base: 0, bits: 0, via: `gw-default-${rng.word(3)}` }];
    const add = (base: number, bits: number) => {
      const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
      const b = (base & mask) >>> 0;
      if (!routes.some((r) => r.base === b && r.bits === bits))
        routes.push({ cidr: `${ip(b)}/${bits}`, base: b, bits, via: `gw-${rng.word(4)}` });
    };
    add(net, 16);
    for (let i = 0; i < rng.int(2, 6); i++) add((net | (rng.int(0, 255) << 8)) >>> 0, rng.pick([20, 22, 24]));
    for (let i = 0; i < rng.int(1, 3); i++)
      add((net | (rng.int(0, 255) << 8) | rng.int(0, 255)) >>> 0, rng.pick([26, 28, 30]));
    const lookup = (a: number) => {
      let best = routes[0]!;
      for (const r of routes) {
        const mask = r.bits === 0 ? 0 : (0xffffffff << (32 - r.bits)) >>> 0;
        if ((a & mask) >>> 0 === r.base && r.bits >= best.bits) best = r;
      }
      return best;
    };
    const addrs: number[] = [];
    for (const r of rng.sample(routes.slice(1), Math.min(routes.length - 1, 4)))
      addrs.push((r.base + rng.int(0, 2 ** (32 - r.bits) - 1)) >>> 0);
    while (addrs.length < rng.int(6, 12))
      addrs.push(
        rng.bool(0.8) ? (net | rng.int(0, 65535)) >>> 0 : ((rng.int(11, 200) << 24) | rng.int(0, 2 ** 24 - 1)) >>> 0,
      );
    const table = rng
      .shuffle(routes)
      .map((r) => `${r.cidr} via ${r.via}`)
      .join('\n');
    const answer = addrs.map((a) => `${ip(a)} ${lookup(a).via}`).join('\n');
    const file = rng.pick(['routes.txt', 'rib.txt', 'routing-table.txt']);
    const input = rng.pick(['addresses.txt', 'hosts.txt', 'targets.txt']);
    const out = rng.pick(['next-hops.txt', 'resolved.txt', 'gateways.txt']);
    const instruction = phrase(rng, split, [
      `\`/app/${file}\` is a routing table (\`CIDR via GATEWAY\`). For each IPv4 address in \`/app/${input}\` (one per line), find the route with the longest matching prefix and write \`ADDRESS GATEWAY\` lines, in input order, to \`/app/${out}\`.`,
      `Resolve the next hop of every address listed in /app/${input} using the routes in /app/${file} (longest-prefix match; 0.0.0.0/0 is the default). Output: /app/${out}, one "address gateway" line per input address, same order.`,
      `Which gateway does each address of /app/${input} go through? Use longest-prefix matching against /app/${file} and write "<address> <gateway>" per line to /app/${out}, keeping the order of the input.`,
    ]);
    return buildTask(CORE, {
      family: routeLookup,
      seed,
      split,
      difficulty: 'medium',
      instruction,
      tags: ['networking', 'cidr', 'routing'],
      files: { [file]: `${table}\n`, [input]: `${addrs.map(ip).join('\n')}\n` },
      solve: `python3 - <<'PY'\nimport ipaddress\nroutes = []\nfor line in open(${JSON.stringify(file)}):\n    cidr, _, gw = line.split()\n    routes.append((ipaddress.ip_network(cidr), gw))\nwith open(${JSON.stringify(out)}, "w") as out:\n    for a in open(${JSON.stringify(input)}).read().split():\n        addr = ipaddress.ip_address(a)\n        net, gw = max((r for r in routes if addr in r[0]), key=lambda r: r[0].prefixlen)\n        print(a, gw, file=out)\nPY\ncat ${shq(out)}`,
      assertions: [
        { name: 'one line per address', run: `test "$(grep -c . ${shq(out)})" -eq ${addrs.length}` },
        {
          name: 'the first address resolves right',
          run: `test "$(head -n1 ${shq(out)})" = ${shq(answer.split('\n')[0]!)}`,
        },
        {
          name: 'addresses on the default route are right',
          run: py(
            `import sys; want = ${JSON.stringify(answer.split('\n').filter((l) => l.endsWith(routes[0]!.via)))}; got = open(${JSON.stringify(out)}).read().split("\\n"); sys.exit(0 if all(w in got for w in want) and len(got) > 1 else 1)`,
          ),
        },
        { name: 'every next hop is right', run: fileEquals(out, answer) },
      ],
    });
  },
};
