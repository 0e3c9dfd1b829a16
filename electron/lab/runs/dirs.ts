/** Where evaluation runs live in the lab's data folder. */
import { join } from 'node:path';

export function runsDir(dataDir: string): string {
  return join(dataDir, 'runs');
}
