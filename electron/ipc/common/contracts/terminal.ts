/**
 * The `terminal.*` domain: interactive sandboxed shells for the UI. Output streams as `terminal.data`
 * events (batched ~5 ms) to the connection that opened the terminal; the UI acknowledges what it has
 * rendered with `terminal.ack`, and the shell is paused while more than ~100k chars are unacknowledged.
 */
import { z } from 'zod';
import { defineContract, method } from '../define';
import {
  MAX_INPUT_CHARS,
  TerminalDataEvent,
  TerminalDefaults,
  TerminalExitEvent,
  TerminalInfo,
  TerminalLimitEvent,
  TerminalOpenInput,
  TerminalSize,
} from '../../../domain/terminal';

const Id = z.object({ id: z.string().min(1).max(64) });

export const terminalContract = defineContract({
  methods: {
    'terminal.defaults': method(
      z.object({}),
      TerminalDefaults,
      'Default sandbox limits, whether the sandbox works here, and how limits are enforced.',
    ),
    'terminal.open': method(
      TerminalOpenInput,
      TerminalInfo,
      'Open a sandboxed shell on a workspace (a fresh temporary one when none is given).',
    ),
    'terminal.input': method(Id.extend({ data: z.string().max(MAX_INPUT_CHARS) }), z.null(), 'Type into a terminal.'),
    'terminal.resize': method(Id.extend(TerminalSize), z.null(), 'Resize a terminal.'),
    'terminal.ack': method(
      Id.extend({ chars: z.number().int().min(0).max(1e9) }),
      z.null(),
      'Acknowledge rendered output (flow control).',
    ),
    'terminal.close': method(Id, z.null(), 'Close a terminal: kill its sandbox, remove a temporary workspace.'),
    'terminal.list': method(z.object({}), z.array(TerminalInfo), "List this connection's terminals."),
  },
  events: {
    'terminal.data': TerminalDataEvent,
    'terminal.exit': TerminalExitEvent,
    'terminal.limit': TerminalLimitEvent,
  },
});
