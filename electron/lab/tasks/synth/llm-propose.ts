/**
 * The paper's route as a second source: a model behind an OpenAI-compatible server writes new tasks,
 * shown example tasks in our pack format. Nothing it writes is trusted: a proposal must parse as a pack
 * line, load as a task, be new (content hash), and pass the execution audit (oracle, no-op, oracle again).
 * The audit is the only filter; rejections are counted by verdict (`malformed` for an answer that is not
 * a task at all).
 */
import { z } from 'zod';
import type { Split } from '../../../../tasks/families';
import { postJson, DEFAULT_RETRY } from '../../../agent/policy/http-retry';
import { parseOpenAiSpec } from '../../../agent/policy/openai';
import { LabError } from '../../../ipc/common/errors';
import { packLineOf, parsePackLine } from '../pack';
import { formatProblem } from '../problems';
import { loadTaskSource } from '../source';
import type { Task } from '../model';
import type { AuditCache } from './audit-cache';
import { taskHashes } from './content-hash';
import type { SynthTask } from './generate';
import { auditRound, summarize, writeLines, type FamilyAuditStats, type SynthSummary } from './run-synth';

export interface LlmProposeOptions {
  spec: string;
  seeds: string;
  count: number;
  seed: number;
  split: Split;
  out: string;
  cache: AuditCache;
  concurrency: number;
  apiKeyEnv?: string;
  env?: NodeJS.ProcessEnv;
  temperature?: number;
  onProgress?: (done: number, total: number, detail: string) => void;
}

/** The label proposals carry in stats (metadata.family) when the model does not name one. */
export const LLM_FAMILY = 'llm-proposed';

const Completion = z.object({
  choices: z.array(z.object({ message: z.object({ content: z.string().nullable().optional() }) })).min(1),
});

const SYSTEM_PROMPT = `You write executable tasks for training terminal agents. A task is a JSON object on one line:
{"id": "kebab-case-id", "files": [{"path": "instruction.md", "text": "..."}, {"path": "task.toml", "text": "..."},
 {"path": "solution/solve.sh", "text": "#!/bin/bash\\n...", "executable": true}, {"path": "environment/files/NAME", "text": "..."}]}
task.toml has [metadata] category and difficulty (easy|medium|hard) and [[verifier.assertions]] entries (name, run: a bash
check run in /app, exit 0 = passed). The workspace is /app. solve.sh must make every assertion pass, and every
assertion must FAIL on the untouched workspace. Answer with the JSON object only.`;

function renderSeed(task: Task): string {
  return packLineOf(task);
}

/** The first JSON object in a reply (code fences and chatter around it are tolerated). */
export function extractJsonObject(text: string): unknown {
  const fenced = /```(?:json)?\s*\n([\s\S]*?)```/.exec(text);
  const body = fenced ? fenced[1]! : text;
  const start = body.indexOf('{');
  const end = body.lastIndexOf('}');
  if (start < 0 || end <= start) throw new Error('no JSON object in the answer');
  return JSON.parse(body.slice(start, end + 1));
}

interface Proposal {
  index: number;
  task: SynthTask | null;
  verdict: string | null;
  reason: string;
}

