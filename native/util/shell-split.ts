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

const OPENERS: Record<string, 'fi' | 'esac' | 'done'> = {
  if: 'fi',
  case: 'esac',
  for: 'done',
  while: 'done',
  until: 'done',
  select: 'done',
};
/** Reserved words after which the next word is again in command position. */
const LEADING = new Set(['then', 'do', 'else', 'elif', 'if', 'while', 'until', '!', 'time']);

export function splitShellCommands(script: string): string[] {
  const splitter = new CommandSplitter(script);
  while (!splitter.done) splitter.step();
  return splitter.finish();
}

type Quote = '' | "'" | '"' | '`' | "$'";

/** A scan of the script, a token per step, into the text of the command being read and the commands read. */
class CommandSplitter {
  private readonly commands: string[] = [];
  private readonly stack: Frame[] = [];
  private readonly heredocs: { word: string; strip: boolean }[] = [];
  private quote: Quote = '';
  private current = '';
  private i = 0;
  private commandPosition = true;
  private continued = false;

  constructor(private readonly script: string) {}

  get done(): boolean {
    return this.i >= this.script.length;
  }

  /** The commands, the last one included. */
  finish(): string[] {
    this.flush();
    return this.commands;
  }

  /** Reads the next token: quoted text, an escape, a comment, a newline, an opener or closer, an operator, a blank or a word. */
  step(): void {
    const { script, i } = this;
    const c = script[i] as string;
    if (this.quote) return this.quoted(c);
    if (c === '\\') return this.take(c + (script[i + 1] ?? ''));
    if (c === "'" || c === '"' || c === '`') return this.openQuote(c);
    if (c === '$' && script[i + 1] === "'") {
      this.quote = "$'";
      return this.take("$'");
    }
    if (c === '#' && (this.current === '' || /[\s;&|()]$/.test(this.current))) return this.comment();
    if (c === '\n') return this.newline();
    const top = this.stack[this.stack.length - 1];
    if (top?.kind === 'arith') return this.inArithmetic(c, top);
    if (script.startsWith('$((', i) || (this.commandPosition && script.startsWith('((', i)))
      return this.openArithmetic(c === '$' ? '$((' : '((');
    if (c === '$' && script[i + 1] === '(') {
      this.stack.push({ kind: 'subst' });
      this.commandPosition = true;
      return this.take('$(');
    }
    if (c === '$' && script[i + 1] === '{') {
      this.stack.push({ kind: 'param' });
      return this.take('${');
    }
    if (c === '(') {
      this.stack.push({ kind: 'paren' });
      this.commandPosition = true;
      this.continued = false;
      return this.take(c);
    }
    if (c === ')') return this.closeParen(top);
    if (c === '}') return this.closeBrace(top);
    if (c === '<' && script[i + 1] === '<' && script[i + 2] !== '<' && this.heredocOperator()) return;
    if (c === ';' || c === '&' || c === '|') return this.operator(c);
    if (c === ' ' || c === '\t') return this.take(c);
    this.word(c, top);
  }

  /** Appends `text` (the script's next characters) to the current command. */
  private take(text: string): void {
    this.current += text;
    this.i += text.length;
  }

  private flush(): void {
    const text = this.current.replace(/\s+$/, '');
    if (text.trim() !== '') this.commands.push(text);
    this.current = '';
  }

  /** Inside quotes: a backslash escapes the next character (not in single quotes); the matching quote closes. */
  private quoted(c: string): void {
    if (c === '\\' && this.quote !== "'") return this.take(c + (this.script[this.i + 1] ?? ''));
    if ((this.quote === "$'" && c === "'") || c === this.quote) this.quote = '';
    this.take(c);
  }

  private openQuote(c: "'" | '"' | '`'): void {
    this.quote = c;
    this.commandPosition = false;
    this.continued = false;
    this.take(c);
  }

  /** A comment runs to the end of its line. */
  private comment(): void {
    const end = this.script.indexOf('\n', this.i);
    this.take(this.script.slice(this.i, end === -1 ? this.script.length : end));
  }

  /** A newline reads the heredoc bodies it starts, and ends the command when nothing is open or continued. */
  private newline(): void {
    this.take('\n');
    while (this.heredocs.length) this.heredocBody(this.heredocs.shift() as { word: string; strip: boolean });
    if (this.stack.length === 0 && !this.continued) this.flush();
    this.commandPosition = true;
  }

