/** Where the lab keeps its data: `T1LAB_HOME`, else `$XDG_DATA_HOME/t1-lab`, else `~/.local/share/t1-lab`. */
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

export function labDataDir(env: NodeJS.ProcessEnv = process.env): string {
  if (env.T1LAB_HOME) return resolve(env.T1LAB_HOME);
  if (env.XDG_DATA_HOME) return join(resolve(env.XDG_DATA_HOME), 't1-lab');
  return join(homedir(), '.local', 'share', 't1-lab');
}
