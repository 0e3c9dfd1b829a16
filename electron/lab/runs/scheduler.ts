/**
 * Runs the episodes of an evaluation: every (task, attempt) not yet recorded, `concurrency` at a time, each
 * under its own deadline (a straggler is cut there, recorded and counted), all cancellable. A cancelled
 * episode is not recorded, so a resume runs it again; a finished one is recorded exactly once.
 */
import { createHash } from 'node:crypto';
import type { EpisodeRecord, RunningEpisode } from '../../domain/runs';
import type { Turn } from '../../domain/trajectory';
import { EpisodeStop } from '../../agent/episode/loop';
import { episodeKey, type RunStore } from './store';

export interface TaskRef {
  id: string;
  category: string;
  difficulty: string;
}

export interface EpisodeJob<T> {
  task: T;
  ref: TaskRef;
  attempt: number;
  key: string;
  seed: number;
  dir: { abs: string; rel: string };
  /** Aborted with an `EpisodeStop` (cancelled, or the episode's deadline). */
  signal: AbortSignal;
  onTurn(turn: Turn): void;
  /** Terminal bytes of the episode's shell, for live views. */
  onData(data: string): void;
}

export type EpisodeRunner<T> = (job: EpisodeJob<T>) => Promise<EpisodeRecord>;

export interface ScheduleEvents {
  started?(episode: RunningEpisode): void;
  turn?(key: string, turn: Turn): void;
  data?(key: string, data: string): void;
  finished?(record: EpisodeRecord): void;
  /** An episode failed in a way that produced no record (a bug): the run goes on, the error is reported. */
  failed?(key: string, error: Error): void;
}

export interface ScheduleOptions<T> {
  store: RunStore;
  tasks: { ref: TaskRef; task: T }[];
  attempts: number;
  concurrency: number;
  /** The hard wall-clock limit of an episode of this task, or null for none. */
  deadlineSec(task: T): number | null;
  seed: number;
  run: EpisodeRunner<T>;
  signal?: AbortSignal;
  events?: ScheduleEvents;
}

/** A per-episode seed: stable across resumes, different for every task and attempt. */
export function episodeSeed(runSeed: number, key: string): number {
  return createHash('sha256').update(`${runSeed}:${key}`).digest().readUInt32BE(0) & 0x7fffffff;
}

export function describeAction(turn: Turn): string | null {
  const a = turn.actions[0];
  if (!a) return turn.parseError ? 'unparsed turn' : null;
  if (a.tool === 'bash') return `bash: ${a.command.split('\n')[0]!.slice(0, 80)}`;
  if (a.tool === 'keys') return `keys: ${a.keys.join(' ').slice(0, 80)}`;
  return 'submit';
}

export async function runSchedule<T>(options: ScheduleOptions<T>): Promise<{ cancelled: boolean }> {
  const { store, events = {} } = options;
  const pending = options.tasks.flatMap(({ ref, task }) =>
    Array.from({ length: options.attempts }, (_, attempt) => ({
      ref,
      task,
      attempt,
      key: episodeKey(ref.id, attempt),
    })).filter((j) => !store.has(j.key)),
  );
  const controllers = new Set<AbortController>();
  const cancel = () => {
    for (const c of controllers) c.abort(new EpisodeStop('cancelled'));
  };
  options.signal?.addEventListener('abort', cancel, { once: true });

  const worker = async () => {
    for (;;) {
      if (options.signal?.aborted) return;
      const job = pending.shift();
      if (!job) return;
      const controller = new AbortController();
      controllers.add(controller);
      const limit = options.deadlineSec(job.task);
      const deadline = limit ? setTimeout(() => controller.abort(new EpisodeStop('deadline')), limit * 1000) : null;
      const running: RunningEpisode = {
        key: job.key,
        taskId: job.ref.id,
        attempt: job.attempt,
        startedAt: new Date().toISOString(),
        turns: 0,
        lastAction: null,
      };
      events.started?.(running);
      try {
        const record = await options.run({
          task: job.task,
          ref: job.ref,
          attempt: job.attempt,
          key: job.key,
          seed: episodeSeed(options.seed, job.key),
          dir: store.prepareEpisodeDir(job.ref.id, job.attempt),
          signal: controller.signal,
          onTurn: (turn) => events.turn?.(job.key, turn),
          onData: (data) => events.data?.(job.key, data),
        });
        // A cancelled episode leaves no record: a resume runs it again.
        if (record.stopReason !== 'cancelled') {
          await store.append(record);
          events.finished?.(record);
        }
      } catch (error) {
        events.failed?.(job.key, error as Error);
      } finally {
        if (deadline) clearTimeout(deadline);
        controllers.delete(controller);
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(options.concurrency, pending.length)) }, worker));
  options.signal?.removeEventListener('abort', cancel);
  return { cancelled: !!options.signal?.aborted };
}
