/** What the Tasks page and `t1lab tasks list` show of a task: plain summaries and details. */
import type { AuditResult, DeclaredAssertion, TaskDetail, TaskSummary, VerifierKind } from '../../domain/tasks';
import { fileText, taskTitle, type Task } from './model';
import { solutionScript } from './solution';

export function verifierKinds(task: Task): VerifierKind[] {
  const kinds: VerifierKind[] = [];
  if (task.verifier.testScript && task.verifier.runTestScript) kinds.push('test-script');
  if (task.verifier.pytest) kinds.push('pytest');
  if (task.verifier.assertions.length) kinds.push('inline');
  return kinds;
}

/** pytest test functions of a test file (module level and in Test* classes), with their source. */
export function pytestTests(source: string): { name: string; body: string }[] {
  const lines = source.split('\n');
  const tests: { name: string; body: string }[] = [];
  let cls: string | null = null;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const classMatch = /^class\s+(Test\w*)/.exec(line);
    if (classMatch) cls = classMatch[1] as string;
    else if (/^\S/.test(line) && !/^(def|@|#)/.test(line)) cls = null;
    const m = /^(\s*)(?:async\s+)?def\s+(test\w*)\s*\(/.exec(line);
    if (!m) continue;
    const indent = (m[1] as string).length;
    if (indent === 0) cls = null;
    let end = i + 1;
    while (end < lines.length && (/^\s*$/.test(lines[end] as string) || (lines[end] as string).search(/\S/) > indent))
      end++;
    tests.push({
      name: cls && indent > 0 ? `${cls}::${m[2]}` : (m[2] as string),
      body: lines.slice(i, end).join('\n').trimEnd(),
    });
  }
  return tests;
}

export function declaredAssertions(task: Task): DeclaredAssertion[] {
  const out: DeclaredAssertion[] = [];
  if (task.verifier.testScript && task.verifier.runTestScript && !task.verifier.pytest) {
    out.push({
      name: task.verifier.testScript,
      kind: 'test-script',
      detail: fileText(task, task.verifier.testScript) ?? '',
    });
  }
  if (task.verifier.pytest) {
    for (const t of pytestTests(fileText(task, task.verifier.pytest) ?? ''))
      out.push({ name: t.name, kind: 'pytest', detail: t.body });
  }
  for (const a of task.verifier.assertions) out.push({ name: a.name, kind: 'inline', detail: a.run });
  return out;
}

export function taskSummary(
  task: Task,
  source: string,
  audit: { result: AuditResult; at: string } | null = null,
): TaskSummary {
  return {
    id: task.id,
    source,
    layout: task.layout,
    category: task.metadata.category,
    difficulty: task.metadata.difficulty,
    tags: task.metadata.tags,
    runtime: task.environment.runtime,
    verifiers: verifierKinds(task),
    hasOracle: task.solution !== null,
    title: taskTitle(task),
    family: typeof task.metadata.extra.family === 'string' ? task.metadata.extra.family : null,
    audit: audit?.result ?? null,
    auditedAt: audit?.at ?? null,
  };
}

export function taskDetail(
  task: Task,
  source: string,
  audit: { result: AuditResult; at: string } | null = null,
): TaskDetail {
  return {
    ...taskSummary(task, source, audit),
    instruction: task.instruction,
    assertions: declaredAssertions(task),
    solution: solutionScript(task),
    testScript: task.verifier.testScript ? fileText(task, task.verifier.testScript) : null,
    files: task.files
      .map((f) => ({ path: f.path, bytes: f.data.byteLength }))
      .sort((a, b) => (a.path < b.path ? -1 : 1)),
    agentTimeoutSec: task.agent.timeoutSec,
    verifierTimeoutSec: task.verifier.timeoutSec,
    warnings: task.warnings,
  };
}
