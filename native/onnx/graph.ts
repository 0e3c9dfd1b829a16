/**
 * Builds an ONNX graph node by node: fresh names, inputs, outputs, initializers, constants, opsets.
 * Shapes are not inferred here (onnxruntime does that); the autodiff layer tracks what it needs.
 */
import { writeExternalData } from './external-data';
import {
  DEFAULT_OPSET,
  encodeModel,
  type AttributeValue,
  type DataType,
  type Dim,
  type FloatType,
  type GraphProto,
  type NodeProto,
  type TensorData,
  type TensorProto,
  type ValueInfo,
} from './proto';

/** What node attributes are written as: plain integers, strings, integer lists, or tagged values. */
export type AttributeInput = AttributeValue | number | bigint | string | readonly number[] | readonly string[];

/** A float attribute (always explicit: see proto.ts). */
export const floatAttr = (value: number): AttributeValue => ({ kind: 'float', value });
export const floatsAttr = (value: readonly number[]): AttributeValue => ({ kind: 'floats', value });
export const tensorAttr = (value: TensorProto): AttributeValue => ({ kind: 'tensor', value });

function toAttribute(name: string, value: AttributeInput): AttributeValue {
  if (typeof value === 'bigint') return { kind: 'int', value };
  if (typeof value === 'number') {
    if (!Number.isInteger(value))
      throw new TypeError(`attribute '${name}' = ${value}: wrap float attributes in floatAttr()`);
    return { kind: 'int', value };
  }
  if (typeof value === 'string') return { kind: 'string', value };
  if (Array.isArray(value)) {
    if (value.every((v) => typeof v === 'string')) return { kind: 'strings', value: value as string[] };
    if (value.every((v) => Number.isInteger(v))) return { kind: 'ints', value: value as number[] };
    throw new TypeError(`attribute '${name}': lists must be all integers or all strings (use floatsAttr for floats)`);
  }
  return value as AttributeValue;
}

export interface OpOptions {
  domain?: string;
  /** Explicit output names (else fresh ones). */
  outputs?: string[];
  /** Number of outputs when names are fresh (default 1). */
  outputCount?: number;
}

export function typedArrayFor(dtype: DataType, values: readonly number[] | readonly bigint[]): TensorData {
  switch (dtype) {
    case 'float32':
      return Float32Array.from(values as number[]);
    case 'float64':
      return Float64Array.from(values as number[]);
    case 'int64':
      return BigInt64Array.from((values as (number | bigint)[]).map((v) => BigInt(v)));
    case 'int32':
      return Int32Array.from(values as number[]);
    case 'bool':
    case 'uint8':
      return Uint8Array.from(values as number[]);
    case 'int8':
      return Int8Array.from(values as number[]);
    case 'float16':
      throw new TypeError('float16 constants are written as raw Uint16Array data');
  }
}

export class GraphBuilder {
  readonly nodes: NodeProto[] = [];
  readonly initializers: TensorProto[] = [];
  readonly inputs: ValueInfo[] = [];
  readonly outputs: ValueInfo[] = [];
  private counter = 0;
  private readonly constants = new Map<string, string>();
  private readonly opsets: Record<string, number>;
  private parent: GraphBuilder | null = null;

  constructor(
    readonly name = 'graph',
    opsets: Record<string, number> = { '': DEFAULT_OPSET },
  ) {
    this.opsets = { ...opsets };
  }

  fresh(prefix = 't'): string {
    if (this.parent) return this.parent.fresh(prefix);
    return `${prefix}_${this.counter++}`;
  }

  useOpset(domain: string, version: number): void {
    this.opsets[domain] = Math.max(this.opsets[domain] ?? 0, version);
    this.parent?.useOpset(domain, version);
  }

  /**
   * A builder for a subgraph (the body of an If): it may read this graph's values by name, its own names
   * come from this builder's counter (so none shadow an outer one), and its opsets are this model's.
   */
  subgraph(name: string): GraphBuilder {
    const child = new GraphBuilder(name, this.opsets);
    child.parent = this;
    return child;
  }

  /** This builder's graph, for a 'graph' attribute (an If's branch). */
  toGraph(): GraphProto {
    return {
      name: this.name,
      nodes: this.nodes,
      initializers: this.initializers,
      inputs: this.inputs,
      outputs: this.outputs,
    };
  }

  input(name: string, dtype: DataType, shape: readonly Dim[]): string {
    this.inputs.push({ name, dtype, shape });
    return name;
  }

