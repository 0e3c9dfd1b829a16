/**
 * Legacy Terminal-Bench 1 `task.yaml`: the instruction lives here, with difficulty, category, tags and the
 * agent/test timeouts. Unknown keys are kept. Syntax errors name their line and column.
 */
import { parseDocument } from 'yaml';
import { z } from 'zod';
import { DeclaredDifficulty } from './difficulty';

/** TB1's defaults (terminal-bench 0.x TaskConfig). */
export const TB1_DEFAULT_AGENT_TIMEOUT_SEC = 360;
export const TB1_DEFAULT_TEST_TIMEOUT_SEC = 60;

export const TaskYaml = z.looseObject({
  instruction: z
    .string({ error: 'the instruction is missing (task.yaml needs `instruction: |` with the task text)' })
    .trim()
    .min(1, 'the instruction is empty'),
  difficulty: DeclaredDifficulty,
  category: z.string().trim().min(1).optional(),
  tags: z.array(z.string(), { error: 'must be a list of strings' }).optional(),
  max_agent_timeout_sec: z.number().positive().optional(),
  max_test_timeout_sec: z.number().positive().optional(),
  parser_name: z.string().optional(),
});
export type TaskYaml = z.infer<typeof TaskYaml>;

export type YamlParse = { ok: true; value: TaskYaml } | { ok: false; syntax: string | null; issues: z.ZodError | null };

export function parseTaskYaml(text: string): YamlParse {
  const doc = parseDocument(text);
  const first = doc.errors[0];
  if (first) {
    const pos = first.linePos?.[0];
    const where = pos ? ` at line ${pos.line}, column ${pos.col}` : '';
    return { ok: false, syntax: `malformed YAML${where}: ${first.message.split('\n')[0]}`, issues: null };
  }
  const parsed = TaskYaml.safeParse(doc.toJS() ?? {});
  return parsed.success ? { ok: true, value: parsed.data } : { ok: false, syntax: null, issues: parsed.error };
}

/** TB1's `solution.yaml`: a list of commands the oracle types, instead of `solution.sh`. */
export const SolutionYaml = z.array(
  z.looseObject({
    command: z.string({ error: 'each entry needs a command' }),
    min_timeout_sec: z.number().optional(),
    block: z.boolean().optional(),
    append_enter: z.boolean().optional(),
  }),
  { error: 'solution.yaml must be a list of {command: ...} entries' },
);
export type SolutionYaml = z.infer<typeof SolutionYaml>;

export function parseSolutionYaml(text: string): { ok: true; value: SolutionYaml } | { ok: false; reason: string } {
  const doc = parseDocument(text);
  const first = doc.errors[0];
  if (first) return { ok: false, reason: `malformed YAML: ${first.message.split('\n')[0]}` };
  const parsed = SolutionYaml.safeParse(doc.toJS());
  if (!parsed.success)
    return {
      ok: false,
      reason: parsed.error.issues.map((i) => `${i.path.join('.') || '(list)'}: ${i.message}`).join('; '),
    };
  return { ok: true, value: parsed.data };
}
