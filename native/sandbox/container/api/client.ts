/**
 * One client for an engine host through the Docker Engine API (dockerode): dockerd and podman's
 * compatible service alike, on a unix socket, tcp with TLS client certificates, or ssh. What differs
 * between the engines is handled here, once: podman's API needs explicit ulimits on every container (its
 * defaults can exceed the host's hard limits, and then nothing starts), and its image import names the
 * result `REPO:latest` whatever tag was asked (the import goes to a temporary name and is tagged after).
 */
import { randomBytes } from 'node:crypto';
import Docker from 'dockerode';
import { DEFAULT_NOFILE, DEFAULT_NPROC, type HardLimits } from '../engine';
import { parseHostUrl, readTlsDir, type ParsedHostUrl } from './host-url';
import { defaultKnownHostsFile, HostKeyCheck } from './known-hosts';
import { LABEL_INSTALL, LABEL_KIND, sweepVerdict } from './labels';

export interface HostConfig {
  name: string;
  url: string;
  /** Episodes this host runs at once. */
  slots: number;
  /** tcp:// only: the folder with ca.pem, cert.pem, key.pem. */
  tlsDir?: string;
  /** ssh:// only: the known_hosts file its host key must be in (else the user's ~/.ssh/known_hosts). */
  knownHosts?: string;
  /** Taken by `eval --hosts` when no list is given (default true). */
  enabled?: boolean;
  /**
   * How a container there gets the spec's folders (workspace, /tests, ...): 'auto' (the default) binds them
   * when the engine sees this machine's files (asked once: shared-files.ts), else copies them in and out;
   * 'copy' always copies.
   */
  files?: HostFiles;
}

export type HostFiles = 'auto' | 'copy';

export type ApiEngine = 'podman' | 'docker';

export interface EngineInfo {
  engine: ApiEngine;
  version: string;
  apiVersion: string;
  rootless: boolean;
  cores: number;
  memoryBytes: number;
  os: string;
}

/** How long a probe (version, info) may take before the host counts as unreachable. */
export const PROBE_TIMEOUT_MS = 10_000;

export class EngineHostError extends Error {
  constructor(
    readonly host: string,
    message: string,
  ) {
    super(`host '${host}': ${message}`);
  }
}

/** The host key check of an ssh:// host (null for the other transports). */
export function hostKeyCheck(config: HostConfig, parsed: ParsedHostUrl): HostKeyCheck | null {
  if (parsed.transport !== 'ssh') return null;
  return new HostKeyCheck(config.knownHosts ?? defaultKnownHostsFile(), parsed.host as string, parsed.port as number);
}

export function dockerOptions(
  config: HostConfig,
  parsed: ParsedHostUrl = parseHostUrl(config.url, config.tlsDir),
  hostKeys: HostKeyCheck | null = hostKeyCheck(config, parsed),
): Docker.DockerOptions {
  switch (parsed.transport) {
    case 'unix':
      return { socketPath: parsed.socketPath };
    case 'tcp':
      return { protocol: 'http', host: parsed.host, port: parsed.port };
    case 'tls':
      return { protocol: 'https', host: parsed.host, port: parsed.port, ...readTlsDir(config.tlsDir as string) };
    case 'ssh':
      // docker-modem runs `docker system dial-stdio` on the host over ssh2, which takes any host key unless
      // given a verifier: the check against known_hosts is what keeps a man in the middle out.
      return {
        protocol: 'ssh',
        host: parsed.host,
        port: parsed.port,
        ...(parsed.username ? { username: parsed.username } : {}),
        sshOptions: {
          ...(process.env.SSH_AUTH_SOCK ? { agent: process.env.SSH_AUTH_SOCK } : {}),
          ...(hostKeys ? { hostVerifier: hostKeys.verify, algorithms: { serverHostKey: hostKeys.algorithms() } } : {}),
        },
      };
  }
}

export function withTimeout<T>(what: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([what, late]).finally(() => clearTimeout(timer));
}

