/**
 * `t1lab runs list|show|tag|rename|note|rm`: read, name, tag, annotate and remove runs (eval and training
 * alike), the same service and the same meta.json the Runs and Training pages edit.
 */
import { createInterface } from 'node:readline';
import type { Command } from 'commander';
import { RunMetaPatch, RunTag, type RunMetaResult } from '../../domain/run-meta';
import { labDataDir } from '../../lab/paths';
import { listRuns } from '../../lab/runs/library';
import { removeRunFolder, updateMetaOf } from '../../lab/runs/meta';
import { registerRunsShow } from './runs-show';
import { RUN_ARG_HELP, runArg } from './run-arg';
import { UsageError, WorkFailed } from '../errors';
import { printJson, table, type Io } from '../output';
import { registerRunsOutcomes } from './runs-outcomes';
import { registerRunsReport } from './runs-report';
import { registerRunsReports } from './runs-reports';

function patchOrUsage(patch: unknown): RunMetaPatch {
  const parsed = RunMetaPatch.safeParse(patch);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0];
  throw new UsageError(`${issue?.path.join('.') || 'value'}: ${issue?.message ?? 'invalid'}`);
}

function printMeta(io: Io, result: RunMetaResult, json: boolean | undefined): void {
  if (json) return printJson(io, result);
  const m = result.meta;
  io.out(
    `${result.runId} (${result.kind})\n  name:  ${m.name ?? '—'}\n  tags:  ${m.tags.join(', ') || '—'}\n  notes: ${m.notes ? m.notes.replace(/\n/g, '\n         ') : '—'}\n`,
  );
}

/** One line from stdin: the answer to a confirmation (a closed stdin answers no). */
function ask(io: Io, question: string): Promise<string> {
  io.err(question);
  return new Promise((resolve) => {
    const rl = createInterface({ input: process.stdin, terminal: false });
    let answered = false;
    rl.once('line', (line) => {
      answered = true;
      rl.close();
      resolve(line.trim());
    });
    rl.once('close', () => {
      if (!answered) resolve('');
    });
  });
}

export function registerRuns(program: Command, io: Io): void {
  const runs = program.command('runs').description('list, name, tag, annotate and remove runs (eval and training)');
  registerRunsOutcomes(runs, io);
  registerRunsReport(runs, io);
  registerRunsReports(runs, io);
  registerRunsShow(runs, io);

  runs
    .command('list')
    .description('the evaluation runs in the lab data folder, newest first, with their names and tags')
    .option('--tag <tag>', 'only runs with this tag')
    .option('--json', 'print the list as JSON')
    .action((opts: { tag?: string; json?: boolean }) => {
      const list = listRuns(labDataDir(), new Set()).filter((r) => !opts.tag || r.tags.includes(opts.tag));
      if (opts.json) return printJson(io, list);
      if (!list.length) return io.out('no runs\n');
      io.out(
        table([
          ['id', 'name', 'tags', 'resolved', 'state'],
          ...list.map((r) => [
            r.id,
            r.title,
            r.tags.join(',') || '—',
            r.resolvedRate === null ? '—' : `${(r.resolvedRate * 100).toFixed(1)}%`,
            r.state,
          ]),
        ]),
      );
    });

  runs
    .command('rename')
    .description("give a run a name (shown instead of its id); '' clears it")
    .argument('<run>', RUN_ARG_HELP)
    .argument('<name>', 'the new name')
    .option('--json', 'print the run id, kind, folder and meta as JSON')
    .action((runId: string, name: string, opts: { json?: boolean }) => {
      printMeta(
        io,
        updateMetaOf(runArg(labDataDir(), runId), patchOrUsage({ name: name.trim() === '' ? null : name })),
        opts.json,
      );
    });

  runs
    .command('tag')
    .description('add tags to a run (or remove them with --remove)')
    .argument('<run>', RUN_ARG_HELP)
    .argument('<tags...>', 'tags: letters, digits and . _ : = + / -')
    .option('--remove', 'remove these tags instead of adding them')
    .option('--json', 'print the run id, kind, folder and meta as JSON')
    .action((runId: string, tags: string[], opts: { remove?: boolean; json?: boolean }) => {
      for (const t of tags)
        if (!opts.remove && !RunTag.safeParse(t).success)
          throw new UsageError(`tag '${t}': ${RunTag.safeParse(t).error?.issues[0]?.message}`);
      printMeta(
        io,
        updateMetaOf(runArg(labDataDir(), runId), patchOrUsage(opts.remove ? { removeTags: tags } : { addTags: tags })),
        opts.json,
      );
    });

  runs
    .command('note')
    .description("set a run's notes (or add a paragraph with --append)")
    .argument('<run>', RUN_ARG_HELP)
    .argument('<text>', "the notes ('' clears them)")
    .option('--append', 'add the text as a new paragraph instead of replacing the notes')
    .option('--json', 'print the run id, kind, folder and meta as JSON')
    .action((runId: string, text: string, opts: { append?: boolean; json?: boolean }) => {
      printMeta(
        io,
        updateMetaOf(runArg(labDataDir(), runId), patchOrUsage(opts.append ? { appendNotes: text } : { notes: text })),
        opts.json,
      );
    });

  runs
    .command('rm')
    .description('delete a run folder; asks first unless --yes; refuses a running run')
    .argument('<run>', RUN_ARG_HELP)
    .option('-y, --yes', 'do not ask for confirmation')
    .option('--json', 'print the removed run as JSON')
    .action(async (runId: string, opts: { yes?: boolean; json?: boolean }) => {
      const run = runArg(labDataDir(), runId);
      if (!opts.yes) {
        const answer = await ask(io, `Delete ${run.kind} run ${run.runId} (${run.dir}) and everything in it? [y/N] `);
        if (!/^y(es)?$/i.test(answer)) throw new WorkFailed(`run ${runId} not removed (answer y, or pass --yes)`);
      }
      const removed = removeRunFolder(run);
      if (opts.json) printJson(io, removed);
      else io.out(`removed ${removed.kind} run ${removed.runId} (${removed.dir})\n`);
    });
}
