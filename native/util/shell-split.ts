/**
 * Splits a bash script into its top-level commands, so the oracle policy can type a solution one command
 * per turn. A command ends at a newline once every quote, heredoc, bracket and compound command
 * (if/fi, case/esac, loops, functions, groups, subshells) is closed and the line does not end in an
 * operator (`|`, `&&`, `||`) or a backslash. Written by hand because no maintained npm package parses
 * bash compound commands; tests check every piece against `bash -n`.
 */

type Frame =
  /** closes on the word `fi`, `esac`, `done` at command position */
  | { kind: 'word'; close: 'fi' | 'esac' | 'done' }
  /** `{ ...; }`: closes on `}` at command position */
  | { kind: 'group' }
  /** `( ... )` (subshell, function parens): closes on `)` */
  | { kind: 'paren' }
  /** `$( ... )`: closes on `)` */
  | { kind: 'subst' }
  /** `(( ... ))`, `$(( ... ))`: closes on `))` at depth 0; `<<` inside is a shift, not a heredoc */
  | { kind: 'arith'; depth: number }
  /** `${ ... }`: closes on any `}` */
  | { kind: 'param' };

const OPENERS: Record<string, 'fi' | 'esac' | 'done'> = { if: 'fi', case: 'esac', for: 'done', while: 'done', until: 'done', select: 'done' };
/** Reserved words after which the next word is again in command position. */
const LEADING = new Set(['then', 'do', 'else', 'elif', 'if', 'while', 'until', '!', 'time']);

