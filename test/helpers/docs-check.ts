/**
 * Checks for the Markdown documentation: every `t1lab ...` command and `--flag` it shows must exist in the
 * CLI's `--help`, and every relative link (file and #anchor) must resolve. Pure functions over text, so the
 * docs test can also feed them known-bad snippets and watch them complain.
 */
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** A node of the CLI tree: its `--help` text and its subcommands by name. */
export interface HelpNode {
  name: string;
  help: string;
  subcommands: Map<string, HelpNode>;
}

export interface DocProblem {
  file: string;
  line: number;
  message: string;
}

interface CodeSpan {
  text: string;
  line: number;
  fenced: boolean;
}

/** Every Markdown file of the documentation: README.md and docs/**\/*.md. */
export function docFiles(root: string): string[] {
  const files = [join(root, 'README.md')];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir).sort()) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (entry.endsWith('.md')) files.push(path);
    }
  };
  if (existsSync(join(root, 'docs'))) walk(join(root, 'docs'));
  return files;
}

/** Fenced code blocks (one span per line, `\`-continued and indented `[--...]` lines joined) and inline code spans. */
export function codeSpans(markdown: string): { spans: CodeSpan[]; prose: string[] } {
  const lines = markdown.split('\n');
  const spans: CodeSpan[] = [];
  const prose: string[] = []; // the lines outside fences, code spans blanked (for links and headings)
  let fence: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const marker = /^\s*(```+|~~~+)/.exec(line);
    if (marker) {
      if (fence === null) fence = marker[1]!;
      else if (marker[1]!.startsWith(fence)) fence = null;
      prose.push('');
      continue;
    }
    if (fence !== null) {
      const previous = spans[spans.length - 1];
      const continues =
        previous?.fenced && previous.line === i && (/\\\s*$/.test(previous.text) || /^\s+(\[--|--)/.test(line));
      if (continues) {
        previous.text = previous.text.replace(/\\\s*$/, '') + ' ' + line.trim();
        previous.line = i + 1; // the next continuation joins this line
      } else spans.push({ text: line, line: i + 1, fenced: true });
      prose.push('');
      continue;
    }
    let blanked = '';
    const inline = /(`+)([\s\S]*?[^`])\1(?!`)/g;
    let last = 0;
    for (let m = inline.exec(line); m; m = inline.exec(line)) {
      spans.push({ text: m[2]!.trim(), line: i + 1, fenced: false });
      blanked += line.slice(last, m.index) + ' '.repeat(m[0].length);
      last = m.index + m[0].length;
    }
    prose.push(blanked + line.slice(last));
  }
  return { spans, prose };
}

/**
 * `t1lab` invocations inside a code span: where a command starts (the span's start, a line's start, after
 * `$ `, `npx `, `&&`, `|`, `;` or `(`), the words after `t1lab` up to a comment, pipe, `;`, `&&` or
 * redirection. Prose that merely names the command ("the t1lab command") is not an invocation.
 */
