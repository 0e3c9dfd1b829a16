/**
 * One request sampled on several models at once (the playground's side by side): each model under its own
 * sample id, its streamed tokens routed to it, its result or its error its own. The transport is the lab
 * API, passed in (a fake in the tests).
 */
import type { PlaygroundRequest, PlaygroundResult, PlaygroundToken } from '../../../electron/domain/models';
import type { LabApi } from '../../../electron/ipc/common/lab-api';

export type SampleTransport = Pick<LabApi, 'methods' | 'on'>;

/** How long one sample may take: a long generation on a loaded CPU. */
export const SAMPLE_TIMEOUT_MS = 600_000;

export interface Lane {
  path: string;
  sampleId: string;
}

/** What happens to each lane (by its index): a streamed token, then its result or its error. */
export interface LaneEvents {
  token(lane: number, index: number, token: PlaygroundToken): void;
  result(lane: number, result: PlaygroundResult): void;
  error(lane: number, error: unknown): void;
}

/** Sample `request` on every lane at once; resolves when each has its result or its error. */
export async function sampleLanes(
  lab: SampleTransport,
  request: Omit<PlaygroundRequest, 'path' | 'sampleId'>,
  lanes: readonly Lane[],
  on: LaneEvents,
): Promise<void> {
  const done = new Set<number>();
  const off = lab.on('models.sampleToken', (e) => {
    const lane = lanes.findIndex((l) => l.sampleId === e.sampleId);
    if (lane >= 0 && !done.has(lane)) on.token(lane, e.index, e.token);
  });
  const finish = (lane: number) => done.add(lane);
  try {
    await Promise.all(
      lanes.map((l, i) =>
        lab.methods['models.sample'](
          { ...request, path: l.path, sampleId: l.sampleId },
          { timeoutMs: SAMPLE_TIMEOUT_MS },
        ).then(
          (r) => (finish(i), on.result(i, r)),
          (error: unknown) => (finish(i), on.error(i, error)),
        ),
      ),
    );
  } finally {
    off();
  }
}

/** Stop the samples in flight; one that has just finished answers { stopped: false }. */
export async function stopLanes(lab: SampleTransport, sampleIds: readonly string[]): Promise<void> {
  await Promise.all(sampleIds.map((sampleId) => lab.methods['models.stopSample']({ sampleId })));
}

/** The streamed tokens with one more at its index. */
export function withToken(
  tokens: readonly PlaygroundToken[],
  index: number,
  token: PlaygroundToken,
): PlaygroundToken[] {
  const next = tokens.slice();
  next[index] = token;
  return next;
}
