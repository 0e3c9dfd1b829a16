/**
 * ONNX ModelProto as typed plain data, and its encoder. Field numbers are those of onnx/onnx.proto
 * (stable since IR version 3). We write IR version 10 and ai.onnx opsets 1..26 (what onnxruntime 1.30 loads).
 */
import { ProtobufWriter } from './wire';

export const IR_VERSION = 10;
export const MAX_OPSET = 26;
export const DEFAULT_OPSET = 21;

export const DATA_TYPES = {
  float32: 1,
  uint8: 2,
  int8: 3,
  int32: 6,
  int64: 7,
  bool: 9,
  float16: 10,
  float64: 11,
} as const;
export type DataType = keyof typeof DATA_TYPES;
/** The two float types graphs are built in: float32 for use, float64 for gradient checks. */
export type FloatType = 'float32' | 'float64';

export type TensorData =
  Float32Array | Float64Array | Int32Array | BigInt64Array | Uint8Array | Int8Array | Uint16Array;

export interface TensorProto {
  name: string;
  dtype: DataType;
  dims: readonly number[];
  /** Little-endian raw data; booleans as Uint8Array of 0/1, float16 as Uint16Array bit patterns. */
  data: TensorData;
  /**
   * Where the data lies instead of inside the proto (ONNX external data: a file next to the model, a byte
   * offset and length); `data` is then only checked against the dims, not encoded.
   */
  external?: { location: string; offset: number; length: number };
}

/** A dimension: a fixed size or a symbolic name (dynamic axis). */
export type Dim = number | string;

export interface ValueInfo {
  name: string;
  dtype: DataType;
  shape: readonly Dim[];
}

/**
 * Attribute values are tagged: JavaScript cannot tell 2.0 from 2, and onnxruntime rejects a float
 * attribute encoded as an int, so floats are always explicit.
 */
export type AttributeValue =
  | { kind: 'float'; value: number }
  | { kind: 'int'; value: number | bigint }
  | { kind: 'string'; value: string }
  | { kind: 'floats'; value: readonly number[] }
  | { kind: 'ints'; value: readonly number[] }
  | { kind: 'strings'; value: readonly string[] }
  | { kind: 'tensor'; value: TensorProto }
  | { kind: 'graph'; value: GraphProto };

export interface NodeProto {
  opType: string;
  inputs: readonly string[];
  outputs: readonly string[];
  name: string;
  domain: string;
  attributes: Readonly<Record<string, AttributeValue>>;
}

export interface GraphProto {
  name: string;
  nodes: readonly NodeProto[];
  initializers: readonly TensorProto[];
  inputs: readonly ValueInfo[];
  outputs: readonly ValueInfo[];
}

export interface ModelProto {
  graph: GraphProto;
  /** Opset version per domain; '' is ai.onnx. */
  opsets: Readonly<Record<string, number>>;
  producer?: string;
  docString?: string;
}

const ATTRIBUTE_TYPES = { float: 1, int: 2, string: 3, tensor: 4, graph: 5, floats: 6, ints: 7, strings: 8 } as const;

function encodeTensor(w: ProtobufWriter, t: TensorProto): void {
  if (t.dims.length) w.fieldPackedVarints(1, t.dims);
  w.fieldVarint(2, DATA_TYPES[t.dtype]);
  if (t.name) w.fieldString(8, t.name);
  const expected = t.dims.reduce((a, b) => a * b, 1);
  if (t.data.length !== expected)
    throw new Error(
      `tensor '${t.name}': ${t.data.length} values for dims [${t.dims.join(',')}] (${expected} expected)`,
    );
  if (t.external) {
    // external_data (13): StringStringEntryProto {key 1, value 2}; data_location (14): EXTERNAL = 1.
    const entries: [string, string][] = [
      ['location', t.external.location],
      ['offset', String(t.external.offset)],
      ['length', String(t.external.length)],
    ];
    for (const [key, value] of entries) {
      w.fieldMessage(13, (e) => {
        e.fieldString(1, key);
        e.fieldString(2, value);
      });
    }
    w.fieldVarint(14, 1);
    return;
  }
  w.fieldBytes(9, new Uint8Array(t.data.buffer, t.data.byteOffset, t.data.byteLength));
}

function encodeValueInfo(w: ProtobufWriter, v: ValueInfo): void {
  w.fieldString(1, v.name);
  w.fieldMessage(2, (type) =>
    type.fieldMessage(1, (tensorType) => {
      tensorType.fieldVarint(1, DATA_TYPES[v.dtype]);
      tensorType.fieldMessage(2, (shape) => {
        for (const d of v.shape)
          shape.fieldMessage(1, (dim) => (typeof d === 'number' ? dim.fieldVarint(1, d) : dim.fieldString(2, d)));
      });
    }),
  );
}

function encodeAttribute(w: ProtobufWriter, name: string, a: AttributeValue): void {
  w.fieldString(1, name);
  w.fieldVarint(20, ATTRIBUTE_TYPES[a.kind]);
  switch (a.kind) {
    case 'float':
      return w.fieldFloat(2, a.value);
    case 'int':
      return w.fieldVarint(3, a.value);
    case 'string':
      return w.fieldString(4, a.value);
    case 'tensor':
      return w.fieldMessage(5, (t) => encodeTensor(t, a.value));
    case 'graph':
      return w.fieldMessage(6, (g) => encodeGraph(g, a.value));
    case 'floats':
      return w.fieldPackedFloats(7, a.value);
    case 'ints':
      return w.fieldPackedVarints(8, a.value);
    case 'strings':
      for (const s of a.value) w.fieldString(9, s);
      return;
  }
}

function encodeNode(w: ProtobufWriter, n: NodeProto): void {
  for (const i of n.inputs) w.fieldString(1, i);
  for (const o of n.outputs) w.fieldString(2, o);
  if (n.name) w.fieldString(3, n.name);
  w.fieldString(4, n.opType);
  for (const [name, value] of Object.entries(n.attributes)) w.fieldMessage(5, (a) => encodeAttribute(a, name, value));
  if (n.domain) w.fieldString(7, n.domain);
}

function encodeGraph(w: ProtobufWriter, g: GraphProto): void {
  for (const n of g.nodes) w.fieldMessage(1, (m) => encodeNode(m, n));
  w.fieldString(2, g.name);
  for (const t of g.initializers) w.fieldMessage(5, (m) => encodeTensor(m, t));
  for (const v of g.inputs) w.fieldMessage(11, (m) => encodeValueInfo(m, v));
  for (const v of g.outputs) w.fieldMessage(12, (m) => encodeValueInfo(m, v));
}

export function encodeModel(model: ModelProto): Uint8Array {
  for (const [domain, version] of Object.entries(model.opsets)) {
    if (domain === '' && (version < 1 || version > MAX_OPSET))
      throw new RangeError(`ai.onnx opset ${version} is outside 1..${MAX_OPSET}`);
  }
  const w = new ProtobufWriter();
  w.fieldVarint(1, IR_VERSION);
  w.fieldString(2, model.producer ?? 't1-lab');
  if (model.docString) w.fieldString(6, model.docString);
  w.fieldMessage(7, (g) => encodeGraph(g, model.graph));
  for (const [domain, version] of Object.entries(model.opsets)) {
    w.fieldMessage(8, (o) => {
      if (domain) o.fieldString(1, domain);
      o.fieldVarint(2, version);
    });
  }
  return w.finish();
}
