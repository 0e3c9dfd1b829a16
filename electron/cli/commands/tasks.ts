/**
 * `t1lab tasks list|validate|audit|pack|unpack|import-tb`: the task layer from a shell. PATH is a task
 * folder, a folder of tasks, or a pack (.jsonl).
 */
import type { Command } from 'commander';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { TaskProblem } from '../../domain/tasks';
import {
  formatProblem,
  hasErrors,
  importTerminalBench,
  loadTaskSource,
  readPack,
  verifierKinds,
  writePack,
  writeTaskFolder,
  taskTitle,
  type Task,
  type TaskSource,
} from '../../lab/tasks';
import { UsageError, WorkFailed } from '../errors';
import { formatBytes, printJson, table, type Io } from '../output';
import { registerAudit } from './tasks-audit';
import { registerSftData } from './tasks-sft-data';
import { registerSftDrills } from './tasks-sft-drills';
import { registerCorpus } from './tasks-corpus';
import { registerSynth } from './tasks-synth';
import { registerFeasible } from './tasks-feasible';
import { registerPool } from './tasks-pool';
import { registerSources } from './tasks-sources';
import { registerExport } from './tasks-export';

function where(task: Pick<Task, 'origin'>): string {
  return task.origin.kind === 'pack' ? `${task.origin.path}:${task.origin.line}` : task.origin.path;
}

function runtimeLabel(task: Task): string {
  return task.environment.runtime.kind === 'sandbox' ? 'sandbox' : 'container';
}

function printInvalid(io: Io, source: TaskSource): void {
  for (const bad of source.invalid) {
    io.err(`invalid task ${bad.id}:\n`);
    for (const p of bad.problems) io.err(`  ${formatProblem(p)}\n`);
  }
}

async function load(path: string): Promise<TaskSource> {
  return loadTaskSource(path);
}

export function listJson(source: TaskSource) {
  return {
    tasks: source.tasks.map((t) => ({
      id: t.id,
      title: taskTitle(t),
      category: t.metadata.category,
      difficulty: t.metadata.difficulty,
      tags: t.metadata.tags,
      layout: t.layout,
      runtime: t.environment.runtime,
      verifiers: verifierKinds(t),
      hasOracle: t.solution !== null,
      origin: where(t),
    })),
    invalid: source.invalid.map((b) => ({
      id: b.id,
      origin: b.origin.kind === 'pack' ? `${b.origin.path}:${b.origin.line}` : b.origin.path,
      problems: b.problems,
    })),
  };
}

export function validateJson(source: TaskSource) {
  const tasks: { id: string; ok: boolean; problems: TaskProblem[] }[] = [
    ...source.tasks.map((t) => ({ id: t.id, ok: true, problems: t.warnings })),
    ...source.invalid.map((b) => ({ id: b.id, ok: false, problems: b.problems })),
  ];
  return {
    valid: source.tasks.length,
    invalid: source.invalid.length,
    warnings: source.tasks.reduce((n, t) => n + t.warnings.length, 0),
    tasks,
  };
}

export function registerTasks(program: Command, io: Io): void {
  const tasks = program.command('tasks').description('list, validate, audit, pack and import tasks');
  registerList(tasks, io);
  registerValidate(tasks, io);
  registerPack(tasks, io);
  registerUnpack(tasks, io);
  registerImportTb(tasks, io);
  registerAudit(tasks, io);
  registerSftData(tasks, io);
  registerSftDrills(tasks, io);
  registerSynth(tasks, io);
  registerCorpus(tasks, io);
  registerFeasible(tasks, io);
  registerPool(tasks, io);
  registerSources(tasks, io);
  registerExport(tasks, io);
}

