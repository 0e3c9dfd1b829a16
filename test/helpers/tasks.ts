/** Small real tasks written to a temporary folder, for harness and evaluation tests. */
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

export interface TestTask {
  id: string;
  instruction: string;
  category?: string;
  difficulty?: 'easy' | 'medium' | 'hard';
  agentTimeoutSec?: number;
  /** name -> bash check run in the workdir. */
  assertions: Record<string, string>;
  /** solution/solve.sh */
  solution?: string;
  /** environment/files/<path> */
  files?: Record<string, string>;
}

export function writeTask(root: string, task: TestTask): string {
  const dir = join(root, task.id);
  const write = (rel: string, text: string, mode?: number) => {
    const path = join(dir, rel);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, text);
    if (mode) chmodSync(path, mode);
  };
  const assertions = Object.entries(task.assertions)
    .map(([name, run]) => `[[verifier.assertions]]\nname = ${JSON.stringify(name)}\nrun = ${JSON.stringify(run)}\n`)
    .join('\n');
  write(
    'task.toml',
    `version = "1.0"\n\n[metadata]\ncategory = "${task.category ?? 'file-operations'}"\ndifficulty = "${task.difficulty ?? 'easy'}"\n\n` +
      `[agent]\ntimeout_sec = ${task.agentTimeoutSec ?? 60}\n\n[verifier]\ntimeout_sec = 30\n\n${assertions}`,
  );
  write('instruction.md', `${task.instruction}\n`);
  if (task.solution) write('solution/solve.sh', `#!/bin/bash\n${task.solution}\n`, 0o755);
  for (const [path, text] of Object.entries(task.files ?? {})) write(`environment/files/${path}`, text);
  return dir;
}

/** Three quick tasks over two categories and two difficulties, each with an oracle. */
export const QUICK_SUITE: TestTask[] = [
  {
    id: 'make-hello',
    instruction: 'Create a file hello.txt in the working directory containing exactly the line: hello',
    assertions: { 'hello.txt says hello': 'grep -qx hello hello.txt' },
    solution: 'cd /app\necho hello > hello.txt',
  },
  {
    id: 'sum-numbers',
    instruction: 'numbers.txt holds one integer per line. Write their sum to total.txt.',
    category: 'data-processing',
    difficulty: 'medium',
    files: { 'numbers.txt': '1\n2\n3\n4\n5\n' },
    assertions: {
      'total is 15': '[ "$(cat total.txt)" = 15 ]',
      'numbers.txt untouched': '[ "$(wc -l < numbers.txt)" = 5 ]',
    },
    solution: "cd /app\nawk '{s += $1} END {print s}' numbers.txt > total.txt",
  },
  {
    id: 'upper-words',
    instruction: 'Write the words of words.txt in upper case, one per line, to upper.txt.',
    category: 'data-processing',
    files: { 'words.txt': 'alpha\nbeta\n' },
    assertions: { 'upper.txt is right': "printf 'ALPHA\\nBETA\\n' | diff - upper.txt" },
    solution: "cd /app\ntr 'a-z' 'A-Z' < words.txt > upper.txt",
  },
];

export function writeSuite(root: string, tasks: TestTask[] = QUICK_SUITE): string {
  mkdirSync(root, { recursive: true });
  for (const t of tasks) writeTask(root, t);
  return root;
}

/** Tasks in a fresh lab's library: the 18 built-in examples and every committed suite (tasks/suites). */
export async function libraryTaskCount(): Promise<number> {
  const { readdirSync } = await import('node:fs');
  const { loadTaskSource } = await import('../../electron/lab/tasks');
  const suites = join(process.cwd(), 'tasks', 'suites');
  let n = 18;
  for (const name of readdirSync(suites).filter((f) => f.endsWith('.jsonl')))
    n += (await loadTaskSource(join(suites, name))).tasks.length;
  return n;
}
