/**
 * `t1lab tasks sources|add-source|remove-source`: the sources the Tasks page lists (examples, committed
 * suites, $T1LAB_HOME/tasks, added folders and packs, the suites of the lab's runs), with their task counts
 * and each task id's pass rate over the lab's evaluation runs.
 */
import type { Command } from 'commander';
import { labDataDir } from '../../lab/paths';
import { taskPassRates } from '../../lab/runs/task-history';
import { loadTaskSource, TaskLibrary } from '../../lab/tasks';
import { addTaskSource, removeTaskSource } from '../../lab/tasks/task-sources';
import { printJson, table, type Io } from '../output';

export function registerSources(tasks: Command, io: Io): void {
  tasks
    .command('sources')
    .option('--json', 'print JSON')
    .description(
      "list every task source of the lab's library (what the Tasks page shows), with task counts and pass rates",
    )
    .action(async (opts: { json?: boolean }) => {
      const dataDir = labDataDir();
      const loaded = await new TaskLibrary(dataDir).load();
      const rates = new Map(taskPassRates(dataDir).map((r) => [r.taskId, r]));
      const sources = [...loaded.values()].map(({ source, tasks: t }) => {
        let episodes = 0;
        let resolved = 0;
        for (const task of t.tasks) {
          episodes += rates.get(task.id)?.episodes ?? 0;
          resolved += rates.get(task.id)?.resolved ?? 0;
        }
        return {
          label: source.label,
          kind: source.kind,
          path: source.path,
          tasks: t.tasks.length,
          invalid: t.invalid.length,
          episodes,
          resolved,
        };
      });
      if (opts.json) return printJson(io, { sources, passRates: [...rates.values()] });
      io.out(
        table([
          ['source', 'kind', 'tasks', 'invalid', 'resolved', 'path'],
          ...sources.map((s) => [
            s.label,
            s.kind,
            String(s.tasks),
            String(s.invalid),
            s.episodes ? `${s.resolved}/${s.episodes}` : '-',
            s.path,
          ]),
        ]),
      );
      io.out(`${sources.length} source(s), ${sources.reduce((n, s) => n + s.tasks, 0)} task(s)\n`);
    });

  tasks
    .command('add-source')
    .argument('<path>', 'an absolute task folder, folder of tasks, or pack (.jsonl)')
    .description('add a folder or pack to the lab library (the Tasks page lists it)')
    .action(async (path: string) => {
      let count = 0;
      const added = await addTaskSource(
        labDataDir(),
        path,
        async (p) => (count = (await loadTaskSource(p)).tasks.length),
      );
      io.out(`added ${added.at(-1)} (${count} task(s)); ${added.length} added source(s)\n`);
    });

  tasks
    .command('remove-source')
    .argument('<path>', 'an added source, as `t1lab tasks sources` prints it')
    .description('remove an added folder or pack from the lab library (its files stay)')
    .action((path: string) => {
      const added = removeTaskSource(labDataDir(), path);
      io.out(`removed ${path}; ${added.length} added source(s)\n`);
    });
}
