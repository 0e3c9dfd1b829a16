/**
 * Errors in the user's words. The host's schema messages ("models.sample: maxTokens: Too small: expected
 * number to be >=1") name internal fields; here each issue becomes a sentence about the field as the form
 * labels it, and the field is returned so the form can highlight it.
 */
import type { LimitNameData } from '../../../electron/domain/terminal';

export interface UserError {
  message: string;
  /** The form field the error concerns (its key in the form), or null when it is about the whole request. */
  field: string | null;
}

interface Issue {
  code?: string;
  path?: (string | number)[];
  message?: string;
  minimum?: number | bigint;
  maximum?: number | bigint;
  expected?: string;
  inclusive?: boolean;
  origin?: string;
}

/** What the sandbox's limits are called on screen. */
export const LIMIT_LABELS: Record<LimitNameData, string> = {
  processes: 'process limit',
  memoryMb: 'memory limit',
  fileSizeMb: 'file size limit',
  openFiles: 'open files limit',
  cpuSeconds: 'CPU time limit',
  workspaceMb: 'workspace size limit',
  tmpMb: '/tmp size limit',
  wallSeconds: 'deadline',
  output: 'output limit',
};

function sentence(issue: Issue, label: string): string {
  const min = issue.minimum === undefined ? null : Number(issue.minimum);
  const max = issue.maximum === undefined ? null : Number(issue.maximum);
  const strings = issue.origin === 'string' || issue.origin === 'array';
  switch (issue.code) {
    case 'too_small':
      if (strings)
        return min !== null && min <= 1 ? `${label} cannot be empty.` : `${label} needs at least ${min} characters.`;
      return `${label} must be at least ${min}${issue.inclusive === false ? ' (exclusive)' : ''}.`;
    case 'too_big':
      if (strings) return `${label} is too long (at most ${max}).`;
      return `${label} must be at most ${max}.`;
    case 'invalid_type':
      return issue.expected === 'number' || issue.expected === 'int'
        ? `${label} must be a number.`
        : `${label} is missing or has the wrong kind of value.`;
    case 'not_multiple_of':
      return `${label} must be a whole number.`;
    default:
      return `${label}: ${issue.message ?? 'not a valid value'}.`;
  }
}

function fromIssues(issues: Issue[], labels: Record<string, string>): UserError {
  const parts: string[] = [];
  let field: string | null = null;
  for (const issue of issues) {
    const path = (issue.path ?? []).map(String);
    // The most specific labelled path: 'limits.memoryMb' before 'limits'.
    let key: string | null = null;
    for (let n = path.length; n > 0 && key === null; n--) {
      const candidate = path.slice(0, n).join('.');
      if (candidate in labels) key = candidate;
    }
    field ??= key;
    const label = key ? labels[key]! : path.length ? path[path.length - 1]! : 'The request';
    parts.push(sentence(issue, label));
  }
  return { message: parts.join(' '), field };
}

/** Turn anything a lab call threw into a message for the user and the field it concerns. */
export function userError(error: unknown, labels: Record<string, string> = {}): UserError {
  const e = error as { code?: string; message?: string; details?: unknown };
  if (e?.code === 'INVALID_PARAMS' && Array.isArray(e.details)) return fromIssues(e.details as Issue[], labels);
  const detailField =
    e?.details && typeof e.details === 'object' && 'field' in e.details
      ? String((e.details as { field: unknown }).field)
      : null;
  let message = String(e?.message ?? error);
  // "models.sample: ..." — the method name means nothing to the user.
  message = message.replace(/^[a-z]+\.[A-Za-z]+: /, '');
  if (e?.code === 'DISCONNECTED') message = 'The lab host is not connected; this will work again once it reconnects.';
  return { message, field: detailField && detailField in labels ? detailField : detailField };
}
