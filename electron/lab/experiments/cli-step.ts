/**
 * Long experiments (ablations, the nano reproduction) run each stage as its own `t1lab` process: a stage
 * that crashes or is killed takes nothing else with it, and every stage is already resumable through its
 * own `--resume`. Progress bars of the child go straight to the user's stderr; its `--json` stdout is the
 * stage's result.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { writeFileAtomic } from '../runs/store';

export interface StepResult {
  code: number;
  json: unknown;
  stdout: string;
}

/** The command line that starts this same `t1lab` (bin/t1lab.js from dist, or the TypeScript entry under tsx). */
export function selfCommand(): { command: string; args: string[] } {
  return { command: process.execPath, args: [...process.execArgv, process.argv[1]!] };
}

export function runT1labStep(
  args: string[],
  options: { log?: (line: string) => void; env?: NodeJS.ProcessEnv } = {},
): Promise<StepResult> {
  const self = selfCommand();
  options.log?.(`t1lab ${args.join(' ')}`);
  return new Promise((resolve, reject) => {
    const child = spawn(self.command, [...self.args, ...args], {
      stdio: ['ignore', 'pipe', 'inherit'],
      env: { ...process.env, ...options.env },
    });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => {
      let json: unknown = null;
      try {
        json = JSON.parse(stdout);
      } catch {
        // not JSON: the caller reports the failure with the output
      }
      resolve({ code: code ?? (signal ? 128 : 1), json, stdout });
    });
  });
}

/** A stage's result, written once it finished: its presence is what "done" means on a rerun. */
export function readDone<T>(file: string): T | null {
  if (!existsSync(file)) return null;
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as T;
  } catch {
    return null;
  }
}

export function writeDone(file: string, value: unknown): void {
  writeFileAtomic(file, `${JSON.stringify(value, null, 2)}\n`);
}
