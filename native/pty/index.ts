/** Shell sessions: sandboxed bash on a pty with a headless screen, transcript, recording and flow control. */
export {
  createShellSession,
  SandboxShellSession,
  SessionBusyError,
  SessionClosedError,
  DEFAULT_COLS,
  DEFAULT_ROWS,
  DEFAULT_OUTPUT_CHARS,
  DEFAULT_RUN_TIMEOUT_MS,
  type ShellSessionOptions,
} from './session';
export { keyBytes, isNamedKey, NAMED_KEYS } from './keys';
export { AsciicastRecorder } from './asciicast';
export { AckFlowController, DataBatcher, FlowControl } from './flow';
export { HeadlessScreen, type ScreenSnapshot } from './screen';
export type * from './types';
