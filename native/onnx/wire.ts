/**
 * A protobuf wire-format writer: the few encodings ONNX's ModelProto needs (varint, length-delimited,
 * fixed32 floats, packed repeated fields). Written by hand because we only ever encode a handful of
 * ONNX messages and a general protobuf library (protobufjs, ~6 MB with its reflection) buys nothing here.
 * Large byte payloads (weights) are kept as references, not copied, until `finish()`.
 */

const WIRE_VARINT = 0;
const WIRE_LENGTH_DELIMITED = 2;
const WIRE_FIXED32 = 5;
const CHUNK_BYTES = 4096;
const textEncoder = new TextEncoder();

export class ProtobufWriter {
  private readonly chunks: Uint8Array[] = [];
  private current = new Uint8Array(CHUNK_BYTES);
  private position = 0;
  private total = 0;

  get length(): number {
    return this.total;
  }

  private ensure(n: number): void {
    if (this.position + n <= this.current.length) return;
    this.flush();
    if (n > this.current.length) this.current = new Uint8Array(n);
  }

  private flush(): void {
    if (this.position === 0) return;
    this.chunks.push(this.current.subarray(0, this.position));
    this.current = new Uint8Array(Math.max(CHUNK_BYTES, this.current.length));
    this.position = 0;
  }

  private byte(b: number): void {
    this.ensure(1);
    this.current[this.position++] = b;
    this.total++;
  }

  /** Unsigned or two's-complement 64-bit varint (negative int64 take 10 bytes, as protobuf specifies). */
  varint(value: number | bigint): void {
    if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value < 2 ** 31) {
      let v = value;
      while (v > 127) {
        this.byte((v & 127) | 128);
        v >>>= 7;
      }
      this.byte(v);
      return;
    }
    if (typeof value === 'number' && !Number.isSafeInteger(value))
      throw new RangeError(`varint needs an integer, got ${value}`);
    let b = BigInt.asUintN(64, BigInt(value));
    while (b > 127n) {
      this.byte(Number(b & 127n) | 128);
      b >>= 7n;
    }
    this.byte(Number(b));
  }

  bytes(data: Uint8Array): void {
    if (data.length > CHUNK_BYTES) {
      this.flush();
      this.chunks.push(data);
      this.total += data.length;
      return;
    }
    this.ensure(data.length);
    this.current.set(data, this.position);
    this.position += data.length;
    this.total += data.length;
  }

  tag(field: number, wireType: number): void {
    this.varint((field << 3) | wireType);
  }

  fieldVarint(field: number, value: number | bigint): void {
    this.tag(field, WIRE_VARINT);
    this.varint(value);
  }

  fieldBytes(field: number, data: Uint8Array): void {
    this.tag(field, WIRE_LENGTH_DELIMITED);
    this.varint(data.length);
    this.bytes(data);
  }

  fieldString(field: number, text: string): void {
    this.fieldBytes(field, textEncoder.encode(text));
  }

  /** A nested message: encoded into its own writer first (its length prefixes it). */
  fieldMessage(field: number, encode: (w: ProtobufWriter) => void): void {
    const inner = new ProtobufWriter();
    encode(inner);
    this.tag(field, WIRE_LENGTH_DELIMITED);
    this.varint(inner.length);
    inner.appendTo(this);
  }

  fieldFloat(field: number, value: number): void {
    this.tag(field, WIRE_FIXED32);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    this.bytes(b);
  }

  fieldPackedVarints(field: number, values: readonly (number | bigint)[]): void {
    const inner = new ProtobufWriter();
    for (const v of values) inner.varint(v);
    this.tag(field, WIRE_LENGTH_DELIMITED);
    this.varint(inner.length);
    inner.appendTo(this);
  }

  fieldPackedFloats(field: number, values: readonly number[]): void {
    const data = Float32Array.from(values);
    this.fieldBytes(field, new Uint8Array(data.buffer));
  }

  private appendTo(target: ProtobufWriter): void {
    this.flush();
    for (const c of this.chunks) target.bytes(c);
  }

  finish(): Uint8Array {
    this.flush();
    const out = new Uint8Array(this.total);
    let offset = 0;
    for (const c of this.chunks) {
      out.set(c, offset);
      offset += c.length;
    }
    return out;
  }
}
