/** Collecting problems while loading a task: each with the file, field and reason (issue 4). */
import type { TaskProblem } from '../../domain/tasks';
import type { z } from 'zod';

export type { TaskProblem };

export class Problems {
  readonly list: TaskProblem[] = [];

  error(file: string, field: string | null, reason: string): void {
    this.list.push({ file, field, reason, severity: 'error' });
  }

  warning(file: string, field: string | null, reason: string): void {
    this.list.push({ file, field, reason, severity: 'warning' });
  }

  /** Every issue of a failed schema parse, located at its field path. */
  fromZod(file: string, error: z.ZodError, prefix = ''): void {
    for (const issue of error.issues) {
      const path = issue.path.map(String).join('.');
      this.error(file, [prefix, path].filter(Boolean).join('.') || null, issue.message);
    }
  }

  get hasErrors(): boolean {
    return this.list.some((p) => p.severity === 'error');
  }
}

export function hasErrors(problems: readonly TaskProblem[]): boolean {
  return problems.some((p) => p.severity === 'error');
}

/** `file: field: reason` on one line, for logs and the CLI. */
export function formatProblem(p: TaskProblem): string {
  return `${p.severity === 'warning' ? 'warning: ' : ''}${p.file}${p.field ? `: ${p.field}` : ''}: ${p.reason}`;
}
