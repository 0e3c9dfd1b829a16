/**
 * `t1lab tasks import-tb SRC DEST`: Terminal-Bench 1 and Harbor (TB 2.x) task folders -> our Harbor layout
 * with sandbox extensions. Simple Dockerfiles become environment/files + setup.sh; test scripts that only
 * fetch pytest from the network are replaced by the lab's own pytest run; everything else that needs the
 * container is marked `runtime = "container"` with the reason. Originals are kept under environment/.
 */
import { readdir, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { parse as parseToml, stringify as stringifyToml } from 'smol-toml';
import { parseDocument } from 'yaml';
import { LabError } from '../../../ipc/common/errors';
import type { TaskProblem, TaskRuntime } from '../../../domain/tasks';
import { buildTask } from '../build-task';
import { DEFAULT_WORKDIR } from '../config/task-toml';
import { parseSolutionYaml, parseTaskYaml } from '../config/task-yaml';
import { DEFAULT_SIZE_LIMITS, MAX_DISCOVERY_DEPTH } from '../limits';
import { decodeText, TASK_PATHS, TB1_PATHS, type TaskFile } from '../model';
import { taskIdProblem } from '../paths';
import { readTaskFolder } from '../read-folder';
import { isTaskFolder } from '../source';
import { writeTaskFolder } from '../write-folder';
import { NETWORK_USE, planEnvironment, type HostProbe } from './dockerfile';
import { LAB_PYTEST_FUNCTION, offlineTestScript } from './offline-tests';
import { splitShellCommands } from '../../../../native/util/shell-split';
import { hostProbe } from './host-probe';
import { EXPORT_MANIFEST, restoreExportedFiles } from '../export/harbor';

export interface ImportedTask {
  id: string;
  from: 'tb1' | 'harbor';
  dest: string;
  runtime: TaskRuntime;
  notes: string[];
}

export interface ImportFailure {
  id: string;
  src: string;
  problems: TaskProblem[];
}

export interface ImportReport {
  imported: ImportedTask[];
  failed: ImportFailure[];
}

const encoder = new TextEncoder();
const textFile = (path: string, text: string, executable = false): TaskFile => ({
  path,
  data: encoder.encode(text),
  executable,
});

/** TB1 task.yaml keys that become config, not metadata. */
const TB1_CONFIG_KEYS = new Set([
  'instruction',
  'max_agent_timeout_sec',
  'max_test_timeout_sec',
  'parser_name',
  'run_tests_in_same_shell',
  'disable_asciinema',
  'descriptions',
]);

export async function importTerminalBench(
  src: string,
  dest: string,
  probe: HostProbe = hostProbe,
): Promise<ImportReport> {
  const root = resolve(src);
  const info = await stat(root).catch(() => null);
  if (!info?.isDirectory()) throw new LabError('NOT_FOUND', `${src}: not a folder`);
  const folders: string[] = [];
  const walk = async (dir: string, depth: number) => {
    if (await isTaskFolder(dir)) return void folders.push(dir);
    if (depth >= MAX_DISCOVERY_DEPTH) return;
    for (const e of (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (e.isDirectory() && !e.name.startsWith('.')) await walk(join(dir, e.name), depth + 1);
    }
  };
  await walk(root, 0);
  if (folders.length === 0)
    throw new LabError(
      'NOT_FOUND',
      `${src}: no Terminal-Bench or Harbor task folders found (looked for task.yaml / task.toml)`,
    );

  const report: ImportReport = { imported: [], failed: [] };
  for (const folder of folders) {
    const id = folder.split('/').pop() as string;
    const out = join(resolve(dest), id);
    try {
      const converted = await convertFolder(folder, id, probe);
      if ('problems' in converted) {
        report.failed.push({ id, src: folder, problems: converted.problems });
        continue;
      }
      await writeTaskFolder(out, converted.files);
      report.imported.push({ id, from: converted.from, dest: out, runtime: converted.runtime, notes: converted.notes });
    } catch (error) {
      report.failed.push({
        id,
        src: folder,
        problems: [{ file: '.', field: null, reason: (error as Error).message, severity: 'error' }],
      });
    }
  }
  return report;
}

type Failed = { problems: TaskProblem[] };
/** A folder converted to the Harbor layout: its files (task.toml says the runtime), with what was changed. */
type Converted = { from: 'tb1' | 'harbor'; files: TaskFile[]; notes: string[] } | Failed;
type ConvertedTask = { from: 'tb1' | 'harbor'; files: TaskFile[]; notes: string[]; runtime: TaskRuntime } | Failed;

async function convertFolder(folder: string, id: string, probe: HostProbe): Promise<ConvertedTask> {
  const read = await readTaskFolder(folder, DEFAULT_SIZE_LIMITS);
  const idProblem = taskIdProblem(id);
  if (idProblem) read.problems.push({ file: '.', field: null, reason: `folder name: ${idProblem}`, severity: 'error' });
  if (read.problems.some((p) => p.severity === 'error')) return { problems: read.problems };
  // A folder the lab exported (`tasks export --format harbor`) imports as the task it was, byte for byte.
  const exported = restoreExportedFiles(read.files);
  if (exported && 'problem' in exported)
    return { problems: [{ file: EXPORT_MANIFEST, field: null, reason: exported.problem, severity: 'error' }] };
  if (exported) {
    const check = buildTask(id, exported.files, { kind: 'folder', path: folder });
    if (!check.task) return { problems: check.problems };
    return {
      from: 'harbor',
      files: exported.files,
      notes: [`a T1 Lab export of task '${exported.task}': the original files restored (${EXPORT_MANIFEST})`],
      runtime: check.task.environment.runtime,
    };
  }
  const byPath = new Map(read.files.map((f) => [f.path, f]));
  const converted = byPath.has(TASK_PATHS.toml)
    ? await convertHarbor(byPath, probe)
    : byPath.has(TB1_PATHS.yaml)
      ? await convertTb1(byPath, probe)
      : null;
  if (!converted)
    return {
      problems: [
        {
          file: '.',
          field: null,
          reason: 'neither task.toml (Harbor) nor task.yaml (Terminal-Bench 1)',
          severity: 'error',
        },
      ],
    };
  if ('problems' in converted) return converted;
  // The result must load as a task: the same validation as any other.
  const check = buildTask(id, converted.files, { kind: 'folder', path: folder });
  if (!check.task) return { problems: check.problems };
  // The runtime reported is the one the written task.toml loads with, whatever decided it.
  return { ...converted, runtime: check.task.environment.runtime };
}

const text = (files: Map<string, TaskFile>, path: string): string => {
  const f = files.get(path);
  return f ? (decodeText(f.data) ?? '') : '';
};

/**
 * How the test script relates to tests/test_outputs.py; decides use_test_sh and container needs. A script
 * that installs pytest first runs in the sandbox with its install steps dropped and every other step kept,
 * in order (offline-tests.ts); one that cannot be converted so needs the container, with the reason.
 */
function analyzeTestScript(
  script: string | null,
  hasPytest: boolean,
  notes: string[],
): { useTestSh: boolean | undefined; containerReason: string | null } {
  if (script === null) return { useTestSh: undefined, containerReason: null };
  const networked = /\b(curl|wget|apt-get|apt\s+install|pip3?\s+install|uvx?\b|setup-uv-pytest|run-uv-pytest)/.test(
    script,
  );
  if (hasPytest && (networked || /\bpytest\b/.test(script))) {
    const offline = offlineTestScript(script);
    if (!offline.ok)
      return {
        useTestSh: undefined,
        containerReason: `the test script cannot run without the network (${offline.reason})`,
      };
    const kept = splitShellCommands(offline.script).filter(
      (c) => !c.trim().startsWith('#') && !c.startsWith(LAB_PYTEST_FUNCTION),
    ).length;
    notes.push(
      `the test script installs pytest from the network: the lab runs it without its ${offline.dropped.length} install step(s) (${offline.dropped.join('; ').slice(0, 160)}), ` +
        `keeps its ${kept} other step(s) in order and runs pytest with the system python (use_test_sh = false)`,
    );
    return { useTestSh: false, containerReason: null };
  }
  if (networked)
    return { useTestSh: undefined, containerReason: 'the verifier script installs software from the network' };
  return { useTestSh: undefined, containerReason: null };
}

/**
 * Modules that are the task's own, not third-party packages: files or folders of the task (`attack.py`,
 * `kv_store_pb2.py`), protobuf modules generated at run time (`*_pb2`, `*_pb2_grpc`), and modules the
 * solution or the instruction creates (`mypkg/`, `mypkg.py`).
 */
export function localModules(files: Map<string, TaskFile>, modules: string[]): Set<string> {
  const local = new Set<string>();
  const paths = [...files.keys()];
  const texts = [TASK_PATHS.solve, TB1_PATHS.solutionSh, TASK_PATHS.instruction, TB1_PATHS.yaml]
    .map((p) => text(files, p))
    .join('\n');
  for (const m of modules) {
    if (/_pb2(_grpc)?$/.test(m)) local.add(m);
    else if (
      paths.some((p) => p.split('/').some((part, i, all) => part === `${m}.py` || (part === m && i < all.length - 1)))
    )
      local.add(m);
    else if (new RegExp(`(^|[\\s/'"])${m}(\\.py|/)`).test(texts)) local.add(m);
  }
  return local;
}

/** Third-party modules imported by the tests that this machine's python lacks (the task's own modules are not counted). */
async function missingTestModules(source: string, probe: HostProbe, files: Map<string, TaskFile>): Promise<string[]> {
  const modules = new Set<string>();
  for (const m of source.matchAll(
    /^\s*(?:from\s+([A-Za-z_][\w.]*)\s+import|import\s+([A-Za-z_][\w.]*(?:\s*,\s*[A-Za-z_][\w.]*)*))/gm,
  )) {
    const names = m[1] ? [m[1]] : (m[2] as string).split(',').map((s) => s.trim());
    for (const n of names) modules.add(n.split('.')[0] as string);
  }
  const local = localModules(files, [...modules]);
  const thirdParty = [...modules].filter((m) => !local.has(m));
  return thirdParty.length ? probe.missingPythonModules(thirdParty) : [];
}

/** Network use in the oracle solution: the task then needs its container with the network (Harbor's default). */
function solutionNetwork(files: Map<string, TaskFile>): string | null {
  for (const path of [TASK_PATHS.solve, TB1_PATHS.solutionSh]) {
    const m = NETWORK_USE.exec(text(files, path));
    if (m) return `${path} fetches from the network (${m[0]})`;
  }
  return null;
}

/** Every blocker, joined; null when none. */
function joinReasons(reasons: (string | null)[]): string | null {
  const all = reasons.filter((r): r is string => !!r);
  return all.length ? all.join('; ') : null;
}

interface RuntimeInputs {
  files: Map<string, TaskFile>;
  /** The test script's text (Harbor's tests/test.sh, TB1's run-tests.sh), null when there is none. */
  testScript: string | null;
  /** Why the environment itself (compose services, an image, a Dockerfile that does not convert) needs the container. */
  environmentReason: string | null;
  probe: HostProbe;
  notes: string[];
}

/**
 * Where an imported task runs, decided once for both layouts and written into its `[environment]` (and
 * `[verifier]`) tables: a runtime the task declares is kept; otherwise the container when the environment,
 * the tests or the solution need it (with every reason), else the sandbox.
 */
async function decideRuntime(
  environment: Record<string, unknown>,
  verifier: Record<string, unknown>,
  inputs: RuntimeInputs,
): Promise<void> {
  const { files, probe, notes } = inputs;
  const hasPytest = files.has(TASK_PATHS.pytest);
  const tests = analyzeTestScript(inputs.testScript, hasPytest, notes);
  if (tests.useTestSh === false) verifier.use_test_sh = false;
  const missing = hasPytest ? await missingTestModules(text(files, TASK_PATHS.pytest), probe, files) : [];
  const network = solutionNetwork(files);
  if (network) environment.allow_internet = true;
  if (environment.runtime !== undefined) return;
  const containerReason = joinReasons([
    inputs.environmentReason,
    tests.containerReason,
    missing.length ? `tests/test_outputs.py imports modules this machine's python lacks: ${missing.join(', ')}` : null,
    network,
  ]);
  environment.runtime = containerReason ? 'container' : 'sandbox';
  if (containerReason) environment.container_reason = containerReason;
}

interface EnvResult {
  files: TaskFile[];
  env: Record<string, unknown>;
  containerReason: string | null;
}

/** Plan the environment from a Dockerfile whose build context is `contextDir` ('' = the task root). */
async function convertEnvironment(
  files: Map<string, TaskFile>,
  dockerfilePath: string,
  contextDir: string,
  workdir: string,
  probe: HostProbe,
  notes: string[],
): Promise<EnvResult> {
  const inCtx = (p: string) => (contextDir ? `${contextDir}/${p}` : p);
  const readContext = (p: string) => (files.has(inCtx(p)) ? text(files, inCtx(p)) : null);
  // What the task's own scripts use: a package whose commands none of them name is not needed.
  const usedText = [...files.entries()]
    .filter(([p]) => /^(solution\/|tests\/|solution\.sh|run-tests\.sh|instruction\.md|task\.yaml)/.test(p))
    .map(([p]) => text(files, p))
    .join('\n');
  const plan = await planEnvironment(text(files, dockerfilePath), probe, workdir, readContext, usedText);
  notes.push(...plan.notes);
  const out: TaskFile[] = [];
  if (!plan.containerReason && !plan.ordered) {
    const inContext = (p: string) => (contextDir ? `${contextDir}/${p}` : p);
    for (const copy of plan.copies) {
      const src = copy.from === '.' ? contextDir : inContext(copy.from);
      const file = files.get(src);
      const base = copy.from.split('/').pop() as string;
      if (file) {
        out.push({ ...file, path: join(TASK_PATHS.filesDir, copy.intoDir ? join(copy.to, base) : copy.to || base) });
        continue;
      }
      const prefix = src ? `${src}/` : '';
      const under = [...files.values()].filter(
        (f) =>
          f.path.startsWith(prefix) &&
          f.path !== dockerfilePath &&
          !/(^|\/)(docker-compose\.ya?ml|\.dockerignore)$/.test(f.path),
      );
      if (under.length === 0) {
        plan.containerReason = `the Dockerfile copies ${copy.from}, which is not in the build context`;
        break;
      }
      for (const f of under) out.push({ ...f, path: join(TASK_PATHS.filesDir, copy.to, f.path.slice(prefix.length)) });
    }
  }
  if (plan.setup.length && !plan.containerReason) {
    out.push(
      textFile(
        TASK_PATHS.setup,
        `#!/bin/bash\n# Converted from ${dockerfilePath} RUN lines by t1lab tasks import-tb.\nset -euo pipefail\n${plan.setup.join('\n')}\n`,
        true,
      ),
    );
    notes.push(
      'RUN commands moved to environment/setup.sh; any that write outside the workspace fail in the sandbox (run `t1lab tasks audit` to check)',
    );
  }
  const env: Record<string, unknown> = plan.containerReason
    ? {}
    : {
        workdir: plan.workdir,
        ...(Object.keys(plan.env).length ? { env: plan.env } : {}),
        ...(plan.startDir ? { start_dir: plan.startDir } : {}),
        // A python image has `python`; the host's /usr may only have python3.
        ...(plan.pythonImage ? { command_aliases: { python: '/usr/bin/python3' } } : {}),
      };
  if (plan.startDir) notes.push(`the agent's shell starts in ${plan.startDir} (the Dockerfile's last WORKDIR)`);
  return { files: plan.containerReason ? [] : out, env, containerReason: plan.containerReason };
}

async function convertHarbor(files: Map<string, TaskFile>, probe: HostProbe): Promise<Converted> {
  const notes: string[] = [];
  let config: Record<string, unknown>;
  try {
    config = parseToml(text(files, TASK_PATHS.toml)) as Record<string, unknown>;
  } catch (error) {
    return {
      problems: [
        {
          file: TASK_PATHS.toml,
          field: null,
          reason: `malformed TOML: ${(error as Error).message.split('\n')[0]}`,
          severity: 'error',
        },
      ],
    };
  }
  const environment = { ...((config.environment as Record<string, unknown> | undefined) ?? {}) };
  const verifier = { ...((config.verifier as Record<string, unknown> | undefined) ?? {}) };
  const out = new Map(files);
  let containerReason: string | null = null;

  if (environment.runtime === undefined) {
    // A prebuilt image does not make the task container-only when its Dockerfile converts (docker_image is
    // kept: the container backend uses it where it can be had).
    if (['environment/docker-compose.yaml', 'environment/docker-compose.yml'].some((p) => files.has(p)))
      containerReason = 'defines services in environment/docker-compose.yaml';
    else if (typeof environment.docker_image === 'string' && !files.has(TASK_PATHS.dockerfile))
      containerReason = `uses the prebuilt image '${environment.docker_image}' and ships no Dockerfile`;
    else if (files.has(TASK_PATHS.dockerfile)) {
      const env = await convertEnvironment(
        files,
        TASK_PATHS.dockerfile,
        TASK_PATHS.environmentDir,
        DEFAULT_WORKDIR,
        probe,
        notes,
      );
      containerReason = env.containerReason;
      for (const f of env.files) out.set(f.path, f);
      Object.assign(environment, env.env);
    }
  }
  const testScript = files.has(TASK_PATHS.testSh) ? text(files, TASK_PATHS.testSh) : null;
  await decideRuntime(environment, verifier, { files, testScript, environmentReason: containerReason, probe, notes });
  config.environment = environment;
  config.verifier = verifier;
  out.set(
    TASK_PATHS.toml,
    textFile(TASK_PATHS.toml, `# Imported by t1lab tasks import-tb (Harbor layout).\n${stringifyToml(config)}\n`),
  );
  return { from: 'harbor', files: [...out.values()], notes };
}

async function convertTb1(files: Map<string, TaskFile>, probe: HostProbe): Promise<Converted> {
  const notes: string[] = [];
  const parsed = parseTaskYaml(text(files, TB1_PATHS.yaml));
  if (!parsed.ok) {
    const problems: TaskProblem[] = [];
    if (parsed.syntax) problems.push({ file: TB1_PATHS.yaml, field: null, reason: parsed.syntax, severity: 'error' });
    for (const i of parsed.issues?.issues ?? [])
      problems.push({ file: TB1_PATHS.yaml, field: i.path.join('.') || null, reason: i.message, severity: 'error' });
    return { problems };
  }
  const yaml = parsed.value;
  const out: TaskFile[] = [textFile(TASK_PATHS.instruction, `${yaml.instruction.trim()}\n`)];
  const metadata = Object.fromEntries(
    Object.entries(yaml).filter(([k, v]) => !TB1_CONFIG_KEYS.has(k) && v !== undefined && v !== null),
  );
  const environment: Record<string, unknown> = {};
  const verifier: Record<string, unknown> = { timeout_sec: yaml.max_test_timeout_sec ?? 60 };
  let containerReason: string | null = null;

  // Root files other than TB1's own become the build context under environment/, as in Harbor.
  const tb1Own = new Set<string>([TB1_PATHS.yaml, TB1_PATHS.solutionSh, TB1_PATHS.solutionYaml, TB1_PATHS.runTests]);
  for (const f of files.values()) {
    if (tb1Own.has(f.path)) continue;
    if (f.path.startsWith('tests/')) out.push(f);
    else if (f.path.startsWith('environment/') || f.path.startsWith('solution/')) out.push(f);
    else out.push({ ...f, path: `environment/${f.path}` });
  }
  const compose = files.get(TB1_PATHS.compose) ?? files.get('docker-compose.yml');
  if (compose) {
    const services = Object.keys(
      (parseDocument(decodeText(compose.data) ?? '').toJS() as { services?: object } | null)?.services ?? {},
    );
    if (services.length > 1)
      containerReason = `docker-compose defines ${services.length} services (${services.join(', ')})`;
  }
  if (!containerReason && files.has(TB1_PATHS.dockerfile)) {
    const env = await convertEnvironment(files, TB1_PATHS.dockerfile, '', DEFAULT_WORKDIR, probe, notes);
    containerReason = env.containerReason;
    out.push(...env.files);
    Object.assign(environment, env.env);
  }

  if (files.has(TB1_PATHS.solutionSh))
    out.push({ ...(files.get(TB1_PATHS.solutionSh) as TaskFile), path: TASK_PATHS.solve, executable: true });
  else if (files.has(TB1_PATHS.solutionYaml)) {
    const commands = parseSolutionYaml(text(files, TB1_PATHS.solutionYaml));
    if (!commands.ok)
      return { problems: [{ file: TB1_PATHS.solutionYaml, field: null, reason: commands.reason, severity: 'error' }] };
    out.push(
      textFile(
        TASK_PATHS.solve,
        `#!/bin/bash\n# Converted from solution.yaml by t1lab tasks import-tb.\n${commands.value.map((c) => c.command).join('\n')}\n`,
        true,
      ),
    );
  }
  if (files.has(TB1_PATHS.runTests))
    out.push({ ...(files.get(TB1_PATHS.runTests) as TaskFile), path: TASK_PATHS.testSh, executable: true });
  const testScript = files.has(TB1_PATHS.runTests) ? text(files, TB1_PATHS.runTests) : null;
  await decideRuntime(environment, verifier, { files, testScript, environmentReason: containerReason, probe, notes });

  const config = {
    version: '1.0',
    metadata,
    agent: { timeout_sec: yaml.max_agent_timeout_sec ?? 360 },
    verifier,
    environment,
  };
  out.push(
    textFile(
      TASK_PATHS.toml,
      `# Imported from Terminal-Bench 1 (task.yaml) by t1lab tasks import-tb.\n${stringifyToml(config)}\n`,
    ),
  );
  return { from: 'tb1', files: out, notes };
}