  /** Declare `value` a graph output named `name` (an Identity node when the names differ). */
  output(value: string, name: string, dtype: DataType, shape: readonly Dim[]): string {
    if (value !== name) this.op('Identity', [value], {}, { outputs: [name] });
    this.outputs.push({ name, dtype, shape });
    return name;
  }

  initializer(name: string, dtype: DataType, dims: readonly number[], data: TensorData): string {
    this.initializers.push({ name, dtype, dims, data });
    return name;
  }

  /** A constant tensor; identical small constants are shared. */
  constant(dtype: DataType, dims: readonly number[], values: readonly number[] | readonly bigint[]): string {
    const key = values.length <= 16 ? `${dtype}|${dims.join(',')}|${values.join(',')}` : null;
    const known = key ? this.constants.get(key) : undefined;
    if (known) return known;
    const name = this.initializer(this.fresh('const'), dtype, dims, typedArrayFor(dtype, values));
    if (key) this.constants.set(key, name);
    return name;
  }

  ints(values: readonly number[]): string {
    return this.constant('int64', [values.length], values);
  }

  int(value: number): string {
    return this.constant('int64', [], [value]);
  }

  scalar(dtype: FloatType, value: number): string {
    return this.constant(dtype, [], [value]);
  }

  /** Add a node; returns its output names. */
  ops(
    opType: string,
    inputs: readonly string[],
    attributes: Record<string, AttributeInput | undefined> = {},
    options: OpOptions = {},
  ): string[] {
    if (options.domain) this.useOpset(options.domain, 1);
    const outputs = options.outputs ?? Array.from({ length: options.outputCount ?? 1 }, () => this.fresh(opType));
    const attrs: Record<string, AttributeValue> = {};
    for (const [k, v] of Object.entries(attributes)) if (v !== undefined) attrs[k] = toAttribute(k, v);
    this.nodes.push({
      opType,
      inputs,
      outputs,
      name: this.fresh(`n_${opType}`),
      domain: options.domain ?? '',
      attributes: attrs,
    });
    return outputs;
  }

  /** Add a node with one output; returns its name. */
  op(
    opType: string,
    inputs: readonly string[],
    attributes: Record<string, AttributeInput | undefined> = {},
    options: OpOptions = {},
  ): string {
    return this.ops(opType, inputs, attributes, options)[0] as string;
  }

  /**
   * The model proto. With `externalData` (a file path), the large initializers are written there and the
   * proto refers to them (external-data.ts): the proto must then be saved in that file's folder.
   */
  toModel(options: { producer?: string; docString?: string; externalData?: string } = {}): Uint8Array {
    if (options.externalData) writeExternalData(this.initializers, options.externalData);
    return encodeModel({
      graph: {
        name: this.name,
        nodes: liveNodes(this.nodes, this.outputs),
        initializers: this.initializers,
        inputs: this.inputs,
        outputs: this.outputs,
      },
      opsets: this.opsets,
      ...(options.producer ? { producer: options.producer } : {}),
      ...(options.docString ? { docString: options.docString } : {}),
    });
  }
}

/**
 * The nodes some graph output depends on, in their order. The backward pass differentiates every recorded
 * op, so it also emits gradients that no output reads (of constants such as an attention scale or mask,
 * summed over whole activations); onnxruntime runs every node it is given, so they are dropped here.
 * Nodes are appended in topological order, so one reverse pass finds them.
 */
export function liveNodes(nodes: readonly NodeProto[], outputs: readonly ValueInfo[]): NodeProto[] {
  const needed = new Set(outputs.map((o) => o.name));
  const keep: boolean[] = new Array<boolean>(nodes.length).fill(false);
  for (let i = nodes.length - 1; i >= 0; i--) {
    const node = nodes[i]!;
    if (!node.outputs.some((o) => needed.has(o))) continue;
    keep[i] = true;
    for (const input of node.inputs) if (input) needed.add(input);
    for (const name of subgraphReads(node)) needed.add(name);
  }
  return nodes.filter((_, i) => keep[i]);
}

/** Every value name read inside a node's subgraphs (an If's branches read outer values by name). */
function subgraphReads(node: NodeProto): string[] {
  const out: string[] = [];
  for (const a of Object.values(node.attributes)) {
    if (a.kind !== 'graph') continue;
    for (const n of a.value.nodes) out.push(...n.inputs.filter(Boolean), ...subgraphReads(n));
    out.push(...a.value.outputs.map((o) => o.name));
  }
  return out;
}
