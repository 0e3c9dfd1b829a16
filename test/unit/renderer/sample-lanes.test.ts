/**
 * One request on two models at once (the playground's side by side) against a fake transport: both sample
 * the same request under their own ids, each token goes to its own lane, Stop names both, and one model's
 * failure leaves the other's result.
 */
import { beforeEach, describe, expect, test } from 'vitest';
import type {
  PlaygroundRequest,
  PlaygroundResult,
  PlaygroundToken,
  PlaygroundTokenEvent,
} from '../../../electron/domain/models';
import {
  sampleLanes,
  stopLanes,
  withToken,
  type LaneEvents,
  type SampleTransport,
} from '../../../renderer/src/stores/sample-lanes';

interface Pending {
  request: PlaygroundRequest;
  resolve(r: PlaygroundResult): void;
  reject(e: Error): void;
}
let pending: Pending[];
let stopped: string[];
let listeners: Set<(e: PlaygroundTokenEvent) => void>;

const lab = {
  methods: {
    'models.sample': (request: PlaygroundRequest) =>
      new Promise<PlaygroundResult>((resolve, reject) => pending.push({ request, resolve, reject })),
    'models.stopSample': ({ sampleId }: { sampleId: string }) => {
      stopped.push(sampleId);
      return Promise.resolve({ stopped: true });
    },
  },
  on: (_event: string, listener: (e: PlaygroundTokenEvent) => void) => {
    listeners.add(listener);
    return () => listeners.delete(listener);
  },
} as unknown as SampleTransport;

const token = (id: number): PlaygroundToken => ({ id, text: `t${id}`, logprob: -0.5, experts: null, gates: null });
const result = (tokens: PlaygroundToken[], stopReason = 'length'): PlaygroundResult => ({
  promptTokens: 3,
  tokens,
  stopReason,
  seed: 1,
  provider: 'cpu',
  providerFallbackReason: null,
  numExperts: null,
  timing: { prefillMs: 1, decodeMs: 1 },
});
const emit = (sampleId: string, index: number, t: PlaygroundToken) =>
  listeners.forEach((l) => l({ sampleId, index, token: t }));
const LANES = [
  { path: '/m/a', sampleId: 'sa' },
  { path: '/m/b', sampleId: 'sb' },
];

/** What each lane saw. */
function recorder() {
  const seen = [0, 1].map(() => ({
    tokens: [] as PlaygroundToken[],
    result: null as PlaygroundResult | null,
    error: null as unknown,
  }));
  const on: LaneEvents = {
    token: (lane, index, t) => (seen[lane]!.tokens = withToken(seen[lane]!.tokens, index, t)),
    result: (lane, r) => (seen[lane]!.result = r),
    error: (lane, e) => (seen[lane]!.error = e),
  };
  return { seen, on };
}

beforeEach(() => {
  pending = [];
  stopped = [];
  listeners = new Set();
});

describe('sampling two models side by side', () => {
  test('both sample the same request at once, each streams into its own lane, Stop names both', async () => {
    const { seen, on } = recorder();
    const done = sampleLanes(lab, { prompt: 'ls', maxTokens: 8 }, LANES, on);
    expect(pending.map((p) => [p.request.path, p.request.sampleId, p.request.prompt])).toEqual([
      ['/m/a', 'sa', 'ls'],
      ['/m/b', 'sb', 'ls'],
    ]);
    emit('sa', 0, token(1));
    emit('sb', 0, token(2));
    emit('sb', 1, token(3));
    emit('other', 0, token(9));
    expect(seen.map((s) => s.tokens.map((t) => t.id))).toEqual([[1], [2, 3]]);
    await stopLanes(lab, ['sa', 'sb']);
    expect(stopped).toEqual(['sa', 'sb']);
    pending[0]!.resolve(result([token(1)], 'stopped'));
    await Promise.resolve();
    emit('sa', 1, token(4)); // late, after its result: not shown
    expect(seen[0]!.tokens).toHaveLength(1);
    pending[1]!.resolve(result([token(2), token(3)], 'stopped'));
    await done;
    expect(seen.map((s) => s.result?.stopReason)).toEqual(['stopped', 'stopped']);
    expect(listeners.size).toBe(0);
  });

  test("one model's failure is its own: the other keeps its result", async () => {
    const { seen, on } = recorder();
    const done = sampleLanes(lab, { prompt: 'ls' }, LANES, on);
    pending[1]!.reject(new Error('no tokenizer'));
    pending[0]!.resolve(result([token(5)]));
    await done;
    expect(seen[0]!.result!.tokens[0]!.id).toBe(5);
    expect(seen[0]!.error).toBeNull();
    expect((seen[1]!.error as Error).message).toBe('no tokenizer');
    expect(seen[1]!.result).toBeNull();
  });

  test('withToken places a token at its index without changing the strip it was given', () => {
    const a = [token(1)];
    expect(withToken(a, 2, token(3)).map((t) => t?.id)).toEqual([1, undefined, 3]);
    expect(a).toHaveLength(1);
  });
});
