/** Generated family tasks as the lab loads them: through a pack line, like `t1lab tasks synth` writes them. */
import { parsePackLine, PACK_FORMAT, type Task } from '../../electron/lab/tasks';
import { createFamilyRng, familySeed } from '../../tasks/families/rng';
import type { GeneratedTask, Split, TaskFamily } from '../../tasks/families/types';

export function generateFamilyTask(family: TaskFamily, seed: number, split: Split = 'train'): GeneratedTask {
  return family.generate(createFamilyRng(familySeed(family.name, seed)), { seed, split });
}

export function familyPackLine(task: GeneratedTask): string {
  return JSON.stringify({
    format: PACK_FORMAT,
    id: task.id,
    files: task.files.map((f) => ({ path: f.path, text: f.text, ...(f.executable ? { executable: true } : {}) })),
  });
}

/** Load a generated task the way a pack line is loaded; throws with the problems when it does not load. */
export function loadFamilyTask(task: GeneratedTask): Task {
  const entry = parsePackLine('families.jsonl', 1, familyPackLine(task));
  if (!entry.task)
    throw new Error(
      `${task.id} did not load: ${entry.problems.map((p) => `${p.file} ${p.field ?? ''} ${p.reason}`).join('; ')}`,
    );
  return entry.task;
}
