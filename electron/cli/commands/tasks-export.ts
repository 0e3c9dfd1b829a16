/**
 * `t1lab tasks export --format harbor --out DIR SUITE_OR_PACK`: every task of a suite (by name: one of
 * tasks/suites/*.jsonl), a pack or a folder of tasks, written as Harbor task folders (export/harbor.ts).
 */
import type { Command } from 'commander';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { formatProblem, loadTaskSource, writeTaskFolder } from '../../lab/tasks';
import { harborTaskFiles } from '../../lab/tasks/export/harbor';
import { builtinSuitesDir } from '../../lab/tasks/task-sources';
import { UsageError, WorkFailed } from '../errors';
import { printJson, type Io } from '../output';

export const EXPORT_FORMATS = ['harbor'] as const;

/** A path as given, else the name of a built-in suite (`nano-bench` -> tasks/suites/nano-bench.jsonl). */
export function resolveTaskArg(arg: string, suitesDir = builtinSuitesDir()): string {
  if (existsSync(arg)) return arg;
  const suite = join(suitesDir, `${arg.replace(/\.jsonl$/, '')}.jsonl`);
  if (!/[/\\]/.test(arg) && existsSync(suite)) return suite;
  throw new UsageError(`${arg}: no such file, folder or suite (suites: tasks/suites/*.jsonl, by name)`);
}

export function registerExport(tasks: Command, io: Io): void {
  tasks
    .command('export')
    .argument(
      '<suite-or-pack>',
      'a suite name (nano-bench, id-nano, ...), a pack (.jsonl), a task folder or a folder of tasks',
    )
    .requiredOption('--out <dir>', 'where to write one task folder per task')
    .option('--format <format>', `the layout to write: ${EXPORT_FORMATS.join(', ')}`, 'harbor')
    .option('--json', 'print JSON')
    .description(
      'write tasks as Harbor task folders (Dockerfile, oracle, tests/test.sh writing binary and dense rewards)',
    )
    .action(async (arg: string, opts: { out: string; format: string; json?: boolean }) => {
      if (!(EXPORT_FORMATS as readonly string[]).includes(opts.format))
        throw new UsageError(`--format ${opts.format}: unknown (expected ${EXPORT_FORMATS.join(', ')})`);
      const source = await loadTaskSource(resolveTaskArg(arg));
      for (const bad of source.invalid) {
        io.err(`invalid task ${bad.id} (not exported):\n`);
        for (const p of bad.problems) io.err(`  ${formatProblem(p)}\n`);
      }
      if (source.tasks.length === 0) throw new WorkFailed(`no tasks found in ${arg}`);
      const written: string[] = [];
      const failed: { id: string; reason: string }[] = [];
      for (const task of source.tasks) {
        try {
          await writeTaskFolder(join(opts.out, task.id), harborTaskFiles(task));
          written.push(task.id);
        } catch (error) {
          failed.push({ id: task.id, reason: (error as Error).message });
          if (!opts.json) io.err(`t1lab: ${task.id}: ${(error as Error).message}\n`);
        }
      }
      if (opts.json)
        printJson(io, {
          format: opts.format,
          out: opts.out,
          exported: written,
          failed,
          invalid: source.invalid.map((b) => b.id),
        });
      else
        io.out(
          `exported ${written.length} task(s) to ${opts.out} (${opts.format})${failed.length ? `; ${failed.length} failed` : ''}\n`,
        );
      if (failed.length || source.invalid.length)
        throw new WorkFailed(`${failed.length + source.invalid.length} task(s) not exported`);
    });
}