/** Explicit ulimits (podman's API needs them; dockerd takes them too), below `hard` when known. */
export function apiUlimits(openFiles = DEFAULT_NOFILE[0], hard?: HardLimits): Docker.HostConfig['Ulimits'] {
  const nofileHard = Math.min(hard?.openFiles ?? Number.POSITIVE_INFINITY, Math.max(DEFAULT_NOFILE[1], openFiles));
  const nprocHard = Math.min(hard?.processes ?? Number.POSITIVE_INFINITY, DEFAULT_NPROC[1]);
  return [
    { Name: 'nofile', Soft: Math.min(openFiles, nofileHard), Hard: nofileHard },
    { Name: 'nproc', Soft: Math.min(DEFAULT_NPROC[0], nprocHard), Hard: nprocHard },
  ];
}

/** Read a JSON-lines progress stream to its end; the last `error` in it is thrown. Returns the messages. */
export async function followProgress(stream: NodeJS.ReadableStream): Promise<Array<Record<string, unknown>>> {
  const messages: Array<Record<string, unknown>> = [];
  let rest = '';
  for await (const chunk of stream as AsyncIterable<Buffer | string>) {
    rest += chunk.toString();
    const lines = rest.split('\n');
    rest = lines.pop() ?? '';
    for (const line of lines) if (line.trim()) messages.push(safeJson(line));
  }
  if (rest.trim()) messages.push(safeJson(rest));
  const failed = messages.find((m) => m.error || m.errorDetail);
  if (failed)
    throw new Error(String(failed.error ?? (failed.errorDetail as { message?: string })?.message ?? 'failed'));
  return messages;
}

function safeJson(line: string): Record<string, unknown> {
  try {
    return JSON.parse(line) as Record<string, unknown>;
  } catch {
    return { stream: line };
  }
}

export interface SweepResult {
  containers: string[];
  volumes: string[];
  networks: string[];
  images: string[];
}

export class EngineClient {
  readonly docker: Docker;
  readonly parsed: ParsedHostUrl;
  /** ssh:// only: its host key check, whose refusal names the key and the file (ssh2's error does not). */
  readonly hostKeys: HostKeyCheck | null;
  private info: Promise<EngineInfo> | null = null;

  constructor(readonly config: HostConfig) {
    this.parsed = parseHostUrl(config.url, config.tlsDir);
    this.hostKeys = hostKeyCheck(config, this.parsed);
    this.docker = new Docker(dockerOptions(config, this.parsed, this.hostKeys));
  }

  get name(): string {
    return this.config.name;
  }

  /** Version and info of the engine (cached once it answered; `fresh` asks again). */
  engineInfo(fresh = false): Promise<EngineInfo> {
    if (fresh || !this.info) {
      const p = this.probe();
      this.info = p;
      p.catch(() => {
        if (this.info === p) this.info = null;
      });
    }
    return this.info;
  }

  private async probe(): Promise<EngineInfo> {
    if (this.hostKeys) this.hostKeys.refusal = null; // an earlier refusal is not this probe's reason
    const ask = Promise.all([this.docker.version(), this.docker.info()]);
    const [version, info] = (await withTimeout(
      ask,
      PROBE_TIMEOUT_MS,
      `no answer within ${PROBE_TIMEOUT_MS / 1000} s`,
    ).catch((e: Error) => {
      const refused = this.hostKeys?.refusal;
      throw new EngineHostError(this.name, refused ?? `unreachable at ${this.config.url}: ${e.message}`);
    })) as [Docker.DockerVersion & { Components?: Array<{ Name: string }> }, Record<string, unknown>];
    const podman = (version.Components ?? []).some((c) => /podman/i.test(c.Name));
    const security = (info.SecurityOptions as string[] | undefined) ?? [];
    return {
      engine: podman ? 'podman' : 'docker',
      version: version.Version,
      apiVersion: version.ApiVersion,
      rootless: security.some((s) => /name=rootless/.test(s)),
      cores: Number(info.NCPU) || 0,
      memoryBytes: Number(info.MemTotal) || 0,
      os: String(info.OperatingSystem ?? version.Os ?? ''),
    };
  }

  /** The image's id, or null when the host lacks it. */
  async imageId(ref: string): Promise<string | null> {
    try {
      return ((await this.docker.getImage(ref).inspect()) as { Id: string }).Id;
    } catch (e) {
      if ((e as { statusCode?: number }).statusCode === 404) return null;
      throw e;
    }
  }

