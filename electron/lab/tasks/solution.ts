/** The oracle: a task's reference solution, as one script (audit) or as commands typed one per turn (harness). */
import { fileText, type Task } from './model';
import { typedCommands } from '../../../native/util/shell-split';

/** The solution as a bash script, or null when the task has none. */
export function solutionScript(task: Task): string | null {
  if (!task.solution) return null;
  if (task.solution.kind === 'commands') return `${task.solution.commands.join('\n')}\n`;
  return fileText(task, task.solution.path);
}

/**
 * The solution as the commands an agent would type, one per turn: top-level commands of solve.sh (a heredoc,
 * an `if` block or a function stays whole), without the shebang, comment-only lines, `set -e` or a final
 * `exit`. TB1 `solution.yaml` commands are returned as written. Empty when the task has no solution.
 */
export function solutionCommands(task: Task): string[] {
  if (!task.solution) return [];
  if (task.solution.kind === 'commands') return [...task.solution.commands];
  return typedCommands(fileText(task, task.solution.path) ?? '');
}
