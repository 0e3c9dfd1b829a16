/**
 * The agent's three tools, as JSON-schema function specs (what native function calling sends and what
 * Hermes/Qwen templates list inside `<tools>`), and the named keys the `keys` tool understands.
 */
import { NAMED_KEYS } from '../../../native/pty/keys';

export interface ToolSpec {
  type: 'function';
  function: { name: string; description: string; parameters: Record<string, unknown> };
}

/** Longest a single bash command may be given before it is left running and the agent is told. */
export const DEFAULT_COMMAND_TIMEOUT_SEC = 180;
/** How long the `keys` tool waits for output by default, and at most (Terminus-2 uses the same bounds). */
export const DEFAULT_KEYS_DURATION_SEC = 1;
export const MAX_KEYS_DURATION_SEC = 60;

export const AGENT_TOOLS: ToolSpec[] = [
  {
    type: 'function',
    function: {
      name: 'bash',
      description:
        'Run a shell command in the task environment and wait for it to finish. Returns its output (head and tail when long), exit code and duration. ' +
        'State (working directory, variables) persists between calls. A command still running after `timeout` seconds is left running: use `keys` to interact with it or stop it with C-c.',
      parameters: {
        type: 'object',
        properties: {
          command: { type: 'string', description: 'The command line to run.' },
          timeout: {
            type: 'number',
            description: `Seconds to wait before giving up waiting (default ${DEFAULT_COMMAND_TIMEOUT_SEC}).`,
          },
        },
        required: ['command'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'keys',
      description:
        'Send raw keystrokes to the terminal, for interactive and full-screen programs. Each element is literal text, or a named key: ' +
        `${NAMED_KEYS.join(', ')}. Returns the new output, or the screen while a full-screen program runs.`,
      parameters: {
        type: 'object',
        properties: {
          keys: { type: 'array', items: { type: 'string' }, description: 'e.g. ["q"], ["C-c"], ["ls -la", "Enter"]' },
          duration: {
            type: 'number',
            description: `Seconds to wait for output afterwards (default ${DEFAULT_KEYS_DURATION_SEC}, at most ${MAX_KEYS_DURATION_SEC}).`,
          },
        },
        required: ['keys'],
      },
    },
  },
  {
    type: 'function',
    function: {
      name: 'submit',
      description: 'Declare the task complete. The episode ends and the verifier checks the environment.',
      parameters: { type: 'object', properties: {} },
    },
  },
];