  /**
   * Import a root file system tarball as `ref` (REPO:TAG). Podman names an import REPO:latest whatever
   * tag was asked, so it goes in under a temporary name and is tagged `ref` after, on both engines.
   */
  async importImage(tar: NodeJS.ReadableStream, ref: string, changes: string[] = []): Promise<string> {
    const temp = `localhost/t1lab-import-${randomBytes(6).toString('hex')}`;
    const stream = await this.docker.importImage(tar, {
      repo: temp,
      tag: 'latest',
      ...(changes.length ? { changes } : {}),
    } as object);
    await followProgress(stream);
    const id = await this.imageId(`${temp}:latest`);
    if (!id) throw new EngineHostError(this.name, `the import of ${ref} left no image`);
    await this.tag(id, ref);
    await this.docker
      .getImage(`${temp}:latest`)
      .remove({ noprune: true })
      .catch(() => {});
    return id;
  }

  async tag(id: string, ref: string): Promise<void> {
    const { repo, tag } = splitRef(ref);
    await this.docker.getImage(id).tag({ repo, tag });
  }

  /** Load a `docker save` / `podman save` archive (names kept). */
  async loadImage(tar: NodeJS.ReadableStream): Promise<void> {
    await followProgress(await this.docker.loadImage(tar, {}));
  }

  /** Containers of this lab install (running and not). */
  async labContainers(installId: string): Promise<Docker.ContainerInfo[]> {
    return this.docker.listContainers({ all: true, filters: { label: [`${LABEL_INSTALL}=${installId}`] } });
  }

  /** Task images cached on the host (built or loaded by a lab: `t1lab.kind=task`, or named localhost/t1lab-task-*). */
  async taskImages(): Promise<string[]> {
    const images = await this.docker.listImages();
    const out: string[] = [];
    for (const i of images) {
      const tags = (i.RepoTags ?? []).filter((t) => t !== '<none>:<none>');
      if (i.Labels?.[LABEL_KIND] === 'task' || tags.some((t) => t.includes('t1lab-task-'))) out.push(...tags);
    }
    return [...new Set(out)].sort();
  }

  /** Remove what this install's dead owners left, and anything past its deadline (labels.ts decides). */
  async sweep(installId: string, now = Date.now()): Promise<SweepResult> {
    const result: SweepResult = { containers: [], volumes: [], networks: [], images: [] };
    const filters = { label: [`${LABEL_INSTALL}=${installId}`] };
    for (const c of await this.docker.listContainers({ all: true, filters })) {
      if (!sweepVerdict(c.Labels, installId, now).remove) continue;
      await this.docker
        .getContainer(c.Id)
        .remove({ force: true, v: true })
        .then(
          () => result.containers.push(c.Id),
          () => {},
        );
    }
    const volumes = (await this.docker.listVolumes({ filters })).Volumes ?? [];
    for (const v of volumes) {
      if (!sweepVerdict(v.Labels ?? undefined, installId, now).remove) continue;
      await this.docker
        .getVolume(v.Name)
        .remove({ force: true } as object)
        .then(
          () => result.volumes.push(v.Name),
          () => {},
        );
    }
    for (const n of await this.docker.listNetworks({ filters })) {
      if (!sweepVerdict(n.Labels, installId, now).remove) continue;
      await this.docker
        .getNetwork(n.Id)
        .remove()
        .then(
          () => result.networks.push(n.Name),
          () => {},
        );
    }
    for (const i of await this.docker.listImages({ filters })) {
      if (!sweepVerdict(i.Labels ?? undefined, installId, now).remove) continue;
      await this.docker
        .getImage(i.Id)
        .remove({ force: true })
        .then(
          () => result.images.push(i.Id),
          () => {},
        );
    }
    return result;
  }
}

/** 'localhost/x:tag' -> repo 'localhost/x', tag 'tag' (a registry port is not a tag; no tag = latest). */
export function splitRef(ref: string): { repo: string; tag: string } {
  const at = ref.lastIndexOf(':');
  if (at > ref.lastIndexOf('/') && at > 0) return { repo: ref.slice(0, at), tag: ref.slice(at + 1) };
  return { repo: ref, tag: 'latest' };
}