export function t1labCommands(code: string): string[][] {
  const found: string[][] = [];
  const re = /(?:^|[;&|(]\s*|\$\s+)(?:npx\s+)?t1lab(?=\s+[\w-])/gm;
  for (let m = re.exec(code); m; m = re.exec(code)) {
    const rest = code.slice(m.index + m[0].length);
    const stop = rest.search(/\s#|\s\|(?!\s*--)|;|&&|\s>\s|\)\s*$|`|\n/);
    const words = (stop >= 0 ? rest.slice(0, stop) : rest).trim().split(/\s+/).filter(Boolean);
    found.push(words);
  }
  return found;
}

const PLACEHOLDER = /^([A-Z][A-Z0-9_]*|\.\.\.|…|<.*>|\[.*)$/;

/** The commands a word list names (several for `lm|sft|ppo`), or a problem. */
function resolveCommand(root: HelpNode, words: string[]): { nodes: HelpNode[]; rest: string[] } | string {
  let nodes = [root];
  let i = 0;
  for (; i < words.length; i++) {
    const word = words[i]!;
    if (word.startsWith('-')) break;
    const withSubs = nodes.filter((n) => n.subcommands.size > 0);
    if (withSubs.length === 0) break; // an argument of a leaf command
    if (word === 'help') return { nodes: [root], rest: [] }; // `t1lab help COMMAND`
    if (PLACEHOLDER.test(word)) return { nodes: [], rest: [] }; // `t1lab COMMAND --help`: nothing to check
    const names = word.split('|');
    const next: HelpNode[] = [];
    for (const node of withSubs) {
      for (const name of names) {
        const sub = node.subcommands.get(name);
        if (!sub)
          return `unknown command: t1lab ${[...words.slice(0, i), name].join(' ')} (not in \`t1lab ${words.slice(0, i).join(' ')} --help\`)`.replace(
            't1lab  ',
            't1lab ',
          );
        next.push(sub);
      }
    }
    nodes = next;
  }
  return { nodes, rest: words.slice(i) };
}

/** The long flags of a word list, up to a bare `--` (what follows belongs to the sandboxed command). */
export function longFlags(words: string[]): string[] {
  const flags: string[] = [];
  for (const word of words) {
    if (word === '--') break;
    for (const m of word.matchAll(/(?<![\w-])--[a-z][a-z0-9-]*/g)) flags.push(m[0]);
  }
  return flags;
}

export function helpHasFlag(help: string, flag: string): boolean {
  return new RegExp(`(^|[\\s,])${flag}(?![\\w-])`, 'm').test(help);
}

/** Flags that appear alone in inline code but belong to other programs (bwrap, podman, pytest, npm bench, node). */
export const FOREIGN_FLAGS = new Set([
  '--die-with-parent',
  '--new-session',
  '--memory-swap',
  '--pids-limit',
  '--cpus',
  '--ulimit',
  '--runtime',
  '--junitxml',
  '--tb',
  '--logdir',
  '--import',
]);

/** Problems with the `t1lab` commands and flags one Markdown text shows. */
export function checkCommands(file: string, markdown: string, root: HelpNode): DocProblem[] {
  const problems: DocProblem[] = [];
  const allHelp = collectHelp(root);
  for (const span of codeSpans(markdown).spans) {
    const commands = t1labCommands(span.text);
    for (const words of commands) {
      const resolved = resolveCommand(root, words);
      if (typeof resolved === 'string') {
        problems.push({ file, line: span.line, message: `${resolved}: \`${span.text.trim()}\`` });
        continue;
      }
      for (const flag of longFlags(resolved.rest)) {
        for (const node of resolved.nodes) {
          if (!helpHasFlag(node.help, flag))
            problems.push({
              file,
              line: span.line,
              message: `\`${flag}\` is not in \`${commandPath(root, node)} --help\`: \`${span.text.trim()}\``,
            });
        }
      }
    }
    // A flag shown on its own (`--resume DIR`) must be some t1lab command's flag, unless it is another program's.
    if (!span.fenced && commands.length === 0 && /^--[a-z]/.test(span.text)) {
      const flag = longFlags([span.text.split(/[\s=]/)[0]!])[0];
      if (flag && !FOREIGN_FLAGS.has(flag) && !allHelp.some((help) => helpHasFlag(help, flag))) {
        problems.push({ file, line: span.line, message: `\`${flag}\` is not a flag of any t1lab command` });
      }
    }
  }
  return problems;
}

function collectHelp(node: HelpNode): string[] {
  return [node.help, ...[...node.subcommands.values()].flatMap(collectHelp)];
}

function commandPath(root: HelpNode, target: HelpNode, path: string[] = []): string {
  if (root === target) return [...path, root.name].join(' ');
  for (const sub of root.subcommands.values()) {
    const found = commandPath(sub, target, [...path, root.name]);
    if (found) return found;
  }
  return '';
}

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const counts = new Map<string, number>();
  const { prose } = codeSpans(markdown);
  const lines = markdown.split('\n');
  prose.forEach((blanked, i) => {
    if (!/^#{1,6}\s/.test(blanked)) return;
    const text = lines[i]!.replace(/^#{1,6}\s+/, '').replace(/\s+#+\s*$/, '');
    const base = text
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/`/g, '')
      .toLowerCase()
      .replace(/[^\p{L}\p{N}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = counts.get(base) ?? 0;
    counts.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  });
  return anchors;
}

/** Problems with the relative links (and their #anchors) of one Markdown file. */
export function checkLinks(file: string, markdown: string, repoRoot: string): DocProblem[] {
  const problems: DocProblem[] = [];
  const { prose } = codeSpans(markdown);
  prose.forEach((line, i) => {
    for (const m of line.matchAll(/!?\[(?:[^\]]|\][^(])*\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue; // http:, https:, mailto:
      const [pathPart, anchor] = target.split('#', 2) as [string, string | undefined];
      const path = pathPart === '' ? file : resolve(dirname(file), decodeURIComponent(pathPart));
      const shown = relative(repoRoot, file);
      if (pathPart === '') {
        if (anchor !== undefined && !headingAnchors(markdown).has(anchor))
          problems.push({ file: shown, line: i + 1, message: `link to a missing heading: ${target}` });
        continue;
      }
      if (!existsSync(path)) {
        problems.push({ file: shown, line: i + 1, message: `link to a missing file: ${target}` });
        continue;
      }
      if (anchor !== undefined && path.endsWith('.md')) {
        if (!headingAnchors(readFileSync(path, 'utf8')).has(anchor)) {
          problems.push({ file: shown, line: i + 1, message: `link to a missing heading: ${target}` });
        }
      }
    }
  });
  return problems;
}

export function formatProblems(problems: DocProblem[]): string {
  return problems.map((p) => `${p.file}:${p.line}: ${p.message}`).join('\n');
}
