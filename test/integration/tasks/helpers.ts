/** Small task folders written by the tests themselves, and the fixture paths. */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { loadTaskFolder, type Task } from '../../../electron/lab/tasks';
import { REPO_ROOT } from '../../helpers/cli';

export const FIXTURES = join(REPO_ROOT, 'test/fixtures/tasks');
export const EXAMPLES = join(REPO_ROOT, 'tasks/examples');

export function writeTaskFiles(dir: string, files: Record<string, string>): string {
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content, { mode: path.endsWith('.sh') ? 0o755 : 0o644 });
  }
  return dir;
}

export async function taskFrom(dir: string, files?: Record<string, string>): Promise<Task> {
  if (files) writeTaskFiles(dir, files);
  const loaded = await loadTaskFolder(dir);
  if (!loaded.task) throw new Error(`fixture ${dir} did not load: ${JSON.stringify(loaded.problems)}`);
  return loaded.task;
}

export const META = '[metadata]\ncategory = "testing"\ndifficulty = "easy"\n';
