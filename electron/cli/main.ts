/**
 * `t1lab`: everything the UI can do, from a shell. Exit codes: 0 done, 1 the work failed, 2 bad usage.
 */
import { Command, CommanderError } from 'commander';
import { LabError } from '../ipc/common/errors';
import { appVersion } from '../lab/app-paths';
import { registerDoctor } from './commands/doctor';
import { registerServe } from './commands/serve';
import { registerModel } from './commands/model';
import { UsageError } from './errors';
import { processIo, type Io } from './output';

export function buildProgram(io: Io): Command {
  const program = new Command('t1lab')
    .description('T1 Lab: terminal-agent reinforcement learning on one workstation')
    .version(appVersion())
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });
  registerDoctor(program, io);
  registerServe(program, io);
  registerModel(program, io);
  return program;
}

export async function runCli(argv: string[], io: Io = processIo): Promise<number> {
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof UsageError) {
      io.err(`t1lab: ${error.message}\n`);
      return 2;
    }
    if (error instanceof LabError) {
      io.err(`t1lab: ${error.message} [${error.code}]\n`);
      return 1;
    }
    io.err(`t1lab: ${(error as Error).stack ?? String(error)}\n`);
    return 1;
  }
}
