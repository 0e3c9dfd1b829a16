/**
 * A task's test script made to run without the network, keeping every step that is not an install, in
 * order: package installs (apt, pip, uv, the uv installer piped into sh, sourcing its env file) are
 * dropped, and the command that runs pytest through uv/uvx (or pytest itself) is replaced by the lab's own
 * pytest run with the same test paths and options (minus the CTRF plugin's, which is not installed; the
 * lab writes JUnit XML instead). Everything else — `cp /tests/x /app/`, `cd /tests`, `export PYTHONPATH`,
 * regenerating inputs, writing reward.txt from pytest's status — stays where it was. A script that fetches
 * anything else from the network cannot be converted, and the reason says which command.
 */
import { splitShellCommands } from '../../../../native/util/shell-split';

export type OfflineScript =
  { ok: true; script: string; dropped: string[]; pytestRuns: number } | { ok: false; reason: string };

/** Shell function defined at the top of a converted script; `$@` are pytest's arguments. */
export const LAB_PYTEST_FUNCTION = 't1lab_pytest';

const INSTALL_PATTERNS: RegExp[] = [
  /^(sudo\s+)?(DEBIAN_FRONTEND=\S+\s+)?apt(-get)?\s+(update|install|upgrade|-y|-qq|clean)\b/,
  /^(sudo\s+)?(DEBIAN_FRONTEND=\S+\s+)?apt(-get)?\s+.*\binstall\b/,
  /^(python3?\s+-m\s+)?pip3?\s+install\b/,
  /^uv\s+(venv|init|add|sync|pip\s+install|tool\s+install)\b/,
  /^(curl|wget)\b[^|]*\|\s*(ba)?sh\b/,
  /^(source|\.)\s+("?\$HOME"?|~)\/\.(local\/bin|cargo)\/env"?\s*$/,
  /^(export\s+)?PATH=("?\$HOME|~)\/\.local\/bin/,
  /^rm\s+-rf\s+\/var\/lib\/apt\/lists/,
  // Terminal-Bench 1's helper that installs uv and pytest.
  /^(source|\.|bash|sh)\s+\S*setup-uv-pytest\.sh\b/,
];
/** Terminal-Bench 1's helper that runs `uv run pytest $TEST_DIR/test_outputs.py -rA`. */
const TB1_RUN_PYTEST = /^(bash|sh|source|\.)\s+\S*run-uv-pytest\.sh\b/;
const NETWORK =
  /\b(curl|wget|git\s+clone|pip3?\s+download|npm\s+(i|install)|cargo\s+install|go\s+(get|install)|opam\s+install)\b/;
const PYTEST_RUN = /(^|\s)(uvx|uv\s+run|python3?\s+-m\s+pytest|pytest)\b/;

function isInstall(command: string): boolean {
  const c = command.trim().replace(/\s*;$/, '');
  return INSTALL_PATTERNS.some((p) => p.test(c));
}

/** pytest's own arguments from an `uvx ... pytest ARGS`, `uv run pytest ARGS`, `python -m pytest ARGS` or `pytest ARGS` command. */
export function pytestArgs(command: string): string[] | null {
  const words = command.replace(/\\\n/g, ' ').trim().split(/\s+/);
  let at = -1;
  for (let i = 0; i < words.length; i++) {
    const w = words[i] as string;
    if (w === 'pytest' || w.endsWith('/pytest')) {
      // `-w pytest==8.4.1` style pins are not the command; the bare word `pytest` after options is.
      if (words[i - 1] === '-w' || words[i - 1] === '--with') continue;
      at = i;
      break;
    }
  }
  if (at < 0) return null;
  const args: string[] = [];
  const rest = words.slice(at + 1);
  for (let i = 0; i < rest.length; i++) {
    const w = rest[i] as string;
    if (w === '--ctrf' || w === '--json-report-file') {
      i++;
      continue;
    }
    if (/^--(ctrf|json-report)/.test(w) || /^--junitxml/.test(w)) continue;
    args.push(w);
  }
  return args;
}

export function offlineTestScript(script: string): OfflineScript {
  const commands = splitShellCommands(script);
  const out: string[] = [];
  const dropped: string[] = [];
  let pytestRuns = 0;
  for (const command of commands) {
    const trimmed = command.trim();
    if (trimmed.startsWith('#')) {
      out.push(command);
      continue;
    }
    if (isInstall(trimmed)) {
      dropped.push(trimmed.split('\n')[0] as string);
      continue;
    }
    if (TB1_RUN_PYTEST.test(trimmed)) {
      out.push(`${LAB_PYTEST_FUNCTION} "$TEST_DIR/test_outputs.py" -rA`);
      pytestRuns++;
      continue;
    }
    if (PYTEST_RUN.test(trimmed) && !/^(if|for|while|case|until|\{|\()\b/.test(trimmed)) {
      const args = pytestArgs(trimmed);
      if (!args) return { ok: false, reason: `cannot tell pytest's arguments in: ${trimmed.slice(0, 120)}` };
      out.push(`${LAB_PYTEST_FUNCTION} ${args.join(' ')}`);
      pytestRuns++;
      continue;
    }
    const lines = trimmed.split('\n').map((l) => l.trim());
    if (lines.some((l) => isInstall(l))) {
      // A compound command around installs (if ! command -v uv; then curl ... | sh; fi): droppable only if it does nothing else.
      const other = lines.filter(
        (l) => !isInstall(l) && !/^(if|then|else|elif|fi|do|done|\{|\}|;;)\b/.test(l) && !/^(if|elif)\s/.test(l),
      );
      if (other.length === 0) {
        dropped.push(lines[0] as string);
        continue;
      }
      return {
        ok: false,
        reason: `installs inside a compound command that also does other work: ${lines[0]?.slice(0, 120)}`,
      };
    }
    if (PYTEST_RUN.test(trimmed))
      return { ok: false, reason: `runs pytest inside a compound command: ${trimmed.split('\n')[0]?.slice(0, 120)}` };
    if (NETWORK.test(trimmed))
      return { ok: false, reason: `fetches from the network: ${trimmed.split('\n')[0]?.slice(0, 120)}` };
    out.push(command);
  }
  if (pytestRuns === 0) return { ok: false, reason: 'no pytest run found in the script' };
  return { ok: true, script: out.join('\n'), dropped, pytestRuns };
}

/** The converted script with the lab's pytest function defined first (`python` = the interpreter line to use). */
export function withPytestFunction(body: string, pythons: string[], junitPath: string): string {
  const fn = [
    `${LAB_PYTEST_FUNCTION}() {`,
    `  for py in ${pythons.join(' ')}; do`,
    `    if command -v "$py" >/dev/null 2>&1 && "$py" -c 'import pytest' >/dev/null 2>&1; then`,
    `      "$py" -m pytest -p no:cacheprovider --junitxml=${junitPath} -rA --color=no "$@"; return $?`,
    '    fi',
    '  done',
    `  echo 't1lab: no python with pytest found (${pythons.join(', ')})' >&2; return 127`,
    '}',
  ].join('\n');
  const lines = body.split('\n');
  const shebang = lines[0]?.startsWith('#!') ? `${lines.shift()}\n` : '#!/bin/bash\n';
  return `${shebang}# Converted by T1 Lab to run without the network: install steps dropped, pytest run by the lab.\n${fn}\n${lines.join('\n')}\n`;
}
