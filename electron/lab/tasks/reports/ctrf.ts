/**
 * CTRF reports (`/logs/verifier/ctrf.json`, what Harbor's pytest-json-ctrf writes):
 * `results.tests[].{name, status, message?, trace?}`. Statuses other than passed/failed count as not passed.
 */
import { z } from 'zod';
import type { AssertionResult } from '../../../domain/tasks';

const CtrfTest = z.looseObject({
  name: z.string(),
  status: z.string(),
  message: z.string().optional(),
  trace: z.string().optional(),
});

export const CtrfReport = z.looseObject({
  results: z.looseObject({
    tests: z.array(CtrfTest),
    summary: z
      .looseObject({ tests: z.number().optional(), passed: z.number().optional(), failed: z.number().optional() })
      .optional(),
  }),
});

export type ParsedReport = { ok: true; assertions: AssertionResult[] } | { ok: false; reason: string };

const MAX_MESSAGE_CHARS = 2000;

export function clip(text: string, max = MAX_MESSAGE_CHARS): string {
  return text.length > max ? `${text.slice(0, max)}… (${text.length - max} more characters)` : text;
}

export function parseCtrf(text: string): ParsedReport {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    return { ok: false, reason: `ctrf.json is not valid JSON: ${(error as Error).message}` };
  }
  const parsed = CtrfReport.safeParse(json);
  if (!parsed.success) {
    return {
      ok: false,
      reason: `ctrf.json is not a CTRF report: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}`,
    };
  }
  const assertions = parsed.data.results.tests.map((t): AssertionResult => {
    const detail = clip([t.message, t.trace].filter(Boolean).join('\n'));
    switch (t.status) {
      case 'passed':
        return { name: t.name, status: 'passed', message: '' };
      case 'failed':
        return { name: t.name, status: 'failed', message: detail || 'failed' };
      default:
        return { name: t.name, status: 'failed', message: `${t.status}${detail ? `: ${detail}` : ''} (not passed)` };
    }
  });
  return { ok: true, assertions };
}
