/**
 * The pty host worker: runs many sandboxed shell sessions away from the host's event loop (node-pty is
 * not thread-safe, so this is a process). Used by the UI terminals (streamed, flow-controlled) and by the
 * harness (run / keys / readNew / screen, not streamed).
 */
import { z } from 'zod';
import { defineContract, method } from '../../ipc/common/define';
import {
  EnforcementSchema,
  LimitNameSchema,
  MAX_INPUT_CHARS,
  SandboxLimitsSchema,
  TerminalSize,
} from '../../domain/terminal';

const Id = z.object({ id: z.string().min(1).max(64) });

export const PtyOpenInput = z.object({
  workspace: z.string().min(1),
  workdir: z.string().optional(),
  net: z.boolean(),
  limits: SandboxLimitsSchema,
  env: z.record(z.string(), z.string()).optional(),
  mounts: z.array(z.object({ host: z.string(), sandbox: z.string(), readOnly: z.boolean() })).optional(),
  cols: TerminalSize.cols,
  rows: TerminalSize.rows,
  recordPath: z.string().nullable().default(null),
  /** Stream output as `pty.data` events with ack-based flow control (UI terminals). */
  stream: z.boolean().default(false),
});

export const CommandResultSchema = z.object({
  output: z.string(),
  exitCode: z.number().int().nullable(),
  timedOut: z.boolean(),
  durationMs: z.number(),
  truncatedChars: z.number().int(),
  limit: z.string().nullable().optional(),
});

export const ScreenSchema = z.object({
  lines: z.array(z.string()),
  cols: z.number().int(),
  rows: z.number().int(),
  cursor: z.object({ x: z.number().int(), y: z.number().int() }),
  alternate: z.boolean(),
});

export const PtySessionInfo = z.object({
  id: z.string(),
  pid: z.number().int(),
  streaming: z.boolean(),
  busy: z.boolean(),
  exited: z.boolean(),
  unackedChars: z.number().int(),
  paused: z.boolean(),
});

export const ptyHostContract = defineContract({
  methods: {
    'pty.open': method(
      PtyOpenInput,
      z.object({ id: z.string(), pid: z.number().int() }),
      'Start a sandboxed shell session.',
    ),
    'pty.input': method(
      Id.extend({ data: z.string().max(MAX_INPUT_CHARS) }),
      z.null(),
      'Write raw input (keystrokes) to a session.',
    ),
    'pty.keys': method(
      Id.extend({
        keys: z.array(z.union([z.string().max(MAX_INPUT_CHARS), z.object({ key: z.string().max(32) })])).max(1000),
      }),
      z.null(),
      'Send text and named keys.',
    ),
    'pty.run': method(
      Id.extend({
        command: z.string().max(MAX_INPUT_CHARS),
        timeoutMs: z.number().int().min(1).max(86_400_000).optional(),
        maxOutputChars: z.number().int().min(0).max(100_000_000).optional(),
      }),
      CommandResultSchema,
      'Run a command and wait for it (or the timeout, leaving it running).',
    ),
    'pty.readNew': method(
      Id.extend({ maxOutputChars: z.number().int().min(0).max(100_000_000).optional() }),
      z.object({ output: z.string(), truncatedChars: z.number().int() }),
      'Output since the last read.',
    ),
    'pty.screen': method(Id, ScreenSchema, 'The visible screen.'),
    'pty.resize': method(Id.extend(TerminalSize), z.null(), 'Resize a session.'),
    'pty.ack': method(Id.extend({ chars: z.number().int().min(0) }), z.null(), 'Acknowledge streamed output.'),
    'pty.stream': method(
      Id.extend({ on: z.boolean() }),
      z.null(),
      'Start or stop streaming a session (a UI attaching to a harness session).',
    ),
    'pty.close': method(Id, z.null(), 'Kill a session and close its recording.'),
    'pty.list': method(z.object({}), z.array(PtySessionInfo), 'Sessions of this worker.'),
    'pty.enforcement': method(
      z.object({}),
      EnforcementSchema.extend({ sandboxOk: z.boolean(), hint: z.string().nullable(), version: z.string().nullable() }),
      'Whether sandboxes work here and how limits are enforced.',
    ),
  },
  events: {
    'pty.data': z.object({ id: z.string(), data: z.string() }),
    'pty.exit': z.object({ id: z.string(), exitCode: z.number().int().nullable(), limit: LimitNameSchema.nullable() }),
    'pty.limit': z.object({ id: z.string(), limit: LimitNameSchema, message: z.string() }),
  },
});
