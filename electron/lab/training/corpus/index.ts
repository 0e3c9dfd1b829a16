/**
 * The LM stage's text. `data.path` entries are text files, folders of them (read recursively, sorted),
 * SFT sample files (`.jsonl`: their token ids are used as they are) or `builtin`: the lab's own corpus,
 * generated offline on this machine —
 *  - manual pages of the host's shell tools (licences checked, see man-pages.ts): how commands are used;
 *  - every task of the built-in suite (tasks/examples) as an agent transcript in the policy's own format
 *    (ChatML, compact Hermes prompt, the oracle's commands as tool calls), its instruction and solution;
 *  - the task format documentation (tasks/FORMAT.md);
 *  - the synthetic terminal transcripts the tokenizer is trained on (model init's default corpus).
 * That is what "base" means here: a model that has read shell tools, task texts and the tool-call format.
 * `builtin:copy` adds copy drills (copy-drills.ts): transcripts that repeat random names from the context.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { LabError } from '../../../ipc/common/errors';
import { appRoot } from '../../app-paths';
import { defaultCorpus } from '../../models/default-corpus';
import { readSftSamples } from '../sft-samples';
import { readManPages } from './man-pages';
import { taskDocuments } from './task-transcripts';
import { copyDrills } from './copy-drills';
import { BUILTIN_CORPUS, COPY_DRILLS_CORPUS } from './names';

export { BUILTIN_CORPUS, COPY_DRILLS_CORPUS, isBuiltinCorpus } from './names';

export interface CorpusDocument {
  source: string;
  text?: string;
  ids?: number[];
}

export interface CorpusSummary {
  sources: { source: string; documents: number; chars: number }[];
}

const TEXT_SKIP = /\.(gz|zip|png|jpg|onnx|safetensors|bin)$/i;

function filesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    const st = statSync(path);
    if (st.isDirectory()) out.push(...filesUnder(path));
    else if (st.isFile() && !TEXT_SKIP.test(name)) out.push(path);
  }
  return out;
}

export async function builtinCorpus(root = appRoot()): Promise<CorpusDocument[]> {
  const docs: CorpusDocument[] = [];
  for (const page of readManPages()) docs.push({ source: `man:${page.package}`, text: page.text });
  const examples = join(root, 'tasks', 'examples');
  if (existsSync(examples))
    for (const text of await taskDocuments(examples)) docs.push({ source: 'tasks:examples', text });
  const format = join(root, 'tasks', 'FORMAT.md');
  if (existsSync(format)) docs.push({ source: 'docs:FORMAT.md', text: readFileSync(format, 'utf8') });
  for (const text of defaultCorpus(2000, 7)) docs.push({ source: 'synthetic', text });
  return docs;
}

/** The documents of `data.path` (one entry or several). */
export async function loadCorpus(paths: readonly string[], tokenizerSha: string | null): Promise<CorpusDocument[]> {
  const docs: CorpusDocument[] = [];
  for (const p of paths) {
    if (p === BUILTIN_CORPUS) {
      docs.push(...(await builtinCorpus()));
      continue;
    }
    if (p === COPY_DRILLS_CORPUS) {
      for (const text of copyDrills()) docs.push({ source: 'copy-drills', text });
      continue;
    }
    const path = resolve(p);
    if (!existsSync(path)) throw new LabError('INVALID_PARAMS', `data.path: ${path} does not exist`);
    const files = statSync(path).isDirectory() ? filesUnder(path) : [path];
    for (const file of files) {
      if (file.endsWith('.jsonl')) {
        for (const s of readSftSamples(file)) {
          if (tokenizerSha && s.tokenizer !== tokenizerSha)
            throw new LabError(
              'INVALID_PARAMS',
              `${file}: sample ${s.id} was tokenized with another tokenizer (${s.tokenizer.slice(0, 12)}…) than the model's (${tokenizerSha.slice(0, 12)}…)`,
            );
          docs.push({ source: file, ids: s.ids });
        }
      } else docs.push({ source: file, text: readFileSync(file, 'utf8') });
    }
  }
  if (docs.length === 0) throw new LabError('INVALID_PARAMS', `data.path: no documents in ${paths.join(', ')}`);
  return docs;
}

export function summarizeCorpus(docs: readonly CorpusDocument[]): CorpusSummary {
  const by = new Map<string, { source: string; documents: number; chars: number }>();
  for (const d of docs) {
    const key = d.source.startsWith('/') ? 'files' : d.source;
    const s = by.get(key) ?? { source: key, documents: 0, chars: 0 };
    s.documents++;
    s.chars += d.text?.length ?? d.ids?.length ?? 0;
    by.set(key, s);
  }
  return { sources: [...by.values()] };
}
