/**
 * `t1lab verify TASK --workspace DIR [--json]`: run TASK's verifier on a finished workspace. TASK is a task
 * folder, or PACK.jsonl#ID / FOLDER#ID for one task of a pack or a folder of tasks. Exits 0 when the
 * verifier ran (whatever it found), 1 when it crashed or timed out.
 */
import type { Command } from 'commander';
import { findTask, loadTaskSource, runVerifier, verifyReport, type Task } from '../../lab/tasks';
import { UsageError, WorkFailed } from '../errors';
import { resolvePhaseRuntime } from '../../lab/containers/runtime';
import { addBackendOptions, backendSettings, type BackendOptions } from './backend-options';
import { printJson, table, type Io } from '../output';

export async function resolveTask(spec: string): Promise<Task> {
  const hash = spec.lastIndexOf('#');
  const [path, id] = hash > 0 ? [spec.slice(0, hash), spec.slice(hash + 1)] : [spec, null];
  const source = await loadTaskSource(path);
  if (id) return findTask(source, id);
  if (source.kind !== 'task') {
    const ids = [...source.tasks.map((t) => t.id), ...source.invalid.map((t) => t.id)];
    throw new UsageError(
      `${path} holds ${ids.length} tasks; name one as ${path}#ID (e.g. ${path}#${ids[0] ?? 'my-task'})`,
    );
  }
  return findTask(source, source.tasks[0]?.id ?? source.invalid[0]?.id ?? '');
}

export function registerVerify(program: Command, io: Io): void {
  addBackendOptions(program.command('verify'))
    .argument('<task>', 'a task folder, or PACK.jsonl#ID / FOLDER#ID')
    .requiredOption('--workspace <dir>', "the agent's final workspace")
    .option(
      '--json',
      'print JSON: {task, assertions:[{name, status, message}], passed, total, reward:{dense, fraction, binary}, durationMs}',
    )
    .option('--keep-logs <dir>', "copy the verifier's reports and output here")
    .description("run a task's verifier on a finished workspace, in a fresh sandbox")
    .action(
      async (taskSpec: string, opts: { workspace: string; json?: boolean; keepLogs?: string } & BackendOptions) => {
        const task = await resolveTask(taskSpec);
        const runtime = await resolvePhaseRuntime(task, backendSettings(opts));
        const result = await runVerifier(task, opts.workspace, { keepLogsDir: opts.keepLogs, runtime });
        if (opts.json) printJson(io, verifyReport(result));
        else {
          io.out(
            table([
              ['assertion', 'status', 'message'],
              ...result.assertions.map((a) => [a.name, a.status, (a.message.split('\n')[0] ?? '').slice(0, 120)]),
            ]),
          );
          io.out(
            `\n${result.passed}/${result.total} passed; reward dense ${result.reward.dense}, fraction ${result.reward.fraction.toFixed(3)}, binary ${result.reward.binary}; ${result.durationMs} ms\n`,
          );
          if (result.taskReward)
            io.out(`task's own verdict (${result.taskReward.source}): ${JSON.stringify(result.taskReward.values)}\n`);
          for (const note of result.notes) io.out(`note: ${note}\n`);
        }
        if (result.status === 'error')
          throw new WorkFailed(`the verifier of '${task.id}' failed: ${result.error?.split('\n')[0]}`);
      },
    );
}
