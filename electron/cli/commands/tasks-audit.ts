/** `t1lab tasks audit PATH [--json]`: oracle, no-op and oracle-again runs per task; a progress bar; a summary table. */
import type { Command } from 'commander';
import { cpus } from 'node:os';
import { resolve } from 'node:path';
import type { AuditResult } from '../../domain/tasks';
import { auditTasks, invalidAudit, loadTaskSource } from '../../lab/tasks';
import { UsageError, WorkFailed } from '../errors';
import { addBackendOptions, backendSettings, type BackendOptions } from './backend-options';
import { printJson, progressBar, table, type Io } from '../output';

export function formatAuditTable(results: AuditResult[]): string {
  const pc = (c: { passed: number; total: number } | null) => (c ? `${c.passed}/${c.total}` : '-');
  let text = table([
    ['id', 'verdict', 'oracle', 'no-op', 'flaky', 'reason'],
    ...results.map((r) => [
      r.id,
      r.verdict,
      pc(r.oracle),
      pc(r.noop),
      r.flaky ? 'yes' : 'no',
      r.verdict === 'ok' ? '' : (r.reason.split('\n')[0] ?? '').slice(0, 160),
    ]),
  ]);
  const byVerdict = new Map<string, number>();
  for (const r of results) byVerdict.set(r.verdict, (byVerdict.get(r.verdict) ?? 0) + 1);
  text += `\n${results.length} task(s): ${[...byVerdict].map(([v, n]) => `${n} ${v}`).join(', ')}\n`;
  return text;
}

export function registerAudit(tasks: Command, io: Io): void {
  addBackendOptions(tasks.command('audit'))
    .argument('<path>', 'a task folder, a folder of tasks, or a pack (.jsonl)')
    .option('--json', 'print JSON: [{id, oracle, noop, flaky, verdict, reason}]')
    .option('--concurrency <n>', 'tasks audited at once (default: half the cores, at least 1)')
    .option('--only <ids>', 'audit only these task ids (comma-separated)')
    .option('--keep <dir>', "keep each run's workspace and verifier logs under DIR/<task id>/ (to debug a task)")
    .description(
      "run each task's oracle, a no-op agent and the oracle again through the verifier; exits 1 unless every verdict is ok",
    )
    .action(
      async (
        path: string,
        opts: { json?: boolean; concurrency?: string; only?: string; keep?: string } & BackendOptions,
      ) => {
        const containers = backendSettings(opts);
        const concurrency =
          opts.concurrency === undefined ? Math.max(1, Math.floor(cpus().length / 2)) : Number(opts.concurrency);
        if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 64)
          throw new UsageError(`--concurrency: '${opts.concurrency}' is not a whole number from 1 to 64`);
        const source = await loadTaskSource(path);
        const only = opts.only ? new Set(opts.only.split(',').map((s) => s.trim())) : null;
        const chosen = only ? source.tasks.filter((t) => only.has(t.id)) : source.tasks;
        const invalid = only ? source.invalid.filter((t) => only.has(t.id)) : source.invalid;
        if (only) {
          const unknown = [...only].filter(
            (id) => !chosen.some((t) => t.id === id) && !invalid.some((t) => t.id === id),
          );
          if (unknown.length)
            throw new UsageError(`--only: no task ${unknown.map((u) => `'${u}'`).join(', ')} in ${path}`);
        }
        if (chosen.length + invalid.length === 0) throw new WorkFailed(`no tasks found in ${path}`);

        const bar = progressBar(io, 'audit', chosen.length);
        const outcomes = await auditTasks(chosen, {
          concurrency,
          containers,
          keepDir: opts.keep ? resolve(opts.keep) : undefined,
          onProgress: (e) =>
            bar.update(
              e.done,
              e.current
                ? `${e.current.id}: ${e.current.step}`
                : e.finished
                  ? `${e.finished.result.id}: ${e.finished.result.verdict}`
                  : '',
            ),
        });
        bar.stop();
        const results = [...outcomes.map((o) => o.result), ...invalid.map((b) => invalidAudit(b).result)];
        if (opts.json) printJson(io, results);
        else io.out(formatAuditTable(results));
        const bad = results.filter((r) => r.verdict !== 'ok').length;
        if (bad) throw new WorkFailed(opts.json ? '' : `${bad} task(s) did not pass the audit`);
      },
    );
}
