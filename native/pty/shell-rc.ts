/**
 * The rc file of a session's bash: the marker protocol (markers.ts) and a plain prompt, nothing more.
 * The nonce arrives in T1LAB_MARK and is unset at once, so child processes do not inherit it.
 * PROMPT_COMMAND and PS0 are read-only (a task's script cannot switch the protocol off by accident), and a
 * PS1 replaced by e.g. a virtualenv gets its prompt-end marker back before each prompt.
 */
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { MARKER_OSC } from './markers';
import { makeOwnedTempDirSync } from '../util/temp-dirs';

/** Under /run (a tmpfs of the sandbox) because the sandbox's /etc is a read-only bind. */
export const SANDBOX_RC_PATH = '/run/t1lab/bashrc';
export const NONCE_ENV = 'T1LAB_MARK';

export const BASH_RC = `# T1 Lab shell integration: invisible markers tell the lab where each command starts and ends.
__t1n=$${NONCE_ENV}; unset ${NONCE_ENV}
__t1b=$'\\e]${MARKER_OSC};'"$__t1n"$';B\\a'
__t1_prompt() { local s=$?; printf '\\033]${MARKER_OSC};%s;D;%s\\007' "$__t1n" "$s"; case $PS1 in *"$__t1b"*) ;; *) PS1="$PS1\\[$__t1b\\]" ;; esac; return $s; }
PROMPT_COMMAND=__t1_prompt
PS0=$'\\e]${MARKER_OSC};'"$__t1n"$';C\\a'
PS1='\\u@\\h:\\w\\$ '"\\[$__t1b\\]"
PS2='> '$'\\[\\e]${MARKER_OSC};'"$__t1n"$';P\\a\\]'
readonly PROMPT_COMMAND PS0 PS2 __t1n __t1b
readonly -f __t1_prompt
HISTFILE=/root/.bash_history
HISTCONTROL=ignoreboth
shopt -s checkwinsize
bind 'set enable-bracketed-paste on' 2>/dev/null
bind 'set enable-active-region off' 2>/dev/null
`;

let rcHostPath: string | null = null;

/** The rc file on the host (written once per process), to be mounted read-only at SANDBOX_RC_PATH. */
export function hostRcFile(): string {
  if (rcHostPath) return rcHostPath;
  const dir = makeOwnedTempDirSync('pty');
  process.once('exit', () => rmSync(dir, { recursive: true, force: true }));
  rcHostPath = join(dir, 'bashrc');
  writeFileSync(rcHostPath, BASH_RC, { mode: 0o644 });
  return rcHostPath;
}
