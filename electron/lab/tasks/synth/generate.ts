/**
 * Task synthesis from families: a deterministic stream of distinct tasks. Round-robin over the chosen
 * families; each family's task seeds come from (synth seed, index) and are kept only when they belong to
 * the requested split (tasks/families/split.ts), so train and eval seeds never meet. A task whose content
 * hash was already produced, or whose files do not load as a task, is skipped and counted.
 */
import {
  createFamilyRng,
  familiesForSplit,
  familySeed,
  seedSplit,
  type Split,
  type TaskFamily,
} from '../../../../tasks/families';
import { LabError } from '../../../ipc/common/errors';
import type { Task, TaskFile } from '../model';
import { buildTask } from '../build-task';
import { packLineOf } from '../pack';
import { taskIdProblem, taskPathProblem } from '../paths';
import { formatProblem } from '../problems';
import { taskHashes, type TaskHashes } from './content-hash';

export interface SynthOptions {
  count: number;
  seed: number;
  split: Split;
  families: readonly TaskFamily[];
  /** Keep only tasks whose oracle needs at least this many commands (long-horizon suites). */
  minCommands?: number;
}

export interface SynthTask {
  id: string;
  family: string;
  /** The task seed the family was called with. */
  seed: number;
  category: string;
  difficulty: string;
  expectedCommands: number;
  /** The pack line (no trailing newline). */
  line: string;
  hashes: TaskHashes;
  task: Task;
}

export interface SynthRejection {
  family: string;
  verdict: 'duplicate' | 'invalid' | 'generator-error' | 'too-short';
  reason: string;
}

/** Tries per task before a family is declared unable to produce new tasks. */
const MAX_TRIES_PER_TASK = 50;

/** Check the families a synth may use for a split; held-out families cannot train. */
export function chooseFamilies(
  all: readonly TaskFamily[],
  names: readonly string[] | null,
  split: Split,
): TaskFamily[] {
  if (!names) {
    const chosen = familiesForSplit(all, split);
    if (!chosen.length) throw new LabError('INVALID_PARAMS', `no family can produce ${split} tasks`);
    return chosen;
  }
  return names.map((name) => {
    const f = all.find((x) => x.name === name);
    if (!f) throw new LabError('INVALID_PARAMS', `--families: no family '${name}' (see \`t1lab tasks families\`)`);
    if (split === 'train' && f.heldOut)
      throw new LabError(
        'INVALID_PARAMS',
        `--families: '${name}' is held out for out-of-distribution eval; it cannot produce train tasks`,
      );
    return f;
  });
}

/** The task seed of a family's index-th draw under a synth seed. */
export function taskSeed(family: string, synthSeed: number, index: number): number {
  return familySeed(`${family}@${synthSeed}`, index);
}

/** Generate one task of a family at a task seed, as loaded files (throws on a generator error). */
export function generateOne(
  family: TaskFamily,
  seed: number,
  split: Split,
): { id: string; files: TaskFile[]; difficulty: string; expectedCommands: number } {
  const generated = family.generate(createFamilyRng(seed), { seed, split });
  const encoder = new TextEncoder();
  const files = generated.files.map((f) => ({
    path: f.path,
    data: encoder.encode(f.text),
    executable: f.executable ?? false,
  }));
  return { id: generated.id, files, difficulty: generated.difficulty, expectedCommands: generated.expectedCommands };
}

/** Yields `count` distinct tasks (fewer only when every family is exhausted); rejections go to `onReject`. */
export function* synthesize(
  options: SynthOptions,
  onReject: (r: SynthRejection) => void = () => {},
): Generator<SynthTask> {
  const { families, split } = options;
  const next = new Map<string, number>();
  const seen = new Set<string>();
  const ids = new Set<string>();
  const failures = new Map<string, number>();
  const live = [...families];
  let produced = 0;
  let turn = 0;
  while (produced < options.count && live.length) {
    const family = live[turn++ % live.length]!;
    let index = next.get(family.name) ?? 0;
    let seed = taskSeed(family.name, options.seed, index);
    while (seedSplit(family.name, seed) !== split) seed = taskSeed(family.name, options.seed, ++index);
    next.set(family.name, index + 1);

    let reject: SynthRejection | null = null;
    let made: SynthTask | null = null;
    try {
      const g = generateOne(family, seed, split);
      const line = packLineOf({ id: g.id, files: g.files });
      const hashes = taskHashes(g.files);
      if (options.minCommands && g.expectedCommands < options.minCommands)
        reject = {
          family: family.name,
          verdict: 'too-short',
          reason: `${g.id} needs ${g.expectedCommands} command(s)`,
        };
      else if (seen.has(hashes.content) || ids.has(g.id))
        reject = { family: family.name, verdict: 'duplicate', reason: `${g.id} repeats an earlier task` };
      else {
        // What a pack reader checks: the id, the paths, then the task itself (TOML, layout, verifier).
        const pathProblems = [taskIdProblem(g.id), ...g.files.map((f) => taskPathProblem(f.path))].filter(
          (p): p is string => !!p,
        );
        const entry = pathProblems.length ? null : buildTask(g.id, g.files, { kind: 'pack', path: 'synth', line: 1 });
        if (!entry?.task)
          reject = {
            family: family.name,
            verdict: 'invalid',
            reason: `${g.id}: ${pathProblems.length ? pathProblems.join('; ') : entry!.problems.map(formatProblem).join('; ')}`,
          };
        else {
          seen.add(hashes.content);
          ids.add(g.id);
          made = {
            id: g.id,
            family: family.name,
            seed,
            category: family.category,
            difficulty: g.difficulty,
            expectedCommands: g.expectedCommands,
            line,
            hashes,
            task: entry.task,
          };
        }
      }
    } catch (error) {
      reject = {
        family: family.name,
        verdict: 'generator-error',
        reason: `${family.name} at seed ${seed}: ${(error as Error).message}`,
      };
    }
    if (made) {
      failures.set(family.name, 0);
      produced++;
      yield made;
      continue;
    }
    onReject(reject!);
    const n = (failures.get(family.name) ?? 0) + 1;
    failures.set(family.name, n);
    if (n >= MAX_TRIES_PER_TASK) live.splice(live.indexOf(family), 1);
  }
}