/** `tasks list`: the tasks at a path, a row each. */
function registerList(tasks: Command, io: Io): void {
  tasks
    .command('list')
    .argument('<path>', 'a task folder, a folder of tasks, or a pack (.jsonl)')
    .option('--json', 'print JSON')
    .description('list the tasks at PATH')
    .action(async (path: string, opts: { json?: boolean }) => {
      const source = await load(path);
      if (opts.json) return printJson(io, listJson(source));
      if (source.tasks.length) {
        io.out(
          table([
            ['id', 'category', 'difficulty', 'layout', 'runtime', 'verifier', 'oracle'],
            ...source.tasks.map((t) => [
              t.id,
              t.metadata.category,
              t.metadata.difficulty ?? '-',
              t.layout,
              runtimeLabel(t),
              verifierKinds(t).join('+'),
              t.solution ? 'yes' : 'no',
            ]),
          ]),
        );
      }
      io.out(
        `${source.tasks.length} task(s)${source.invalid.length ? `, ${source.invalid.length} invalid (see \`t1lab tasks validate ${path}\`)` : ''}\n`,
      );
    });
}

/** `tasks validate`: every task's problems; fails when one is invalid. */
function registerValidate(tasks: Command, io: Io): void {
  tasks
    .command('validate')
    .argument('<path>', 'a task folder, a folder of tasks, or a pack (.jsonl)')
    .option('--json', 'print JSON')
    .description('check every task at PATH; exits 1 when anything is invalid')
    .action(async (path: string, opts: { json?: boolean }) => {
      const source = await load(path);
      const report = validateJson(source);
      if (opts.json) printJson(io, report);
      else {
        for (const t of report.tasks) {
          io.out(`${t.ok ? 'ok     ' : 'INVALID'} ${t.id}\n`);
          for (const p of t.problems) io.out(`        ${formatProblem(p)}\n`);
        }
        io.out(`${report.valid} valid, ${report.invalid} invalid, ${report.warnings} warning(s)\n`);
      }
      if (report.valid === 0 && report.invalid === 0) throw new WorkFailed(`no tasks found in ${path}`);
      if (report.invalid > 0) throw new WorkFailed(opts.json ? '' : `${report.invalid} invalid task(s)`);
    });
}

/** `tasks pack`: a folder of tasks into one JSONL pack. */
function registerPack(tasks: Command, io: Io): void {
  tasks
    .command('pack')
    .argument('<dir>', 'a task folder or a folder of tasks')
    .argument('<out>', 'the pack file to write (.jsonl)')
    .option('--skip-invalid', 'pack the valid tasks even when some are invalid')
    .description('write the tasks of DIR into one JSONL pack (one task per line, files inline)')
    .action(async (dir: string, out: string, opts: { skipInvalid?: boolean }) => {
      if (!out.endsWith('.jsonl')) throw new UsageError(`${out}: a pack file name ends in .jsonl`);
      const info = await stat(dir).catch(() => null);
      if (!info?.isDirectory())
        throw new UsageError(`${dir}: not a folder (pack takes a task folder or a folder of tasks)`);
      const source = await load(dir);
      printInvalid(io, source);
      if (source.invalid.length && !opts.skipInvalid)
        throw new WorkFailed(
          `${source.invalid.length} invalid task(s); nothing written (fix them, or pass --skip-invalid)`,
        );
      if (source.tasks.length === 0) throw new WorkFailed(`no tasks found in ${dir}`);
      const count = await writePack(out, source.tasks);
      const size = (await stat(out)).size;
      io.out(`packed ${count} task(s) into ${out} (${formatBytes(size)})\n`);
    });
}

/** `tasks unpack`: a pack back into task folders. */
function registerUnpack(tasks: Command, io: Io): void {
  tasks
    .command('unpack')
    .argument('<pack>', 'a pack file (.jsonl)')
    .argument('<dir>', 'where to write one folder per task')
    .description('write every task of a pack out as a task folder')
    .action(async (pack: string, dir: string) => {
      if (!pack.endsWith('.jsonl')) throw new UsageError(`${pack}: a pack file name ends in .jsonl`);
      let written = 0;
      let failed = 0;
      for await (const entry of readPack(pack)) {
        if (!entry.task || hasErrors(entry.problems)) {
          failed++;
          io.err(`invalid task ${entry.id} (line ${entry.line}):\n`);
          for (const p of entry.problems) io.err(`  ${formatProblem(p)}\n`);
          continue;
        }
        try {
          await writeTaskFolder(join(dir, entry.task.id), entry.task.files);
          written++;
        } catch (error) {
          failed++;
          io.err(`t1lab: ${entry.task.id}: ${(error as Error).message}\n`);
        }
      }
      io.out(`unpacked ${written} task(s) into ${dir}${failed ? `; ${failed} failed` : ''}\n`);
      if (failed) throw new WorkFailed(`${failed} task(s) could not be unpacked`);
    });
}

/** `tasks import-tb`: Terminal-Bench 1 and Harbor tasks converted. */
function registerImportTb(tasks: Command, io: Io): void {
  tasks
    .command('import-tb')
    .argument('<src>', 'a Terminal-Bench 1 or Harbor (TB 2.x) task folder, or a folder of them')
    .argument('<dest>', 'where to write the converted task folders')
    .option('--json', 'print JSON')
    .description('import Terminal-Bench tasks; tasks that need their container image are marked with the reason')
    .action(async (src: string, dest: string, opts: { json?: boolean }) => {
      const report = await importTerminalBench(src, dest);
      if (opts.json) printJson(io, report);
      else {
        if (report.imported.length) {
          io.out(
            table([
              ['id', 'from', 'runtime', 'reason / notes'],
              ...report.imported.map((t) => [
                t.id,
                t.from,
                t.runtime.kind,
                t.runtime.kind === 'container' ? t.runtime.reason : `${t.notes.length} note(s)`,
              ]),
            ]),
          );
        }
        for (const t of report.imported) for (const n of t.notes) io.out(`  ${t.id}: ${n}\n`);
        for (const f of report.failed) {
          io.err(`failed ${f.id} (${f.src}):\n`);
          for (const p of f.problems) io.err(`  ${formatProblem(p)}\n`);
        }
        const container = report.imported.filter((t) => t.runtime.kind === 'container').length;
        io.out(
          `imported ${report.imported.length} task(s) into ${dest}: ${report.imported.length - container} run in the sandbox, ${container} need a container; ${report.failed.length} failed\n`,
        );
      }
      if (report.failed.length) throw new WorkFailed(`${report.failed.length} task(s) could not be imported`);
    });
}