async function askOne(
  url: string,
  model: string,
  key: string | undefined,
  seeds: Task[],
  index: number,
  options: LlmProposeOptions,
): Promise<Proposal> {
  const example = seeds[index % seeds.length]!;
  const messages = [
    { role: 'system', content: SYSTEM_PROMPT },
    {
      role: 'user',
      content: `Here is an example task:\n${renderSeed(example)}\n\nWrite one NEW task of a similar kind but different content (different files, names and data). Task number ${index + 1}.`,
    },
  ];
  const payload = { model, messages, seed: options.seed + index, temperature: options.temperature ?? 0.8 };
  let content: string;
  try {
    const result = await postJson(
      url,
      payload,
      key ? { authorization: `Bearer ${key}` } : {},
      AbortSignal.timeout(DEFAULT_RETRY.timeoutMs * 2),
      { ...DEFAULT_RETRY, maxRetries: 2 },
    );
    const parsed = Completion.safeParse(result.body);
    if (!parsed.success)
      return {
        index,
        task: null,
        verdict: 'malformed',
        reason: `not a chat completion: ${JSON.stringify(result.body).slice(0, 200)}`,
      };
    content = parsed.data.choices[0]!.message.content ?? '';
  } catch (error) {
    return { index, task: null, verdict: 'request-failed', reason: (error as Error).message };
  }
  let json: unknown;
  try {
    json = extractJsonObject(content);
  } catch (error) {
    return { index, task: null, verdict: 'malformed', reason: `${(error as Error).message}: ${content.slice(0, 200)}` };
  }
  const entry = parsePackLine('proposal', index + 1, JSON.stringify(json));
  if (!entry.task)
    return { index, task: null, verdict: 'invalid', reason: entry.problems.map(formatProblem).join('; ') };
  const task = entry.task;
  const family = typeof task.metadata.extra.family === 'string' ? task.metadata.extra.family : LLM_FAMILY;
  return {
    index,
    verdict: null,
    reason: '',
    task: {
      id: task.id,
      family,
      seed: options.seed + index,
      category: task.metadata.category,
      difficulty: task.metadata.difficulty ?? 'unknown',
      expectedCommands: 0,
      line: packLineOf(task),
      hashes: taskHashes(task.files),
      task,
    },
  };
}

export async function proposeWithLlm(options: LlmProposeOptions): Promise<SynthSummary> {
  const started = performance.now();
  let parsedSpec: { baseUrl: string; model: string };
  try {
    parsedSpec = parseOpenAiSpec(options.spec);
  } catch (error) {
    throw new LabError('INVALID_PARAMS', `--llm: ${(error as Error).message}`);
  }
  const env = options.env ?? process.env;
  const keyVar = options.apiKeyEnv ?? 'OPENAI_API_KEY';
  if (options.apiKeyEnv && !env[keyVar])
    throw new LabError('INVALID_PARAMS', `--api-key-env ${keyVar}: that environment variable is not set`);
  const source = await loadTaskSource(options.seeds).catch((error: Error) => {
    throw new LabError('INVALID_PARAMS', `--seeds: ${options.seeds}: ${error.message}`);
  });
  if (!source.tasks.length) throw new LabError('INVALID_PARAMS', `--seeds: no valid task in ${options.seeds}`);
  const url = `${parsedSpec.baseUrl}/chat/completions`;

  // Ask `concurrency` at a time; keep results in request order so the pack does not depend on timing.
  const proposals: Proposal[] = new Array(options.count);
  let next = 0;
  let answered = 0;
  const asker = async () => {
    while (next < options.count) {
      const i = next++;
      proposals[i] = await askOne(url, parsedSpec.model, env[keyVar], source.tasks, i, options);
      options.onProgress?.(++answered, options.count * 2, `proposal ${i + 1}: ${proposals[i]!.verdict ?? 'to audit'}`);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, options.count)) }, asker));

  const rejected = new Map<string, number>();
  const bump = (k: string) => rejected.set(k, (rejected.get(k) ?? 0) + 1);
  const candidates: SynthTask[] = [];
  const seen = new Set<string>([...source.tasks.map((t) => taskHashes(t.files).content)]);
  const ids = new Set<string>();
  for (const p of proposals) {
    if (!p.task) {
      bump(p.verdict!);
      continue;
    }
    if (seen.has(p.task.hashes.content) || ids.has(p.task.id)) {
      bump('duplicate');
      continue;
    }
    seen.add(p.task.hashes.content);
    ids.add(p.task.id);
    candidates.push(p.task);
  }
  const stats: FamilyAuditStats = new Map();
  const verdicts = await auditRound(candidates, options.cache, options.concurrency, stats, undefined, (t, verdict) =>
    options.onProgress?.(++answered, options.count * 2, `${t.id}: ${verdict}`),
  );
  const kept = candidates.filter((_, i) => verdicts[i] === 'ok');
  verdicts.forEach((v) => v !== 'ok' && bump(v));
  await writeLines(
    options.out,
    kept.map((t) => t.line),
  );
  return summarize(options.out, kept, rejected, stats, started);
}
