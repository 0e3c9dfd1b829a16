/**
 * A rollout in the PPO stage's own layout (electron/lab/ppo/rollout-files.ts on the ppo branch) turned into
 * the page's token view: `rollouts/step-N/episodes/<key>/trajectory.json` (the ledger's samples: ids, loss
 * mask, sampler log-probs, segments, routing of every token) and `rollouts/step-N/samples.jsonl` (per
 * sample, per graph position p scoring token p + 1: values, advantages, TIS weights). Token text comes from
 * the run's initial checkpoint's tokenizer.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Trajectory } from '../../domain/trajectory';
import type { RolloutEpisode, RolloutToken, RolloutView } from '../../domain/training-view';
import { LabError } from '../../ipc/common/errors';
import { loadTokenizer } from '../../../native/model/tokenizer/hf-tokenizer';

interface SampleLine {
  episode: string;
  sample: number;
  values?: number[];
  advantages?: number[];
  tisWeights?: number[];
}

const tokenizers = new Map<string, { decode(ids: readonly number[]): string } | null>();

function tokenizerOf(runDir: string): { decode(ids: readonly number[]): string } | null {
  const manifest = JSON.parse(readFileSync(join(runDir, 'run.json'), 'utf8')) as { init?: { path?: string } };
  const path = manifest.init?.path ? join(manifest.init.path, 'tokenizer.json') : null;
  if (!path) return null;
  if (!tokenizers.has(path)) {
    try {
      tokenizers.set(path, loadTokenizer(readFileSync(path, 'utf8'), { source: path }));
    } catch {
      tokenizers.set(path, null);
    }
  }
  return tokenizers.get(path) ?? null;
}

/** The episode folder of a PPO rollout, or null when the step keeps none. */
export function ppoEpisodeDir(stepFolder: string, key: string, dir: string | null): string | null {
  for (const d of [dir && join(stepFolder, dir), dir, join(stepFolder, 'episodes', key)])
    if (d && existsSync(join(d, 'trajectory.json'))) return d;
  return null;
}

export function readPpoRollout(
  runId: string,
  runDir: string,
  stepFolder: string,
  step: number,
  episode: RolloutEpisode,
  episodeDir: string,
): RolloutView {
  const file = join(episodeDir, 'trajectory.json');
  const parsed = Trajectory.safeParse(JSON.parse(readFileSync(file, 'utf8')));
  if (!parsed.success)
    throw new LabError(
      'UNAVAILABLE',
      `${file}: ${parsed.error.issues[0]?.path.join('.')}: ${parsed.error.issues[0]?.message}`,
    );
  const t = parsed.data;
  const samples = t.ledger?.samples ?? [];
  const lines: SampleLine[] = [];
  const samplesFile = join(stepFolder, 'samples.jsonl');
  if (existsSync(samplesFile))
    for (const line of readFileSync(samplesFile, 'utf8').split('\n')) {
      if (!line.trim()) continue;
      try {
        const l = JSON.parse(line) as SampleLine;
        if (l.episode === episode.key) lines.push(l);
      } catch {
        // a torn last line
      }
    }
  const tokenizer = tokenizerOf(runDir);
  const tokens: RolloutToken[] = [];
  const turnStarts: number[] = [];
  samples.forEach((s, si) => {
    const scored = lines.find((l) => l.sample === si);
    // Position p of the graph scores token p + 1.
    const at = (a: number[] | undefined, j: number) => (a && j >= 1 && j - 1 < a.length ? a[j - 1]! : null);
    const base = tokens.length;
    for (const seg of s.segments) if (seg.kind === 'sampled') turnStarts.push(base + seg.start);
    s.ids.forEach((id, j) => {
      const seg = s.segments.find((g) => j >= g.start && j < g.start + g.length);
      const inLoss = s.mask[j] === 1;
      tokens.push({
        id,
        text: tokenizer ? tokenizer.decode([id]) : `⟨${id}⟩`,
        kind: seg?.kind ?? 'prompt',
        mask: s.mask[j]!,
        logprob: s.logprobs[j] ?? null,
        advantage: inLoss ? at(scored?.advantages, j) : null,
        value: inLoss ? at(scored?.values, j) : null,
        tisWeight: inLoss ? at(scored?.tisWeights, j) : null,
        experts: s.routing?.[j] ?? null,
        gates: null,
      });
    });
  });
  const ledgerEvents = t.turns.flatMap((turn) =>
    turn.ledger
      ? [
          {
            turn: turn.index,
            verdict: turn.ledger.verdict,
            tokenIndex: turnStarts[turn.index] ?? 0,
            maskedSampled: turn.ledger.maskedSampled,
          },
        ]
      : [],
  );
  const numExperts = tokens.reduce((n, tk) => Math.max(n, ...(tk.experts?.flat() ?? [-1])), -1) + 1;
  return {
    runId,
    step,
    key: episode.key,
    episode,
    tokens,
    turnStarts,
    ledgerEvents,
    numExperts: numExperts > 0 ? numExperts : null,
  };
}
