/**
 * A task family: code that writes a complete, executable task (in the pack format of tasks/FORMAT.md) from
 * a seed. Families are the corpus the trainer learns from; `t1lab tasks synth` draws seeds, calls
 * `generate`, and writes one pack line per task. Everything a family writes comes from `rng` (never from
 * Math.random, the clock or the host), so the same seed gives byte-identical files.
 */

/** The Terminal-Bench category names a family may use. */
export const TB_CATEGORIES = [
  'file-operations',
  'data-processing',
  'debugging',
  'system-administration',
  'security',
  'software-engineering',
  'scientific-computing',
  'data-science',
  'text-processing',
  'version-control',
  'model-training',
  'mathematics',
  'games',
  'networking',
  'personal-assistant',
  'machine-learning',
] as const;
export type TbCategory = (typeof TB_CATEGORIES)[number];

export type Difficulty = 'easy' | 'medium' | 'hard';
export type Split = 'train' | 'eval';

/** A seeded source of randomness with the helpers families need (see tasks/families/rng.ts). */
export interface FamilyRng {
  /** Uniform in [0, 1). */
  next(): number;
  /** Integer in [min, max], both included. */
  int(min: number, max: number): number;
  pick<T>(items: readonly T[]): T;
  /** k distinct items, in random order. */
  sample<T>(items: readonly T[], k: number): T[];
  shuffle<T>(items: readonly T[]): T[];
  bool(p?: number): boolean;
  /** A lowercase identifier-like word: [a-z][a-z0-9]{len-1}. */
  word(len?: number): string;
}

/** One file of a generated task; paths as in a pack line (instruction.md, task.toml, environment/files/..., solution/solve.sh, tests/...). */
export interface FamilyFile {
  path: string;
  text: string;
  executable?: boolean;
}

export interface GenerateOptions {
  /** The task's seed (already mixed with the family's name by the synthesizer). */
  seed: number;
  /** train or eval: in-distribution held-out suites use eval seeds/phrasings of train families. */
  split: Split;
}

export interface GeneratedTask {
  /** Unique within the family for distinct seeds; the synthesizer prefixes nothing: include the family name. */
  id: string;
  /** instruction.md, task.toml, solution/solve.sh, plus environment files and tests. task.toml's [metadata]
   * carries family, category, difficulty, expected_commands and split. */
  files: FamilyFile[];
  difficulty: Difficulty;
  /** Commands the oracle needs (solve.sh split into turns), for long-horizon selection. */
  expectedCommands: number;
}

export interface TaskFamily {
  /** kebab-case, unique across families. */
  name: string;
  category: TbCategory;
  /** One line: what the agent must do. */
  summary: string;
  /** Held-out families are never used for training (out-of-distribution eval suites). */
  heldOut: boolean;
  /** Typical difficulty (a family may vary it by seed; GeneratedTask.difficulty is the truth). */
  difficulty: Difficulty;
  generate(rng: FamilyRng, options: GenerateOptions): GeneratedTask;
}