  /** A heredoc's lines up to and with its word (tabs stripped first for `<<-`). */
  private heredocBody(doc: { word: string; strip: boolean }): void {
    const { script } = this;
    while (this.i < script.length) {
      const end = script.indexOf('\n', this.i);
      const line = script.slice(this.i, end === -1 ? script.length : end);
      this.take(line + (end === -1 ? '' : '\n'));
      if ((doc.strip ? line.replace(/^\t+/, '') : line) === doc.word) break;
    }
  }

  /** Inside `((...))`: parentheses nest, `))` at depth 0 closes, nothing else means anything. */
  private inArithmetic(c: string, top: { kind: 'arith'; depth: number }): void {
    if (c === '(') top.depth++;
    else if (c === ')' && top.depth > 0) top.depth--;
    else if (c === ')' && this.script[this.i + 1] === ')') {
      this.stack.pop();
      this.commandPosition = false;
      return this.take('))');
    }
    this.take(c);
  }

  private openArithmetic(open: '$((' | '(('): void {
    this.stack.push({ kind: 'arith', depth: 0 });
    this.continued = false;
    this.take(open);
  }

  private closeParen(top: Frame | undefined): void {
    this.take(')');
    this.continued = false;
    if (top?.kind === 'paren' || top?.kind === 'subst') {
      this.stack.pop();
      // After a subshell or `name()` a command word may follow (`name() {`); after `$(...)` an argument does.
      this.commandPosition = top.kind === 'paren';
    } else {
      // A case pattern's `)`: the pattern's commands follow.
      this.commandPosition = true;
    }
  }

  private closeBrace(top: Frame | undefined): void {
    if (top?.kind === 'param' || (top?.kind === 'group' && this.commandPosition)) this.stack.pop();
    this.commandPosition = false;
    this.continued = false;
    this.take('}');
  }

  /** `<<WORD`, `<<-WORD`, `<<'WORD'`: its body follows the next newline. False when no word follows. */
  private heredocOperator(): boolean {
    const m = /^<<(-?)[ \t]*(?:'([^']*)'|"([^"]*)"|\\?([^\s;&|<>()]+))/.exec(this.script.slice(this.i));
    if (!m) return false;
    this.heredocs.push({ word: m[2] ?? m[3] ?? m[4] ?? '', strip: m[1] === '-' });
    this.take(m[0]);
    return true;
  }

  private operator(c: string): void {
    const two = this.script.slice(this.i, this.i + 2);
    const op = two === '&&' || two === '||' || two === ';;' || two === ';&' || two === '|&' ? two : c;
    this.take(op);
    this.commandPosition = true;
    // A line ending in a pipe or a list operator continues on the next line.
    this.continued = op === '|' || op === '&&' || op === '||' || op === '|&';
  }

  /** A word, or a lone `{`, `<`, `>`, `$` or `#`; in command position a reserved word opens or closes a compound command. */
  private word(c: string, top: Frame | undefined): void {
    const m = /^[^\s;&|()<>'"`\\$#{}]+/.exec(this.script.slice(this.i));
    this.continued = false;
    if (!m) {
      // `{`, `<`, `>`, a lone `$`, or a `#` inside a word.
      if (c === '{' && this.commandPosition && /^\{\s/.test(this.script.slice(this.i))) {
        this.stack.push({ kind: 'group' });
        this.commandPosition = true;
      } else this.commandPosition = false;
      return this.take(c);
    }
    const word = m[0];
    this.take(word);
    if (this.commandPosition) {
      if (word in OPENERS) this.stack.push({ kind: 'word', close: OPENERS[word] as 'fi' | 'esac' | 'done' });
      else if (top?.kind === 'word' && top.close === word) this.stack.pop();
      this.commandPosition = LEADING.has(word);
      // `case WORD in`: patterns follow; `for x in ...`: words follow.
    } else if (
      word === 'in' &&
      this.stack[this.stack.length - 1]?.kind === 'word' &&
      (this.stack[this.stack.length - 1] as { close: string }).close === 'esac'
    ) {
      this.commandPosition = true;
    }
  }
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
