/**
 * The training forward with shared prompt prefixes computed once. A PPO group's episodes start with the same
 * tokens (system prompt, tools, instruction) and today each of its rows forwards them again; here a
 * micro-batch holds G prefix rows [G, P] and B suffix rows [B, T], and every suffix row attends to the keys
 * and values of its prefix row (gathered by `prefixOf`, only the first `prefixLength` of them) before its
 * own, its positions continuing where the prefix ends. Causal attention makes this exact: a prefix token's
 * state never depends on what follows it, so it is the same in every row that shares it, and the gradient
 * reaching it is the sum of what each row sends back (Gather's backward adds).
 *
 * The feed-forward blocks run once over all G x P + B x T tokens (prefix rows first), so the routing, the
 * forced experts of R3 and the load-balancing weights are over that one list.
 */
import type { AutoDiff, Value } from '../onnx/autodiff';
import { paramName, type ModelConfig } from './config';
import { causalMask, LayerBuilder, staticPositions, type ExpertCompute, type LayerRouting } from './transformer';

export interface PrefixForwardInputs {
  config: ModelConfig;
  params: ReadonlyMap<string, Value>;
  expertCompute: ExpertCompute;
  /** The causal query block at a length (see training-graph's attentionBlock), or none. */
  attentionChunk: (length: number) => number | undefined;
  prefix: {
    /** [G, P] int64, right-padded. */
    ids: Value;
    /** [L, G, P, k] int64: R3's experts of the prefix tokens. */
    forcedExperts?: Value;
    groups: number;
    length: number;
  };
  rows: {
    /** [B, T] int64: each row's tokens after its prefix, right-padded. */
    ids: Value;
    /** [B, T] int64: their absolute positions (the prefix's length + t). */
    positions: Value;
    /** [B] int64: the prefix row each row reads. */
    prefixOf: Value;
    /** [B] int64: how many of that prefix's positions are its own (0: none; the row starts at position 0). */
    prefixLength: Value;
    /** [L, B, T, k] int64. */
    forcedExperts?: Value;
    batch: number;
    length: number;
  };
}

export interface PrefixForwardResult {
  /** [B, T, H] of the suffix rows after the final norm. */
  hidden: Value;
  /** Per layer, over the G x P prefix tokens then the B x T row tokens. */
  routing: LayerRouting[];
}

export function sharedPrefixForward(ad: AutoDiff, inp: PrefixForwardInputs): PrefixForwardResult {
  const { config, params, expertCompute } = inp;
  const g = ad.graph;
  const { groups: G, length: P } = inp.prefix;
  const { batch: B, length: T } = inp.rows;
  const H = config.hidden_size;
  const N = G * P + B * T;
  const { positions: prefixPositions, attentionMask: prefixCausal } = staticPositions(ad, G, P);
  const prefixLayers = new LayerBuilder(ad, {
    config,
    params,
    ids: inp.prefix.ids,
    positions: prefixPositions,
    attentionMask: prefixCausal,
    expertCompute,
    attentionChunk: inp.attentionChunk(P),
    batch: G,
    length: P,
  });
  const rowLayers = new LayerBuilder(ad, {
    config,
    params,
    ids: inp.rows.ids,
    positions: inp.rows.positions,
    attentionMask: rowsMask(ad, inp.rows.prefixLength, B, P, T),
    expertCompute,
    attentionChunk: inp.attentionChunk(T),
    batch: B,
    length: T,
    prefix: {
      length: P,
      at: (l) => {
        const own = prefixLayers.attended[l]!;
        return { key: ad.gather(own.key, inp.rows.prefixOf), value: ad.gather(own.value, inp.rows.prefixOf) };
      },
    },
  });
  // The feed-forward over every token at once: one set of expert ops per layer instead of two. Its rotary
  // tables and mask are never read (the graph drops them).
  const tokenLayers = new LayerBuilder(ad, {
    config,
    params,
    ids: inp.rows.ids,
    positions: ad.wrap(g.constant('int64', [1, N], new Array<number>(N).fill(0)), [1, N], 'int64'),
    attentionMask: prefixCausal,
    forcedExperts: forcedOfAll(ad, config, inp),
    expertCompute,
    batch: 1,
    length: N,
  });
  const embed = params.get(paramName.embed)!;
  let prefix = ad.gather(embed, inp.prefix.ids); // [G, P, H]
  let rows = ad.gather(embed, inp.rows.ids); // [B, T, H]
  for (let l = 0; l < config.num_hidden_layers; l++) {
    prefix = ad.add(prefix, prefixLayers.attention(prefix, l));
    rows = ad.add(rows, rowLayers.attention(rows, l));
    const all = ad.concat([ad.reshape(prefix, [G * P, H]), ad.reshape(rows, [B * T, H])], 0);
    const ff = tokenLayers.feedForward(all, l); // [N, H]
    prefix = ad.add(prefix, ad.reshape(ad.slice(ff, 0, 0, G * P), [G, P, H]));
    rows = ad.add(rows, ad.reshape(ad.slice(ff, 0, G * P, N), [B, T, H]));
  }
  return { hidden: rowLayers.norm(rows, params.get(paramName.finalNorm)!), routing: tokenLayers.routing };
}

/** [B, 1, 1, T, P + T] bool: row b's query t reads its prefix's first prefixLength[b] keys and its own keys up to t. */
function rowsMask(ad: AutoDiff, prefixLength: Value, B: number, P: number, T: number): Value {
  const g = ad.graph;
  const range = g.constant(
    'int64',
    [1, P],
    Array.from({ length: P }, (_, i) => i),
  );
  const lengths = g.op('Unsqueeze', [prefixLength.name, g.ints([1])]); // [B, 1]
  const visible = g.op('Reshape', [g.op('Less', [range, lengths]), g.ints([B, 1, 1, 1, P])]);
  const before = g.op('Expand', [visible, g.ints([B, 1, 1, T, P])]);
  const own = g.op('Expand', [causalMask(ad, T).name, g.ints([B, 1, 1, T, T])]);
  return ad.wrap(g.op('Concat', [before, own], { axis: 4 }), [B, 1, 1, T, P + T], 'bool');
}

/** [L, 1, G x P + B x T, k]: the prefix tokens' forced experts, then the rows'. */
function forcedOfAll(ad: AutoDiff, config: ModelConfig, inp: PrefixForwardInputs): Value | undefined {
  const { forcedExperts: prefix } = inp.prefix;
  const { forcedExperts: rows } = inp.rows;
  if (!prefix || !rows) return undefined;
  const g = ad.graph;
  const L = config.num_hidden_layers;
  const k = config.num_experts_per_tok;
  const N = inp.prefix.groups * inp.prefix.length + inp.rows.batch * inp.rows.length;
  const flat = (v: Value, n: number) => g.op('Reshape', [v.name, g.ints([L, 1, n, k])]);
  return ad.wrap(
    g.op(
      'Concat',
      [flat(prefix, inp.prefix.groups * inp.prefix.length), flat(rows, inp.rows.batch * inp.rows.length)],
      { axis: 2 },
    ),
    [L, 1, N, k],
    'int64',
  );
}
