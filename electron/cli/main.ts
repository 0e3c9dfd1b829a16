/**
 * `t1lab`: everything the UI can do, from a shell. Exit codes: 0 done, 1 the work failed, 2 bad usage.
 */
import { Command, CommanderError } from 'commander';
import { LabError } from '../ipc/common/errors';
import { appVersion } from '../lab/app-paths';
import { registerDoctor } from './commands/doctor';
import { registerSandbox } from './commands/sandbox';
import { registerServe } from './commands/serve';
import { registerEnv } from './commands/env';
import { registerPolicy } from './commands/policy';
import { registerRun } from './commands/run';
import { registerEval } from './commands/eval';
import { registerTasks } from './commands/tasks';
import { registerVerify } from './commands/verify';
import { ExitStatus, UsageError, WorkFailed } from './errors';
import { registerModel } from './commands/model';
import { registerCompare } from './commands/compare';
import { registerExperiments } from './commands/experiments';
import { registerTrain } from './commands/train';
import { registerTrainGuard } from './commands/train-guard';
import { registerTrainWatch, trainCommand } from './commands/train-watch';
import { registerImages } from './commands/images';
import { registerHosts } from './commands/hosts';
import { registerRuns } from './commands/runs';
import { processIo, type Io } from './output';
import { sweepOrphanedTempDirs } from '../../native/util/temp-dirs';

export function buildProgram(io: Io): Command {
  const program = new Command('t1lab')
    .description('T1 Lab: terminal-agent reinforcement learning on one workstation')
    .version(appVersion())
    .showHelpAfterError()
    .exitOverride()
    .configureOutput({ writeOut: io.out, writeErr: io.err });
  registerDoctor(program, io);
  registerServe(program, io);
  registerEnv(program, io);
  registerPolicy(program, io);
  registerRun(program, io);
  registerEval(program, io);
  registerTasks(program, io);
  registerVerify(program, io);
  registerModel(program, io);
  registerTrain(program, io);
  registerSandbox(program, io);
  registerCompare(program, io);
  registerExperiments(program, io);
  registerTrainWatch(trainCommand(program), io);
  registerTrainGuard(trainCommand(program), io);
  registerImages(program, io);
  registerHosts(program, io);
  registerRuns(program, io);
  return program;
}

export async function runCli(argv: string[], io: Io = processIo): Promise<number> {
  // What killed runs left in the temp dir (episode workspaces, verifier snapshots) goes now.
  sweepOrphanedTempDirs();
  const program = buildProgram(io);
  try {
    await program.parseAsync(argv, { from: 'user' });
    return 0;
  } catch (error) {
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    if (error instanceof ExitStatus) return error.status;
    if (error instanceof UsageError) {
      io.err(`t1lab: ${error.message}\n`);
      return 2;
    }
    if (error instanceof WorkFailed) {
      if (error.message) io.err(`t1lab: ${error.message}\n`);
      return 1;
    }
    if (error instanceof LabError) {
      io.err(`t1lab: ${error.message} [${error.code}]\n`);
      return 1;
    }
    io.err(`t1lab: ${(error as Error).stack ?? String(error)}\n`);
    return 1;
  }
}
