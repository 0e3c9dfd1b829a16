/**
 * `t1lab hosts add|list|check|remove|sweep`: the container engines (dockerd, podman's API service) the lab
 * runs task containers on, through the Docker Engine API, kept in the settings file. `--json` on each.
 * A bad name, URL, slot count or TLS folder is a usage error (exit 2) naming the field and value; a
 * host that cannot be reached makes `check` exit 1 after its report.
 */
import type { Command } from 'commander';
import { LabError } from '../../ipc/common/errors';
import { checkHost, sweepHosts, type HostReport } from '../../lab/hosts/check';
import { addHost, installId, listHosts, parseSlots, removeHost, selectHosts } from '../../lab/hosts/store';
import { labDataDir } from '../../lab/paths';
import { UsageError, WorkFailed } from '../errors';
import { formatBytes, printJson, table, type Io } from '../output';

/** A stored host, as the settings file holds it. */
type HostConfig = ReturnType<typeof listHosts>[number];

/** Bad input from the command line is a usage error (exit 2); everything else keeps its kind. */
function usage<T>(work: () => T): T {
  try {
    return work();
  } catch (error) {
    if (error instanceof LabError && (error.code === 'INVALID_PARAMS' || error.code === 'NOT_FOUND'))
      throw new UsageError(error.message);
    throw error;
  }
}

