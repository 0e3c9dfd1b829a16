/**
 * The corpus `model init` trains a fresh checkpoint's tokenizer on when no `--corpus` is given: synthetic
 * agent-terminal transcripts in ChatML (shell commands, tool calls, typical outputs), deterministic so the
 * same seed gives the same tokenizer. Real corpora (task instructions, oracle trajectories) do better.
 */
import { seededUniform } from '../../../native/util/random';

const COMMANDS = [
  'ls -la',
  'cat README.md',
  'grep -rn "TODO" src/',
  'python3 -m pytest -q',
  'make -j4',
  'git status',
  'git diff --stat',
  'git log --oneline | head',
  'cd /app && ./configure',
  'pip install -r requirements.txt',
  'find . -name "*.py" | head',
  'echo $PATH',
  'wc -l data.csv',
  'sed -n 1,20p main.c',
  'gcc -O2 -o main main.c',
  './main --input data.csv',
  'cargo build --release',
  'npm test',
  'tail -n 50 /var/log/app.log',
  'chmod +x run.sh',
  'curl -s http://localhost:8080/health',
  'docker ps',
  'ps aux | grep python',
  'head -c 200 /dev/urandom | base64',
  'sqlite3 app.db ".tables"',
  "awk -F, '{print $2}' data.csv | sort | uniq -c",
  'mkdir -p build && cd build',
  'cmake .. && make',
  'tar -xzf archive.tar.gz',
  'jq .version package.json',
];
/** Words of code and test output: identifiers, results, keywords. */
export const CODE_WORDS = [
  'file',
  'error',
  'warning',
  'test',
  'passed',
  'failed',
  'data',
  'config',
  'server',
  'request',
  'value',
  'index',
  'result',
  'output',
  'module',
  'function',
  'return',
  'import',
  'class',
];
const WORDS = [
  ...CODE_WORDS,
  // Words of prose and error messages.
  'the',
  'a',
  'to',
  'of',
  'and',
  'is',
  'in',
  'not',
  'found',
  'permission',
  'denied',
  'line',
  'expected',
  'got',
  'missing',
  'directory',
  'task',
  'check',
  'fix',
  'run',
  'build',
];
/** File names a project's sources, data and logs go by. */
export const PROJECT_FILES = [
  'main.c',
  'utils.py',
  'README.md',
  'data.csv',
  'Makefile',
  'app.log',
  'config.toml',
  'index.ts',
  'test_app.py',
  'server.rs',
];
const FILES = [...PROJECT_FILES, 'run.sh', 'package.json', 'setup.cfg', 'Dockerfile'];

const ONSETS = [
  '',
  'b',
  'c',
  'd',
  'f',
  'g',
  'h',
  'l',
  'm',
  'n',
  'p',
  'r',
  's',
  't',
  'v',
  'w',
  'st',
  'tr',
  'pr',
  'ch',
  'sh',
  'th',
];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ea', 'ou', 'io'];
const CODAS = ['', '', 'n', 'r', 's', 't', 'l', 'nd', 'st', 'ng', 'ck', 'x'];

export function defaultCorpus(documents = 6000, seed = 1): string[] {
  const u = seededUniform(seed);
  const pick = <T>(list: readonly T[]): T => list[Math.floor(u() * list.length)]!;
  // Made-up words from common syllables: many distinct words whose pieces recur, so BPE keeps merging.
  const word = () =>
    u() < 0.5
      ? pick(WORDS)
      : Array.from({ length: 1 + Math.floor(u() * 3) }, () => pick(ONSETS) + pick(VOWELS) + pick(CODAS)).join('');
  const sentence = (n: number) => Array.from({ length: n }, word).join(' ');
  const out: string[] = [];
  for (let d = 0; d < documents; d++) {
    const cmd = pick(COMMANDS);
    const lines: string[] = [];
    const kind = Math.floor(u() * 4);
    for (let i = 0; i < 2 + Math.floor(u() * 6); i++) {
      if (kind === 0)
        lines.push(
          `-rw-r--r-- 1 root root ${Math.floor(u() * 90000)} Nov ${1 + Math.floor(u() * 28)} 12:${String(Math.floor(u() * 60)).padStart(2, '0')} ${pick(FILES)}`,
        );
      else if (kind === 1)
        lines.push(
          `${pick(FILES)}:${1 + Math.floor(u() * 400)}: ${pick(['error', 'warning', 'note'])}: ${sentence(4)}`,
        );
      else if (kind === 2)
        lines.push(
          `{"${word()}": ${Math.floor(u() * 1000)}, "${word()}_${word()}": "/${word()}/${word()}/${pick(FILES)}"}`,
        );
      else lines.push(`${pick(['PASSED', 'FAILED', 'ok', 'FAIL'])} ${pick(FILES)}::test_${pick(WORDS)}_${pick(WORDS)}`);
    }
    out.push(
      `<|im_start|>user\nThe task: ${sentence(8)} in ${pick(FILES)}.<|im_end|>\n` +
        `<|im_start|>assistant\nI will ${sentence(5)}.\n<tool_call>\n{"name": "shell", "arguments": {"command": ${JSON.stringify(cmd)}}}\n</tool_call><|im_end|>\n` +
        `<|im_start|>user\n<tool_response>\n$ ${cmd}\n${lines.join('\n')}\n</tool_response><|im_end|>\n`,
    );
  }
  return out;
}
