/**
 * The tensors a config.json calls for (the engine's `parameterSpecs`) against those a file holds, and the
 * optimizer-state naming rule. Used when saving (nothing inconsistent is ever written) and when loading
 * (checked on the safetensors header, before any tensor data is read).
 */
import { parameterSpecs, type ModelConfig } from '../config';
import type { Dtype } from '../safetensors/index';
import { CheckpointError } from './errors';

const FLOAT_DTYPES: readonly Dtype[] = ['F32', 'F16', 'BF16'];

export interface TensorShape {
  name: string;
  dtype: Dtype;
  shape: readonly number[];
}

const fmt = (shape: readonly number[]) => `[${shape.join(', ')}]`;
const same = (a: readonly number[], b: readonly number[]) => a.length === b.length && a.every((x, i) => x === b[i]);

/** The expected shape of each parameter, in the engine's order. */
export function expectedParameters(config: ModelConfig): Map<string, number[]> {
  return new Map(parameterSpecs(config).map((p) => [p.name, p.shape]));
}

/** Check a model file's tensors against config.json: every parameter present, float, with its shape; nothing else. */
export function checkParameters(config: ModelConfig, found: readonly TensorShape[], file: string): void {
  const expected = expectedParameters(config);
  const seen = new Set<string>();
  const dtypes = new Set<Dtype>();
  for (const t of found) {
    const shape = expected.get(t.name);
    if (!shape) {
      const hint =
        t.name === 'lm_head.weight' && config.tie_word_embeddings
          ? ' (config.json has tie_word_embeddings: true, so the LM head is the embedding and is not stored)'
          : '';
      throw new CheckpointError(
        'SHAPE_MISMATCH',
        `${file}: tensor "${t.name}" is not a parameter of the model config.json describes${hint}`,
        file,
      );
    }
    if (!FLOAT_DTYPES.includes(t.dtype))
      throw new CheckpointError(
        'SHAPE_MISMATCH',
        `${file}: tensor "${t.name}" is ${t.dtype}; weights must be F32, F16 or BF16`,
        file,
      );
    if (!same(t.shape, shape)) {
      throw new CheckpointError(
        'SHAPE_MISMATCH',
        `${file}: tensor "${t.name}" has shape ${fmt(t.shape)} but config.json (${describe(config)}) calls for ${fmt(shape)}`,
        file,
      );
    }
    seen.add(t.name);
    dtypes.add(t.dtype);
  }
  for (const name of expected.keys()) {
    if (!seen.has(name))
      throw new CheckpointError(
        'SHAPE_MISMATCH',
        `${file}: tensor "${name}" is missing; config.json (${describe(config)}) calls for it`,
        file,
      );
  }
  if (dtypes.size > 1)
    throw new CheckpointError(
      'SHAPE_MISMATCH',
      `${file}: weights mix dtypes (${[...dtypes].join(', ')}); one dtype per file`,
      file,
    );
}

/**
 * Optimizer state: tensors named `<parameter>.<slot>` (e.g. `embed.weight.exp_avg`), F32, each with its
 * parameter's shape; scalars such as the step count go in the file's `__metadata__`.
 */
export function checkOptimizerState(config: ModelConfig, found: readonly TensorShape[], file: string): void {
  const expected = expectedParameters(config);
  for (const t of found) {
    const dot = t.name.lastIndexOf('.');
    const param = dot > 0 ? t.name.slice(0, dot) : '';
    const shape = expected.get(param);
    if (!shape || dot === t.name.length - 1) {
      throw new CheckpointError(
        'SHAPE_MISMATCH',
        `${file}: tensor "${t.name}" is not named <parameter>.<slot> after a parameter of config.json`,
        file,
      );
    }
    if (t.dtype !== 'F32')
      throw new CheckpointError(
        'SHAPE_MISMATCH',
        `${file}: tensor "${t.name}" is ${t.dtype}; optimizer state is F32`,
        file,
      );
    if (!same(t.shape, shape))
      throw new CheckpointError(
        'SHAPE_MISMATCH',
        `${file}: tensor "${t.name}" has shape ${fmt(t.shape)} but its parameter "${param}" has ${fmt(shape)}`,
        file,
      );
  }
}

function describe(c: ModelConfig): string {
  return `vocab_size ${c.vocab_size}, hidden_size ${c.hidden_size}, ${c.num_hidden_layers} layers, ${c.num_attention_heads}/${c.num_key_value_heads} heads of ${c.head_dim}, ${c.num_experts} experts of ${c.moe_intermediate_size}`;
}