const names = (list?: string) =>
  (list ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

const NO_HOSTS = 'no hosts; add one with `t1lab hosts add NAME URL`\n';

/** The hosts a `check` or `sweep` names (comma-separated), or every host when it names none. */
function chosenHosts(dataDir: string, list: string | undefined): HostConfig[] {
  return names(list).length ? usage(() => selectHosts(dataDir, names(list))) : listHosts(dataDir);
}

export function registerHosts(program: Command, io: Io): void {
  const hosts = program
    .command('hosts')
    .description('container engine hosts (dockerd, podman) reached through the Docker Engine API');
  registerHostsAdd(hosts, io);
  registerHostsList(hosts, io);
  registerHostsCheck(hosts, io);
  registerHostsRemove(hosts, io);
  registerHostsSweep(hosts, io);
}

interface AddOptions {
  slots: string;
  tlsDir?: string;
  knownHosts?: string;
  copyFiles?: boolean;
  json?: boolean;
}

/** `hosts add <name> <url>`: store a host in the settings file. */
function registerHostsAdd(hosts: Command, io: Io): void {
  hosts
    .command('add <name> <url>')
    .description(
      'add a host: unix:///PATH, tcp://HOST:PORT with --tls-dir (plain tcp:// only to loopback), or ssh://[USER@]HOST[:PORT]',
    )
    .option('--slots <n>', 'episodes the host runs at once', '2')
    .option('--tls-dir <dir>', 'tcp:// only: a folder with ca.pem, cert.pem and key.pem (the client certificate)')
    .option(
      '--known-hosts <file>',
      "ssh:// only: the known_hosts file the host's key must be in (default ~/.ssh/known_hosts)",
    )
    .option(
      '--copy-files',
      "always copy the workspace and mounts in and out, even where the engine sees this machine's files (then they are bound)",
    )
    .option('--json', 'print the stored host as JSON')
    .action((name: string, url: string, opts: AddOptions) => addHostCommand(io, name, url, opts));
}

function addHostCommand(io: Io, name: string, url: string, opts: AddOptions): void {
  const host = usage(() =>
    addHost(labDataDir(), {
      name,
      url,
      slots: parseSlots(opts.slots),
      tlsDir: opts.tlsDir,
      knownHosts: opts.knownHosts,
      ...(opts.copyFiles ? { files: 'copy' as const } : {}),
    }),
  );
  if (opts.json) printJson(io, host);
  else
    io.out(
      `added host '${host.name}' (${host.url}, ${host.slots} slots); check it with \`t1lab hosts check ${host.name}\`\n`,
    );
}

/** `hosts list`: the hosts in the settings file, a row each. */
function registerHostsList(hosts: Command, io: Io): void {
  hosts
    .command('list')
    .description('the hosts in the settings file')
    .option('--json', 'print JSON: [{name, url, slots, tlsDir?, knownHosts?, enabled, files?}]')
    .action((opts: { json?: boolean }) => listHostsCommand(io, opts));
}

function listHostsCommand(io: Io, opts: { json?: boolean }): void {
  const list = listHosts(labDataDir());
  if (opts.json) return printJson(io, list);
  if (!list.length) return io.out(NO_HOSTS);
  io.out(
    table([
      ['NAME', 'URL', 'SLOTS', 'TLS', 'ENABLED', 'FILES'],
      ...list.map((h) => [
        h.name,
        h.url,
        h.slots,
        h.tlsDir ?? '-',
        h.enabled === false ? 'no' : 'yes',
        h.files ?? 'auto',
      ]),
    ]),
  );
}

/** `hosts check [names]`: ask each host what it is and what it holds; exit 1 if one cannot be reached. */
function registerHostsCheck(hosts: Command, io: Io): void {
  hosts
    .command('check [names]')
    .description(
      'ask each host (comma-separated names; default all): reachable, engine and version, rootless, cores and memory, slots, lab containers, cached task images',
    )
    .option(
      '--json',
      'print JSON: [{name, url, slots, enabled, reachable, error, engine, version, apiVersion, rootless, cores, memoryBytes, labContainers, taskImages, durationMs}]',
    )
    .action((list: string | undefined, opts: { json?: boolean }) => checkHostsCommand(io, list, opts));
}

async function checkHostsCommand(io: Io, list: string | undefined, opts: { json?: boolean }): Promise<void> {
  const dataDir = labDataDir();
  const all = chosenHosts(dataDir, list);
  const id = installId(dataDir);
  const reports = await Promise.all(all.map((h) => checkHost(h, id)));
  if (opts.json) printJson(io, reports);
  else io.out(reports.length ? reports.map(describe).join('') : NO_HOSTS);
  const down = reports.filter((r) => !r.reachable);
  if (down.length)
    throw new WorkFailed(
      opts.json ? '' : `${down.length} of ${reports.length} hosts unreachable: ${down.map((r) => r.name).join(', ')}`,
    );
}

/** `hosts remove <name>`: drop a host from the settings file. */
function registerHostsRemove(hosts: Command, io: Io): void {
  hosts
    .command('remove <name>')
    .description('remove a host from the settings file (nothing on the host is touched)')
    .option('--json', 'print the removed host as JSON')
    .action((name: string, opts: { json?: boolean }) => {
      const host = usage(() => removeHost(labDataDir(), name));
      if (opts.json) printJson(io, host);
      else io.out(`removed host '${host.name}' (${host.url})\n`);
    });
}

/** `hosts sweep [names]`: remove what dead runs left on each host; exit 1 if one cannot be reached. */
function registerHostsSweep(hosts: Command, io: Io): void {
  hosts
    .command('sweep [names]')
    .description(
      "remove what this lab's dead runs left on each host (comma-separated names; default all): containers, volumes, networks and images whose owner process is gone or whose deadline passed",
    )
    .option('--json', 'print JSON: [{name, removed: {containers, volumes, networks, images} | null, error}]')
    .action((list: string | undefined, opts: { json?: boolean }) => sweepHostsCommand(io, list, opts));
}

async function sweepHostsCommand(io: Io, list: string | undefined, opts: { json?: boolean }): Promise<void> {
  const dataDir = labDataDir();
  const results = await sweepHosts(chosenHosts(dataDir, list), installId(dataDir));
  if (opts.json) printJson(io, results);
  else if (!results.length) io.out(NO_HOSTS);
  else
    for (const r of results) {
      if (!r.removed) io.out(`${r.name}: unreachable: ${r.error}\n`);
      else
        io.out(
          `${r.name}: removed ${r.removed.containers.length} containers, ${r.removed.volumes.length} volumes, ${r.removed.networks.length} networks, ${r.removed.images.length} images\n`,
        );
    }
  const down = results.filter((r) => !r.removed);
  if (down.length) throw new WorkFailed(opts.json ? '' : `${down.length} of ${results.length} hosts unreachable`);
}

function describe(r: HostReport): string {
  if (!r.reachable) return `${r.name}  ${r.url}\n  ${r.error}\n`;
  const lines = [
    `${r.name}  ${r.url}  ${r.engine} ${r.version} (API ${r.apiVersion}), ${r.rootless ? 'rootless' : 'rootful'}${r.enabled ? '' : ', disabled'}`,
    `  ${r.cores} cores, ${formatBytes(r.memoryBytes ?? 0)} memory, ${r.slots} slots`,
    `  lab containers: ${r.labContainers?.running ?? 0} running, ${r.labContainers?.total ?? 0} in all`,
    `  task images: ${r.taskImages.length ? r.taskImages.join(', ') : 'none'}`,
  ];
  return `${lines.join('\n')}\n`;
}
