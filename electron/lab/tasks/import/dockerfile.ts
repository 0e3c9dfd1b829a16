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
  /** Whether a command is on this machine's PATH (optional: probes without it skip that check). */
  hasCommand?(name: string): Promise<boolean>;
}

export interface EnvironmentPlan {
  /** null when the Dockerfile converts; else why the task needs its container (every blocker, '; '-joined). */
  containerReason: string | null;
  /** Every blocker found, in Dockerfile order. */
  reasons: string[];
  workdir: string;
  /** A later WORKDIR inside the first: where the agent's shell starts. */
  startDir: string | null;
  /** The base image is a python image: `python` is a command there. */
  pythonImage: boolean;
  /**
   * A COPY comes after a RUN: copies are done by setup.sh in Dockerfile order (from /environment) instead
   * of environment/files/, so that `RUN mkdir data` then `COPY data/ data/` works as in Docker.
   */
  ordered: boolean;
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

/** Reads a build-context file's text (for scripts that RUN calls), or null. */
export type ContextReader = (path: string) => string | null;

/** Folders a build may write to that the sandbox keeps (the workspace) or throws away harmlessly. */
const WRITABLE_OK = ['/tmp', '/dev/null', '/environment', '/var/lib/apt/lists', '/var/cache/apt'];
/** Build-time writes outside the workspace the sandbox cannot keep: home, system config, data folders. */
const OUTSIDE =
  /(^|[\s=>'"])(\/(root|etc|home|data|opt|srv|mnt|var|usr\/local|usr\/share|usr\/lib)(\/[^\s;&|'"]*)?|~\/[^\s;&|'"]*|\$HOME\/[^\s;&|'"]*)/;
const WRITE_COMMANDS =
  /^(mkdir|cp|mv|touch|ln|tee|chmod|chown|install|rm|echo|printf|cat|tar|unzip|sed|useradd|adduser|groupadd|git)\b/;
/** Network use in a script or command. */
export const NETWORK_USE =
  /\b(curl|wget|git\s+clone|pip3?\s+install|uv\s+(pip|add|sync|tool)|uvx|npm\s+(i|install|ci)|yarn\s+add|cargo\s+(install|build|fetch)|go\s+(get|install|mod\s+download)|opam\s+(install|init)|apt(-get)?\s+install|gem\s+install|cpanm?|install\.packages|conda\s+install)\b/;

/** Whether a RUN command writes outside the workspace (home, /etc, /data, git's global config...). */
export function writesOutside(command: string, workdir: string): string | null {
  if (/\bgit\s+config\s+--(global|system)\b/.test(command)) return 'git config --global (writes ~/.gitconfig)';
  if (/^(useradd|adduser|groupadd|usermod)\b/.test(command)) return `${command.split(/\s+/)[0]} (changes /etc)`;
  const redirect = /(>>?|\btee\s+(-a\s+)?)\s*(\S+)/g;
  for (const m of command.matchAll(redirect)) {
    const target = (m[3] as string).replace(/^["']|["']$/g, '');
    if (outsideTarget(target, workdir)) return `writes ${target}`;
  }
  if (WRITE_COMMANDS.test(command)) {
    const words = command
      .split(/\s+/)
      .slice(1)
      .filter((w) => !w.startsWith('-'));
    const last = words.at(-1)?.replace(/^["']|["']$/g, '') ?? '';
    const head = command.split(/\s+/)[0];
    const targets =
      head === 'mkdir' || head === 'touch' || head === 'rm' || head === 'chmod' || head === 'chown' ? words : [last];
    for (const t of targets) if (outsideTarget(t.replace(/^["']|["']$/g, ''), workdir)) return `${head} ${t}`;
  }
  return null;
}

function outsideTarget(target: string, workdir: string): boolean {
  if (!target || target.startsWith('&')) return false;
  const abs =
    target.startsWith('~/') || target.startsWith('$HOME/') ? `/root/${target.replace(/^(~|\$HOME)\//, '')}` : target;
  if (!abs.startsWith('/')) return false;
  if (abs === workdir || abs.startsWith(`${workdir}/`)) return false;
  if (WRITABLE_OK.some((p) => abs === p || abs.startsWith(`${p}/`))) return false;
  return OUTSIDE.test(` ${abs}`);
}

/** Debian packages whose commands are named differently (only those commands matter to a task). */
const DEB_COMMANDS: Record<string, string[]> = {
  nodejs: ['node', 'nodejs'],
  npm: ['npm', 'npx'],
  'python3-pip': ['pip', 'pip3'],
  'python3-venv': ['venv'],
  'build-essential': ['gcc', 'make', 'g++'],
  'default-jdk': ['java', 'javac'],
  'openjdk-17-jdk': ['java', 'javac'],
  sqlite3: ['sqlite3'],
  'git-core': ['git'],
  'netcat-openbsd': ['nc'],
  'iputils-ping': ['ping'],
  procps: ['ps', 'top', 'pgrep'],
};

/**
 * The packages a task really needs that this machine lacks: a package whose commands exist here is there
 * in effect; a package providing commands the task's scripts never name (npm when only node is used) is
 * not needed. Library packages (no command) count when missing.
 */
async function neededMissingDebs(pkgs: string[], probe: HostProbe, usedText: string): Promise<string[]> {
  const missing = await probe.missingDebs(pkgs);
  const out: string[] = [];
  for (const p of missing) {
    const commands = DEB_COMMANDS[p];
    if (commands) {
      if (probe.hasCommand && (await Promise.all(commands.map((c) => probe.hasCommand?.(c) ?? false))).some(Boolean))
        continue;
      if (
        usedText &&
        !commands.some((c) =>
          new RegExp(`(^|[^A-Za-z0-9_-])${c.replace(/[+.]/g, '\\$&')}([^A-Za-z0-9_-]|$)`).test(usedText),
        )
      )
        continue;
    }
    out.push(p);
  }
  return out;
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

/** A Dockerfile step in order, for the ordered mode (a COPY after a RUN). */
type PlanStep =
  | { kind: 'copy'; from: string; to: string; intoDir: boolean }
  | { kind: 'run'; command: string }
  | { kind: 'cd'; dir: string };

/** The plan being built, and what the instructions so far leave for the next ones. */
interface Planning {
  plan: EnvironmentPlan;
  /** Record why this task needs its container (it cannot run in the sandbox). */
  need: (line: number, why: string) => void;
  froms: number;
  workdirSet: boolean;
  /** A RUN that stays in setup.sh came before: a later COPY must keep Docker's order. */
  ranBefore: boolean;
  steps: PlanStep[];
}

export async function planEnvironment(
  dockerfile: string,
  probe: HostProbe,
  defaultWorkdir: string,
  readContext: ContextReader = () => null,
  usedText = '',
): Promise<EnvironmentPlan> {
  const plan: EnvironmentPlan = {
    containerReason: null,
    reasons: [],
    workdir: defaultWorkdir,
    startDir: null,
    pythonImage: false,
    ordered: false,
    env: {},
    copies: [],
    setup: [],
    notes: [],
  };
  const p: Planning = {
    plan,
    need: (line, why) => {
      plan.reasons.push(`Dockerfile line ${line}: ${why}`);
      plan.containerReason = plan.reasons.join('; ');
    },
    froms: 0,
    workdirSet: false,
    ranBefore: false,
    steps: [],
  };
  const context = { readContext, usedText };
  for (const ins of parseDockerfile(dockerfile)) {
    switch (ins.op) {
      case 'FROM':
        planFrom(p, ins);
        break;
      case 'WORKDIR':
        planWorkdir(p, ins);
        break;
      case 'ENV':
        planEnvVars(p, ins);
        break;
      case 'COPY':
      case 'ADD':
        planCopy(p, ins);
        break;
      case 'RUN': {
        const before = plan.setup.length;
        await planRun(ins, plan, probe, p.need, context);
        for (const command of plan.setup.slice(before)) p.steps.push({ kind: 'run', command });
        // Only a RUN that stays (not a dropped package install) can order a later COPY.
        if (plan.setup.length > before) p.ranBefore = true;
        break;
      }
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
        p.need(ins.line, `unsupported instruction ${ins.op}`);
    }
  }
  orderSetup(p);
  return plan;
}

/** The base image is replaced by this machine's system; a second FROM (multi-stage) needs the container. */
function planFrom(p: Planning, ins: DockerInstruction): void {
  p.froms++;
  if (p.froms > 1) return p.need(ins.line, 'multi-stage build (a second FROM)');
  const image = ins.args.split(/\s+/).find((w) => !w.startsWith('--')) ?? '';
  p.plan.pythonImage = /^(docker\.io\/)?(library\/)?python:/.test(image) || /\/python-3/.test(image);
  p.plan.notes.push(`base image ${image} replaced by this machine's system (read-only /usr)`);
}

/** The first WORKDIR is the workspace; a later one inside it is where later steps and the agent's shell start. */
function planWorkdir(p: Planning, ins: DockerInstruction): void {
  const { plan } = p;
  const dir = ins.args.replace(/^["']|["']$/g, '');
  const abs = posix.resolve(plan.workdir, dir);
  if (!p.workdirSet) {
    plan.workdir = abs;
    p.workdirSet = true;
  } else if (abs !== plan.workdir && !abs.startsWith(`${plan.workdir}/`))
    p.need(ins.line, `a second WORKDIR ${abs} outside ${plan.workdir}`);
  else {
    plan.startDir = abs === plan.workdir ? null : abs;
    p.steps.push({ kind: 'cd', dir: abs });
  }
}

/** ENV KEY=value pairs (or the old `ENV KEY value`); PATH and HOME stay the sandbox's. */
function planEnvVars(p: Planning, ins: DockerInstruction): void {
  const args = ins.args;
  const pairs = /^[A-Za-z_][A-Za-z0-9_]*=/.test(args)
    ? [...args.matchAll(/([A-Za-z_][A-Za-z0-9_]*)=("(?:[^"\\]|\\.)*"|'[^']*'|\S*)/g)].map((m) => [
        m[1] as string,
        (m[2] as string).replace(/^["']|["']$/g, ''),
      ])
    : [[args.split(/\s+/)[0] as string, args.replace(/^\S+\s+/, '')]];
  for (const [k, v] of pairs) {
    if (k === 'PATH' || k === 'HOME') p.plan.notes.push(`ENV ${k} ignored: the sandbox sets its own`);
    else p.plan.env[k as string] = v as string;
  }
}

/** COPY/ADD from the build context into the workspace; anything else (another stage, a URL, outside paths, wildcards) needs the container. */
function planCopy(p: Planning, ins: DockerInstruction): void {
  const { plan } = p;
  const parts = words(ins.args).filter(
    (w) => !w.startsWith('--chown') && !w.startsWith('--chmod') && !w.startsWith('--link'),
  );
  if (parts.some((w) => w.startsWith('--from'))) return p.need(ins.line, `${ins.op} --from another stage`);
  const dest = parts.pop();
  if (!dest || parts.length === 0) return p.need(ins.line, `${ins.op} without a source and a destination`);
  const target = posix.resolve(plan.workdir, dest);
  if (target !== plan.workdir && !target.startsWith(`${plan.workdir}/`))
    return p.need(ins.line, `${ins.op} into ${target}, outside the workspace ${plan.workdir}`);
  const to = target === plan.workdir ? '' : target.slice(plan.workdir.length + 1);
  for (const src of parts) {
    if (/^https?:\/\//.test(src)) p.need(ins.line, `${ins.op} downloads ${src}`);
    else if (src.startsWith('/') || posix.normalize(src).startsWith('..'))
      p.need(ins.line, `${ins.op} from ${src}, outside the build context`);
    else if (/[*?[]/.test(src)) p.need(ins.line, `${ins.op} with a wildcard (${src}); list the files instead`);
    else {
      const copy = {
        from: posix.normalize(src).replace(/\/+$/, '') || '.',
        to,
        intoDir: dest.endsWith('/') || parts.length > 1 || to === '',
      };
      plan.copies.push(copy);
      p.steps.push({ kind: 'copy', ...copy });
      if (p.ranBefore) plan.ordered = true;
    }
  }
}

/** setup.sh in Dockerfile order when a COPY follows a RUN, or with the `cd`s of a later WORKDIR. */
function orderSetup(p: Planning): void {
  const { plan, steps } = p;
  if (plan.ordered) {
    // Docker's order kept: each COPY is a cp from the build context (at /environment) at its place among the RUNs.
    plan.setup = steps.map((step) => {
      if (step.kind === 'run') return step.command;
      if (step.kind === 'cd') return `mkdir -p ${shellQuote(step.dir)} && cd ${shellQuote(step.dir)}`;
      return copyCommand(step, plan.workdir);
    });
    plan.notes.push('a COPY follows a RUN: copies are made by setup.sh in Dockerfile order');
  } else if (plan.startDir) {
    // RUN lines after the later WORKDIR run there.
    plan.setup = steps
      .map((step) =>
        step.kind === 'cd'
          ? `mkdir -p ${shellQuote(step.dir)} && cd ${shellQuote(step.dir)}`
          : step.kind === 'run'
            ? step.command
            : '',
      )
      .filter(Boolean);
  }
}

function shellQuote(s: string): string {
  return /^[A-Za-z0-9._/-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** Docker's COPY as cp: a folder's contents into the target, a file to the target (or into it). */
function copyCommand(copy: { from: string; to: string; intoDir: boolean }, workdir: string): string {
  const src = copy.from === '.' ? '/environment' : `/environment/${copy.from}`;
  const dest = copy.to ? `${workdir}/${copy.to}` : workdir;
  const q = shellQuote;
  // The build context is mounted read-only: copies are made writable, as Docker's COPY makes them.
  const target = copy.intoDir ? `${dest}/${copy.from.split('/').pop()}` : dest;
  return (
    `if [ -d ${q(src)} ]; then mkdir -p ${q(dest)} && cp -R ${q(src)}/. ${q(dest)}/ && chmod -R u+w ${q(dest)}; ` +
    `else ${copy.intoDir ? `mkdir -p ${q(dest)} && cp ${q(src)} ${q(dest)}/` : `mkdir -p "$(dirname ${q(dest)})" && cp ${q(src)} ${q(dest)}`} && chmod u+w ${q(target)}; fi`
  );
}

/** A RUN: package installs are checked against this machine; network fetches need the container. */
async function planRun(
  ins: DockerInstruction,
  plan: EnvironmentPlan,
  probe: HostProbe,
  need: (line: number, why: string) => void,
  context: { readContext: ContextReader; usedText: string },
): Promise<void> {
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
      const pkgs = tool
        .slice(2)
        .filter((p) => !p.startsWith('-'))
        .map((p) => p.replace(/=.*$/, ''))
        .filter((p) => !HARNESS_DEBS.has(p));
      const missing = await neededMissingDebs(pkgs, probe, context.usedText);
      if (missing.length) need(ins.line, `installs Debian packages this machine lacks: ${missing.join(', ')}`);
      else if (pkgs.length)
        plan.notes.push(`line ${ins.line}: apt packages already on this machine: ${pkgs.join(', ')}`);
      continue;
    }
    if (['apk', 'yum', 'dnf', 'zypper', 'pacman'].includes(head)) {
      need(ins.line, `uses the ${head} package manager`);
      continue;
    }
    const pipAt = tool.findIndex(
      (t, k) =>
        (t === 'install' && /^(pip3?|uv)$/.test(tool[k - 1] ?? '')) ||
        (t === 'install' && tool[k - 1] === 'pip' && tool[k - 2] === 'uv'),
    );
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
      else if (names.length)
        plan.notes.push(`line ${ins.line}: Python packages already on this machine: ${names.join(', ')}`);
      continue;
    }
    if (/\b(curl|wget|git\s+clone|npm\s+(i|install)|cargo\s+install|go\s+install)\b/.test(command)) {
      need(ins.line, `fetches from the network (${command.slice(0, 80)})`);
      continue;
    }
    // A script from the build context that the RUN calls: its own network use counts too.
    const script = /^(?:bash|sh|python3?|\.\/)\s*(\S+\.(?:sh|py))\b/.exec(command) ?? /^\.\/(\S+)/.exec(command);
    const scriptText = script
      ? context.readContext((script[1] as string).replace(/^\.\//, '').replace(/^\/environment\//, ''))
      : null;
    if (scriptText !== null && NETWORK_USE.test(scriptText)) {
      need(ins.line, `runs ${script?.[1]}, which fetches from the network (${NETWORK_USE.exec(scriptText)?.[0]})`);
      continue;
    }
    const outside = writesOutside(command, plan.workdir);
    if (outside) {
      need(
        ins.line,
        `state outside the workspace at build time (${outside}): the sandbox's root is read-only and /root is fresh each run`,
      );
      continue;
    }
    kept.push(command);
  }
  if (kept.length) plan.setup.push(kept.join(' && '));
}
