/**
 * Turns a task's Dockerfile into a sandbox environment when it is simple enough: COPY/ADD of build-context
 * files into the workdir become environment/files/, RUN commands become environment/setup.sh, ENV becomes
 * [environment].env, WORKDIR the workdir. Anything the sandbox cannot reproduce (package installs that
 * this machine lacks, downloads, multi-stage builds, copies outside the workdir) makes the task a
 * container task, with the reason naming the line.
 */
import { posix } from 'node:path';

export interface DockerInstruction {
  line: number;
  op: string;
  args: string;
}

/** Instructions with continuations joined and comments dropped. */
export function parseDockerfile(text: string): DockerInstruction[] {
  const out: DockerInstruction[] = [];
  const lines = text.split('\n');
  let buffer = '';
  let start = 0;
  for (let i = 0; i < lines.length; i++) {
    const raw = (lines[i] as string).replace(/\r$/, '');
    if (buffer === '' && /^\s*(#.*)?$/.test(raw)) continue;
    if (buffer !== '' && /^\s*#/.test(raw)) continue;
    if (buffer === '') start = i + 1;
    if (/\\\s*$/.test(raw)) {
      buffer += `${raw.replace(/\\\s*$/, '')} `;
      continue;
    }
    buffer += raw;
    const m = /^\s*([A-Za-z]+)\s*(.*)$/s.exec(buffer);
    if (m) out.push({ line: start, op: (m[1] as string).toUpperCase(), args: (m[2] as string).trim() });
    buffer = '';
  }
  if (buffer) {
    const m = /^\s*([A-Za-z]+)\s*(.*)$/s.exec(buffer);
    if (m) out.push({ line: start, op: (m[1] as string).toUpperCase(), args: (m[2] as string).trim() });
  }
  return out;
}

/** What this machine already has, asked by the importer (dpkg, python modules). */
export interface HostProbe {
  missingDebs(names: string[]): Promise<string[]>;
  missingPythonModules(names: string[]): Promise<string[]>;
}

export interface EnvironmentPlan {
  /** null when the Dockerfile converts; else why the task needs its container. */
  containerReason: string | null;
  workdir: string;
  env: Record<string, string>;
  /**
   * Build-context paths to copy and where under the workdir they go ('' = the workdir itself). As in
   * Docker: a folder's contents go into `to`; a file goes to `to` itself unless `intoDir` (destination
   * ending in '/', several sources, or the workdir), then into `to/` under its own name.
   */
  copies: { from: string; to: string; intoDir: boolean }[];
  /** Commands for environment/setup.sh, in order. */
  setup: string[];
  notes: string[];
}

/** Packages TB images install for the TB harness itself (tmux sessions, recordings), not for the task. */
const HARNESS_DEBS = new Set(['tmux', 'asciinema']);
const PIP_MODULE_NAMES: Record<string, string> = {
  'scikit-learn': 'sklearn',
  pyyaml: 'yaml',
  pillow: 'PIL',
  beautifulsoup4: 'bs4',
  'opencv-python': 'cv2',
  'opencv-python-headless': 'cv2',
  'python-dateutil': 'dateutil',
  'pytest-json-ctrf': 'pytest_jsonctrf',
};
/** Python packages the verifier does not need: the lab runs pytest itself and reads JUnit XML. */
const VERIFIER_ONLY_PIP = new Set(['pytest', 'pytest-json-ctrf']);

function words(args: string): string[] {
  if (args.startsWith('[')) {
    try {
      return (JSON.parse(args) as unknown[]).map(String);
    } catch {
      // fall through to whitespace splitting
    }
  }
  return args.split(/\s+/).filter(Boolean);
}

function stripVersion(spec: string): string {
  return spec.replace(/[=<>!~;[].*$/, '').replace(/^['"]|['"]$/g, '');
}

export async function planEnvironment(dockerfile: string, probe: HostProbe, defaultWorkdir: string): Promise<EnvironmentPlan> {
  const plan: EnvironmentPlan = { containerReason: null, workdir: defaultWorkdir, env: {}, copies: [], setup: [], notes: [] };
  const need = (line: number, why: string) => {
    plan.containerReason ??= `Dockerfile line ${line}: ${why}`;
  };
  let froms = 0;
  let workdirSet = false;

  for (const ins of parseDockerfile(dockerfile)) {
    switch (ins.op) {
      case 'FROM':
        froms++;
        if (froms > 1) need(ins.line, 'multi-stage build (a second FROM)');
        else plan.notes.push(`base image ${ins.args.split(/\s+/)[0]} replaced by this machine's system (read-only /usr)`);
        break;
      case 'WORKDIR': {
        const dir = ins.args.replace(/^["']|["']$/g, '');
        const abs = posix.resolve(plan.workdir, dir);
        if (!workdirSet) {
          plan.workdir = abs;
          workdirSet = true;
        } else if (abs !== plan.workdir && !abs.startsWith(`${plan.workdir}/`)) need(ins.line, `a second WORKDIR ${abs} outside ${plan.workdir}`);
        break;
      }
      case 'ENV': {
        const args = ins.args;
        const pairs = /^[A-Za-z_][A-Za-z0-9_]*=/.test(args)
          ? [...args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)/g)].map((m) => [m[1] as string, (m[2] as string).replace(/^["']|["']$/g, '')])
          : [[args.split(/\s+/)[0] as string, args.replace(/^\S+\s+/, '')]];
        for (const [k, v] of pairs) {
          if (k === 'PATH' || k === 'HOME') plan.notes.push(`ENV ${k} ignored: the sandbox sets its own`);
          else plan.env[k as string] = v as string;
        }
        break;
      }
      case 'COPY':
      case 'ADD': {
        const parts = words(ins.args).filter((w) => !w.startsWith('--chown') && !w.startsWith('--chmod') && !w.startsWith('--link'));
        if (parts.some((w) => w.startsWith('--from'))) {
          need(ins.line, `${ins.op} --from another stage`);
          break;
        }
        const dest = parts.pop();
        if (!dest || parts.length === 0) {
          need(ins.line, `${ins.op} without a source and a destination`);
          break;
        }
        const target = posix.resolve(plan.workdir, dest);
        if (target !== plan.workdir && !target.startsWith(`${plan.workdir}/`)) {
          need(ins.line, `${ins.op} into ${target}, outside the workspace ${plan.workdir}`);
          break;
        }
        const to = target === plan.workdir ? '' : target.slice(plan.workdir.length + 1);
        for (const src of parts) {
          if (/^https?:\/\//.test(src)) need(ins.line, `${ins.op} downloads ${src}`);
          else if (src.startsWith('/') || posix.normalize(src).startsWith('..')) need(ins.line, `${ins.op} from ${src}, outside the build context`);
          else if (/[*?[]/.test(src)) need(ins.line, `${ins.op} with a wildcard (${src}); list the files instead`);
          else plan.copies.push({ from: posix.normalize(src).replace(/\/+$/, '') || '.', to, intoDir: dest.endsWith('/') || parts.length > 1 || to === '' });
        }
        break;
      }
      case 'RUN':
        await planRun(ins, plan, probe, need);
        break;
      case 'ARG':
      case 'LABEL':
      case 'EXPOSE':
      case 'VOLUME':
      case 'STOPSIGNAL':
      case 'HEALTHCHECK':
      case 'SHELL':
      case 'MAINTAINER':
        plan.notes.push(`line ${ins.line}: ${ins.op} ignored`);
        break;
      case 'USER':
        plan.notes.push(`line ${ins.line}: USER ${ins.args} ignored (the sandbox runs one user)`);
        break;
      case 'CMD':
      case 'ENTRYPOINT':
        plan.notes.push(`line ${ins.line}: ${ins.op} ignored (the sandbox starts the agent's shell instead)`);
        break;
      default:
        need(ins.line, `unsupported instruction ${ins.op}`);
    }
  }
  return plan;
}

/** A RUN: package installs are checked against this machine; network fetches need the container. */
async function planRun(ins: DockerInstruction, plan: EnvironmentPlan, probe: HostProbe, need: (line: number, why: string) => void): Promise<void> {
  const kept: string[] = [];
  for (const raw of ins.args.split(/\s*&&\s*/)) {
    const command = raw.trim().replace(/;$/, '');
    if (!command) continue;
    const w = command.split(/\s+/);
    const tool = w[0] === 'sudo' || w[0] === 'DEBIAN_FRONTEND=noninteractive' ? w.slice(1) : w;
    const head = tool[0] ?? '';
    if ((head === 'apt-get' || head === 'apt') && tool[1] !== 'install') continue;
    if (/^rm\s+-rf\s+\/var\/lib\/apt\/lists/.test(command)) continue;
    if ((head === 'apt-get' || head === 'apt') && tool[1] === 'install') {
      const pkgs = tool.slice(2).filter((p) => !p.startsWith('-')).map((p) => p.replace(/=.*$/, '')).filter((p) => !HARNESS_DEBS.has(p));
      const missing = await probe.missingDebs(pkgs);
      if (missing.length) need(ins.line, `installs Debian packages this machine lacks: ${missing.join(', ')}`);
      else if (pkgs.length) plan.notes.push(`line ${ins.line}: apt packages already on this machine: ${pkgs.join(', ')}`);
      continue;
    }
    if (['apk', 'yum', 'dnf', 'zypper', 'pacman'].includes(head)) {
      need(ins.line, `uses the ${head} package manager`);
      continue;
    }
    const pipAt = tool.findIndex((t, k) => (t === 'install' && /^(pip3?|uv)$/.test(tool[k - 1] ?? '')) || (t === 'install' && tool[k - 1] === 'pip' && tool[k - 2] === 'uv'));
    if (/^(pip3?|python3?|uv)$/.test(head) && pipAt >= 0) {
      const specs = tool.slice(pipAt + 1).filter((p) => !p.startsWith('-'));
      if (specs.some((s) => s.includes('/') || s.startsWith('git+'))) {
        need(ins.line, `pip installs from a URL or path (${specs.join(' ')})`);
        continue;
      }
      const names = specs.map(stripVersion).filter((n) => n && !VERIFIER_ONLY_PIP.has(n.toLowerCase()));
      const modules = names.map((n) => PIP_MODULE_NAMES[n.toLowerCase()] ?? n.replace(/-/g, '_'));
      const missing = await probe.missingPythonModules(modules);
      if (missing.length) need(ins.line, `installs Python packages this machine lacks: ${missing.join(', ')}`);
      else if (names.length) plan.notes.push(`line ${ins.line}: Python packages already on this machine: ${names.join(', ')}`);
      continue;
    }
    if (/\b(curl|wget|git\s+clone|npm\s+(i|install)|cargo\s+install|go\s+install)\b/.test(command)) {
      need(ins.line, `fetches from the network (${command.slice(0, 80)})`);
      continue;
    }
    kept.push(command);
  }
  if (kept.length) plan.setup.push(kept.join(' && '));
}
