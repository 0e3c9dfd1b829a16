// Lists the functions, arrow functions and methods longer than a limit, counted as ESLint's max-lines-per-function
// counts them with skipBlankLines and skipComments: the lines from the function's first line (a method's or an
// object property's name) to its last, less the blank lines and the lines that hold only comments. A nested
// function's lines count in the function around it too.
//
//   npx tsx build/long-functions.ts [--max 100] [--app] [paths...]
//
// Paths default to the source folders; --app leaves out tests (test/, *.test.ts). Prints the longest first.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';

/** The line count ESLint's max-lines-per-function is set to in eslint.config.mjs. */
const DEFAULT_MAX = 100;
const SOURCE_ROOTS = ['electron', 'native', 'renderer', 'tasks', 'build', 'test', 'bin'];
const SKIPPED_DIRS = new Set(['node_modules', 'dist', 'files', 'environment', 'solution', 'tests', 'fixtures']);
const SOURCE_FILE = /\.(ts|tsx|mts|js|mjs)$/;

export interface LongFunction {
  file: string;
  line: number;
  name: string;
  lines: number;
}

function sourceFiles(path: string): string[] {
  const stat = statSync(path);
  if (stat.isFile()) return SOURCE_FILE.test(path) && !path.endsWith('.d.ts') ? [path] : [];
  return readdirSync(path)
    .filter((entry) => !SKIPPED_DIRS.has(entry) && !entry.startsWith('.'))
    .flatMap((entry) => sourceFiles(join(path, entry)));
}

/** The 0-based lines on which a token (not a comment, not whitespace) starts, ends or lies. */
function codeLines(source: ts.SourceFile): Set<number> {
  const lines = new Set<number>();
  const visit = (node: ts.Node): void => {
    if (node.kind >= ts.SyntaxKind.FirstJSDocNode && node.kind <= ts.SyntaxKind.LastJSDocNode) return;
    const children = node.getChildren(source);
    if (children.length > 0 || node.kind === ts.SyntaxKind.SyntaxList) {
      children.forEach(visit);
      return;
    }
    if (node.kind === ts.SyntaxKind.EndOfFileToken) return;
    const first = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
    const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
    for (let line = first; line <= last; line++) lines.add(line);
  };
  visit(source);
  return lines;
}

function functionName(node: ts.FunctionLikeDeclaration): string {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) {
    return parent.name.getText();
  }
  if (ts.isCallExpression(parent)) return `(argument of ${parent.expression.getText().slice(0, 40)})`;
  return '(anonymous)';
}

/** ESLint measures a method or an object property from its name: the node whose lines are counted. */
function measuredNode(node: ts.FunctionLikeDeclaration): ts.Node {
  return ts.isPropertyAssignment(node.parent) ? node.parent : node;
}

function isFunction(node: ts.Node): node is ts.FunctionLikeDeclaration {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

export function longFunctions(file: string, text: string, max: number): LongFunction[] {
  const kind = file.endsWith('x') ? ts.ScriptKind.TSX : file.endsWith('.ts') ? ts.ScriptKind.TS : ts.ScriptKind.JS;
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, kind);
  const code = codeLines(source);
  const textLines = text.split('\n');
  const found: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (isFunction(node) && node.body) {
      const measured = measuredNode(node);
      const first = source.getLineAndCharacterOfPosition(measured.getStart(source)).line;
      const last = source.getLineAndCharacterOfPosition(measured.getEnd()).line;
      let lines = 0;
      for (let line = first; line <= last; line++) {
        if (code.has(line) && (textLines[line] ?? '').trim() !== '') lines++;
      }
      if (lines > max) found.push({ file, line: first + 1, name: functionName(node), lines });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function main(argv: string[]): void {
  let max = DEFAULT_MAX;
  let appOnly = false;
  const paths: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] ?? '';
    if (arg === '--max') max = Number(argv[++i]);
    else if (arg === '--app') appOnly = true;
    else paths.push(arg);
  }
  const roots = paths.length > 0 ? paths : SOURCE_ROOTS;
  const files = roots
    .flatMap((root) => sourceFiles(root))
    .filter((file) => !appOnly || !(/(^|\/)test\//.test(file) || /\.test\.tsx?$/.test(file)));
  const found = files
    .flatMap((file) => longFunctions(relative('.', file), readFileSync(file, 'utf8'), max))
    .sort((a, b) => b.lines - a.lines);
  for (const f of found) console.log(`${String(f.lines).padStart(4)}  ${f.file}:${f.line}  ${f.name}`);
  console.log(`${found.length} function(s) over ${max} lines`);
}

main(process.argv.slice(2));
