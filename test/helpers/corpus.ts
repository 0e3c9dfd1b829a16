/**
 * A deterministic synthetic corpus of agent-terminal transcripts in ChatML (commands, tool calls, outputs
 * with file listings, compiler errors, JSON, blank lines), for tokenizer tests and the BPE benchmark. Its words
 * and file names are the app's default corpus's (electron/lab/models/default-corpus.ts); its outputs are its own.
 */

import { seededUniform } from '../../native/util/random';
import { CODE_WORDS, PROJECT_FILES } from '../../electron/lab/models/default-corpus';

/** The project's seeded generator, under the name these tests use. */
export const seededRandom = seededUniform;

const COMMANDS = [
  'ls -la',
  'cat README.md',
  'grep -rn "TODO" src/',
  'python3 -m pytest -q',
  'make -j2',
  'git status',
  'git diff --stat',
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
];
const WORDS = [...CODE_WORDS, 'self'];
const NAMES = PROJECT_FILES;

function pick<T>(rand: () => number, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)] as T;
}

function output(rand: () => number): string {
  switch (Math.floor(rand() * 5)) {
    case 0: {
      let s = `total ${Math.floor(rand() * 200)}\n`;
      for (let i = 0; i < 3 + rand() * 6; i++)
        s += `-rw-r--r-- 1 root root ${Math.floor(rand() * 99999)} Jan ${1 + Math.floor(rand() * 28)} 12:${10 + Math.floor(rand() * 49)} ${pick(rand, NAMES)}\n`;
      return s;
    }
    case 1:
      return `${pick(rand, NAMES)}:${Math.floor(rand() * 300)}:${Math.floor(rand() * 80)}: error: expected ';' before '}' token\n    ${pick(rand, WORDS)}(${pick(rand, WORDS)});\n    ^\n`;
    case 2: {
      const n = Math.floor(rand() * 40);
      return `${'.'.repeat(n)}F${'.'.repeat(Math.floor(rand() * 10))}\n\n=== ${n} passed, 1 failed in ${(rand() * 9).toFixed(2)}s ===\n`;
    }
    case 3:
      return (
        JSON.stringify(
          {
            status: pick(rand, ['ok', 'error']),
            [pick(rand, WORDS)]: Math.floor(rand() * 1000),
            items: [pick(rand, WORDS), pick(rand, WORDS)],
          },
          null,
          2,
        ) + '\n'
      );
    default: {
      let s = '';
      for (let i = 0; i < 2 + rand() * 5; i++)
        s += `${pick(rand, WORDS)} ${pick(rand, WORDS)} = ${Math.floor(rand() * 1e6)}\n`;
      return s + '\n';
    }
  }
}

/** One ChatML episode: system, user task, then assistant tool calls and tool responses. */
export function transcript(rand: () => number): string {
  let s = `<|im_start|>system\nYou are an agent in a Linux terminal. Use the shell tool.<|im_end|>\n<|im_start|>user\nFix the failing ${pick(rand, WORDS)} in ${pick(rand, NAMES)}.<|im_end|>\n`;
  const turns = 1 + Math.floor(rand() * 4);
  for (let t = 0; t < turns; t++) {
    const cmd = pick(rand, COMMANDS);
    s += `<|im_start|>assistant\nLet me check the ${pick(rand, WORDS)}.\n<tool_call>\n{"name": "shell", "arguments": {"command": ${JSON.stringify(cmd)}}}\n</tool_call><|im_end|>\n`;
    s += `<|im_start|>user\n<tool_response>\n$ ${cmd}\n${output(rand)}</tool_response><|im_end|>\n`;
  }
  return s;
}

/** About `bytes` bytes of transcripts, as one string per episode. */
export function terminalCorpus(bytes: number, seed = 1): string[] {
  const rand = seededRandom(seed);
  const docs: string[] = [];
  let total = 0;
  while (total < bytes) {
    const t = transcript(rand);
    docs.push(t);
    total += t.length;
  }
  return docs;
}
