/**
 * The task layer's public API (issue 4): load tasks from folders and packs, prepare a workspace, run the
 * verifier, compute rewards, audit tasks, import Terminal-Bench. The harness and the CLI use only this file.
 */
export {
  loadTaskSource,
  loadTaskFolder,
  findTask,
  isTaskFolder,
  type TaskSource,
  type InvalidTask,
  type LoadOptions,
} from './source';
export { buildTask, type BuildResult } from './build-task';
export { readTaskFolder } from './read-folder';
export { readPack, writePack, parsePackLine, packLineOf, PACK_FORMAT, type PackEntry } from './pack';
export { writeTaskFolder } from './write-folder';
export {
  Task,
  TaskFile,
  TaskOrigin,
  TASK_PATHS,
  TB1_PATHS,
  fileText,
  filesUnder,
  findFile,
  taskTitle,
  taskBytes,
  decodeText,
} from './model';
export { formatProblem, hasErrors, type TaskProblem } from './problems';
export { DEFAULT_SIZE_LIMITS, type SizeLimits } from './limits';
export { solutionCommands, solutionScript } from './solution';
export { splitShellCommands, typedCommands } from '../../../native/util/shell-split';
export { computeReward, countPassed } from './reward';
export { taskSummary, taskDetail, declaredAssertions, verifierKinds, pytestTests } from './task-view';
export { importTerminalBench, type ImportReport, type ImportedTask } from './import/import-tb';
export { parseCtrf } from './reports/ctrf';
export { parseJunit } from './reports/junit';
export { prepareWorkspace, runOracle, type PhaseOptions } from './workspace';
export { runVerifier, SYSTEM_PYTHON, type VerifyOptions } from './verifier';
export { prestartVerifier, type WarmVerifier } from './warm-verifier';
export { VerifierResult, StepResult, verifyReport } from './results';
export {
  auditTask,
  auditTasks,
  invalidAudit,
  differences,
  type AuditOutcome,
  type AuditOptions,
  type AuditProgressEvent,
} from './audit';
export { snapshotWorkspace, removeTree, VERIFIER_PRIVATE_PATHS } from './snapshot';
export {
  defaultSandbox,
  taskLimits,
  phaseSpec,
  agentSandboxSpec,
  assertRunnable,
  VERIFIER_TESTS_DIR,
  VERIFIER_LOGS_DIR,
} from './sandbox-spec';
export { TaskReward } from './reports/reward-file';
export { TaskLibrary, builtinExamplesDir, userTasksDir, EXAMPLES_LABEL, type LibrarySource } from './library';
export { AuditStore } from './audit-store';