export function splitShellCommands(script: string): string[] {
  const commands: string[] = [];
  const stack: Frame[] = [];
  const heredocs: { word: string; strip: boolean }[] = [];
  let quote: '' | "'" | '"' | '`' | "$'" = '';
  let current = '';
  let i = 0;
  let commandPosition = true;
  let continued = false;

  const flush = () => {
    const text = current.replace(/\s+$/, '');
    if (text.trim() !== '') commands.push(text);
    current = '';
  };

  while (i < script.length) {
    const c = script[i] as string;

    if (quote) {
      current += c;
      if (c === '\\' && quote !== "'") {
        current += script[i + 1] ?? '';
        i += 2;
        continue;
      }
      if ((quote === "$'" && c === "'") || c === quote) quote = '';
      i++;
      continue;
    }

    if (c === '\\') {
      current += c + (script[i + 1] ?? '');
      i += 2;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') {
      quote = c;
      current += c;
      commandPosition = false;
      continued = false;
      i++;
      continue;
    }
    if (c === '$' && script[i + 1] === "'") {
      quote = "$'";
      current += "$'";
      i += 2;
      continue;
    }
    if (c === '#' && (current === '' || /[\s;&|()]$/.test(current))) {
      const end = script.indexOf('\n', i);
      const stop = end === -1 ? script.length : end;
      current += script.slice(i, stop);
      i = stop;
      continue;
    }
    if (c === '\n') {
      current += c;
      i++;
      // Heredoc bodies start on the line after their operator.
      while (heredocs.length) {
        const doc = heredocs.shift() as { word: string; strip: boolean };
        for (;;) {
          if (i >= script.length) break;
          const end = script.indexOf('\n', i);
          const line = script.slice(i, end === -1 ? script.length : end);
          current += line + (end === -1 ? '' : '\n');
          i = end === -1 ? script.length : end + 1;
          if ((doc.strip ? line.replace(/^\t+/, '') : line) === doc.word) break;
        }
      }
      if (stack.length === 0 && !continued) flush();
      commandPosition = true;
      continue;
    }
    const top = stack[stack.length - 1];
    if (top?.kind === 'arith') {
      if (c === '(') top.depth++;
      else if (c === ')' && top.depth > 0) top.depth--;
      else if (c === ')' && script[i + 1] === ')') {
        stack.pop();
        current += '))';
        i += 2;
        commandPosition = false;
        continue;
      }
      current += c;
      i++;
      continue;
    }
    if (script.startsWith('$((', i) || (commandPosition && script.startsWith('((', i))) {
      const open = c === '$' ? '$((' : '((';
      stack.push({ kind: 'arith', depth: 0 });
      current += open;
      i += open.length;
      continued = false;
      continue;
    }
    if (c === '$' && script[i + 1] === '(') {
      stack.push({ kind: 'subst' });
      current += '$(';
      i += 2;
      commandPosition = true;
      continue;
    }
    if (c === '$' && script[i + 1] === '{') {
      stack.push({ kind: 'param' });
      current += '${';
      i += 2;
      continue;
    }
    if (c === '(') {
      stack.push({ kind: 'paren' });
      current += c;
      i++;
      commandPosition = true;
      continued = false;
      continue;
    }
    if (c === ')') {
      current += c;
      i++;
      continued = false;
      if (top?.kind === 'paren' || top?.kind === 'subst') {
        stack.pop();
        // After a subshell or `name()` a command word may follow (`name() {`); after `$(...)` an argument does.
        commandPosition = top.kind === 'paren';
      } else {
        // A case pattern's `)`: the pattern's commands follow.
        commandPosition = true;
      }
      continue;
    }
    if (c === '}') {
      if (top?.kind === 'param' || (top?.kind === 'group' && commandPosition)) stack.pop();
      current += c;
      i++;
      commandPosition = false;
      continued = false;
      continue;
    }
    if (c === '<' && script[i + 1] === '<' && script[i + 2] !== '<') {
      const m = /^<<(-?)[ \t]*(?:'([^']*)'|"([^"]*)"|\\?([^\s;&|<>()]+))/.exec(script.slice(i));
      if (m) {
        heredocs.push({ word: m[2] ?? m[3] ?? m[4] ?? '', strip: m[1] === '-' });
        current += m[0];
        i += m[0].length;
        continue;
      }
    }
    if (c === ';' || c === '&' || c === '|') {
      const two = script.slice(i, i + 2);
      const op = two === '&&' || two === '||' || two === ';;' || two === ';&' || two === '|&' ? two : c;
      current += op;
      i += op.length;
      commandPosition = true;
      // A line ending in a pipe or a list operator continues on the next line.
      continued = op === '|' || op === '&&' || op === '||' || op === '|&';
      continue;
    }
    if (c === ' ' || c === '\t') {
      current += c;
      i++;
      continue;
    }

    // A word.
    const m = /^[^\s;&|()<>'"`\\$#{}]+/.exec(script.slice(i));
    if (!m) {
      // `{`, `<`, `>`, a lone `$`, or a `#` inside a word.
      if (c === '{' && commandPosition && /^\{\s/.test(script.slice(i))) {
        stack.push({ kind: 'group' });
        commandPosition = true;
      } else commandPosition = false;
      current += c;
      i++;
      continued = false;
      continue;
    }
    const word = m[0];
    current += word;
    i += word.length;
    continued = false;
    if (commandPosition) {
      if (word in OPENERS) stack.push({ kind: 'word', close: OPENERS[word] as 'fi' | 'esac' | 'done' });
      else if (top?.kind === 'word' && top.close === word) stack.pop();
      commandPosition = LEADING.has(word);
      // `case WORD in`: patterns follow; `for x in ...`: words follow.
    } else if (word === 'in' && stack[stack.length - 1]?.kind === 'word' && (stack[stack.length - 1] as { close: string }).close === 'esac') {
      commandPosition = true;
    }
  }
  flush();
  return commands;
}

/**
 * The commands an agent would type for a solution script: the shebang, comment-only lines and a final
 * `exit` are dropped, and `set -e` loses its `e` (in an interactive shell it would close the session at
 * the first failing command).
 */
export function typedCommands(script: string): string[] {
  return splitShellCommands(script)
    .map((command) => stripLeadingComments(command))
    .filter((command) => command !== '')
    .map((command) => withoutErrexit(command))
    .filter((command): command is string => command !== null && !/^exit(\s+\d+)?\s*;?$/.test(command));
}

function stripLeadingComments(command: string): string {
  const lines = command.split('\n');
  while (lines.length && /^\s*(#.*)?$/.test(lines[0] as string)) lines.shift();
  return lines.join('\n').trim() === '' ? '' : lines.join('\n');
}

/** `set -euo pipefail` -> `set -uo pipefail`; `set -e` -> dropped; other commands unchanged. */
function withoutErrexit(command: string): string | null {
  const m = /^set\s+(.*)$/.exec(command.trim());
  if (!m || command.includes('\n')) return command;
  const args = (m[1] as string).split(/\s+/).filter(Boolean);
  const kept: string[] = [];
  for (let k = 0; k < args.length; k++) {
    const arg = args[k] as string;
    if (arg === '-o' && args[k + 1] === 'errexit') {
      k++;
      continue;
    }
    if (/^-[a-zA-Z]+$/.test(arg)) {
      const flags = arg.slice(1).replace(/e/g, '');
      if (flags) kept.push(`-${flags}`);
      continue;
    }
    kept.push(arg);
  }
  if (kept.length === 0) return null;
  // `set -o` with nothing after it would print options; keep only meaningful remainders.
  if (kept.length === 1 && kept[0] === '-o') return null;
  return `set ${kept.join(' ')}`;
}
