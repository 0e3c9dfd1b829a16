/**
 * Reverse-mode automatic differentiation over ONNX forward ops. onnxruntime-node has no training kernels
 * (no *Grad ops), so every forward op records a vector-Jacobian rule that emits ordinary ONNX nodes; the
 * backward pass replays the tape in reverse and returns, for each requested input, the name of its
 * gradient. Each rule has a float64 finite-difference test (test/integration/onnx/gradients.test.ts).
 *
 * Shapes are tracked as far as they are known (numbers, or names for dynamic axes) to find broadcast
 * axes; zero tensors and reshapes in the backward pass take their shapes from the forward values at run
 * time (Shape op), so dynamic axes (e.g. tokens routed to one expert) differentiate too.
 */
import { GraphBuilder, floatAttr, type AttributeInput } from './graph';
import { DATA_TYPES, type DataType, type Dim, type FloatType } from './proto';

export interface Value {
  readonly name: string;
  readonly shape: readonly Dim[];
  readonly dtype: DataType;
}

/** Given the gradient of an op's output, the gradients of its inputs (null: not differentiable / no gradient). */
type VectorJacobian = (grad: Value) => (Value | null)[];

interface TapeEntry {
  outputs: readonly Value[];
  inputs: readonly Value[];
  /** Gradients of the outputs (null where an output got none) to gradients of the inputs. */
  vjp: (grads: (Value | null)[]) => (Value | null)[];
}

export function broadcastShapes(a: readonly Dim[], b: readonly Dim[]): Dim[] {
  const n = Math.max(a.length, b.length);
  const out: Dim[] = [];
  for (let i = 0; i < n; i++) {
    const x = a[a.length - n + i] ?? 1;
    const y = b[b.length - n + i] ?? 1;
    if (x === 1) out.push(y);
    else if (y === 1 || x === y) out.push(x);
    else if (typeof x === 'string' || typeof y === 'string') out.push(typeof x === 'number' ? x : y);
    else throw new Error(`cannot broadcast [${a.join(',')}] with [${b.join(',')}]`);
  }
  return out;
}

const product = (dims: readonly Dim[]): number =>
  dims.reduce<number>((p, d) => p * (typeof d === 'number' ? d : NaN), 1);

export class AutoDiff {
  readonly graph: GraphBuilder;
  private readonly tape: TapeEntry[] = [];

  constructor(
    readonly dtype: FloatType,
    graph?: GraphBuilder,
  ) {
    this.graph = graph ?? new GraphBuilder('train');
  }

  // ---- leaves ----

  input(name: string, shape: readonly Dim[], dtype: DataType = this.dtype): Value {
    this.graph.input(name, dtype, shape);
    return { name, shape, dtype };
  }

  output(value: Value, name: string): void {
    this.graph.output(value.name, name, value.dtype, value.shape);
  }

  /** A float constant of the graph's dtype; a number gives a scalar. */
  constant(values: number | readonly number[], shape?: readonly number[]): Value {
    const list = typeof values === 'number' ? [values] : values;
    const dims = shape ?? (typeof values === 'number' ? [] : [list.length]);
    return { name: this.graph.constant(this.dtype, dims, list), shape: dims, dtype: this.dtype };
  }

  /** Wrap an existing graph value (e.g. one a non-differentiable op produced). */
  wrap(name: string, shape: readonly Dim[], dtype: DataType = this.dtype): Value {
    return { name, shape, dtype };
  }

  /** A non-differentiable op (indices, masks, casts): no gradient flows through it. */
  nondiff(
    opType: string,
    inputs: readonly (Value | string)[],
    attributes: Record<string, AttributeInput | undefined>,
    outputs: { shape: readonly Dim[]; dtype: DataType; name?: string }[],
    domain?: string,
  ): Value[] {
    const explicit = outputs.every((o) => o.name) ? outputs.map((o) => o.name!) : undefined;
    const names = this.graph.ops(opType, inputs.map(nameOf), attributes, {
      domain,
      ...(explicit ? { outputs: explicit } : { outputCount: outputs.length }),
    });
    return names.map((name, i) => ({ name, shape: outputs[i]!.shape, dtype: outputs[i]!.dtype }));
  }

  private record(
    opType: string,
    inputs: readonly Value[],
    extraInputs: readonly string[],
    attributes: Record<string, AttributeInput | undefined>,
    shape: readonly Dim[],
    vjp: VectorJacobian | null,
    dtype: DataType = this.dtype,
  ): Value {
    const name = this.graph.op(opType, [...inputs.map((v) => v.name), ...extraInputs], attributes);
    const output: Value = { name, shape, dtype };
    if (vjp) this.tape.push({ outputs: [output], inputs, vjp: (grads) => vjp(grads[0]!) });
    return output;
  }

  /** A raw node for the backward pass (not taped). */
  private emit(
    opType: string,
    inputs: readonly (Value | string)[],
    shape: readonly Dim[],
    attributes: Record<string, AttributeInput | undefined> = {},
    dtype: DataType = this.dtype,
  ): Value {
    return { name: this.graph.op(opType, inputs.map(nameOf), attributes), shape, dtype };
  }

  private shapeOf(v: Value): string {
    return this.graph.op('Shape', [v.name]);
  }

  private zerosLike(v: Value): Value {
    const zero = {
      kind: 'tensor' as const,
      value: {
        name: '',
        dtype: v.dtype,
        dims: [1],
        data: this.dtype === 'float64' ? new Float64Array(1) : new Float32Array(1),
      },
    };
    return this.emit('ConstantOfShape', [this.shapeOf(v)], v.shape, { value: zero }, v.dtype);
  }

  /** Sum a broadcast gradient back to the shape of the input it came from. */
  private unbroadcast(grad: Value, target: Value): Value {
    const gs = grad.shape;
    const ts = target.shape;
    const extra = gs.length - ts.length;
    const axes: number[] = [];
    for (let i = 0; i < gs.length; i++) if (i < extra || (ts[i - extra] === 1 && gs[i] !== 1)) axes.push(i);
    if (axes.length === 0) return grad;
    const summed = this.emit(
      'ReduceSum',
      [grad, this.graph.ints(axes)],
      gs.map((d, i) => (axes.includes(i) ? 1 : d)),
      { keepdims: 1 },
    );
    return this.emit('Reshape', [summed, this.shapeOf(target)], ts);
  }

  // ---- elementwise ----

  add(a: Value, b: Value): Value {
    return this.record('Add', [a, b], [], {}, broadcastShapes(a.shape, b.shape), (g) => [
      this.unbroadcast(g, a),
      this.unbroadcast(g, b),
    ]);
  }

  sub(a: Value, b: Value): Value {
    return this.record('Sub', [a, b], [], {}, broadcastShapes(a.shape, b.shape), (g) => [
      this.unbroadcast(g, a),
      this.unbroadcast(this.emit('Neg', [g], g.shape), b),
    ]);
  }

  mul(a: Value, b: Value): Value {
    const s = broadcastShapes(a.shape, b.shape);
    return this.record('Mul', [a, b], [], {}, s, (g) => [
      this.unbroadcast(this.emit('Mul', [g, b], s), a),
      this.unbroadcast(this.emit('Mul', [g, a], s), b),
    ]);
  }

  div(a: Value, b: Value): Value {
    const s = broadcastShapes(a.shape, b.shape);
    const y: Value = this.record('Div', [a, b], [], {}, s, (g) => {
      const ga = this.emit('Div', [g, b], s);
      return [this.unbroadcast(ga, a), this.unbroadcast(this.emit('Neg', [this.emit('Mul', [ga, y], s)], s), b)];
    });
    return y;
  }

  neg(a: Value): Value {
    return this.record('Neg', [a], [], {}, a.shape, (g) => [this.emit('Neg', [g], a.shape)]);
  }

  exp(a: Value): Value {
    const y: Value = this.record('Exp', [a], [], {}, a.shape, (g) => [this.emit('Mul', [g, y], a.shape)]);
    return y;
  }

  log(a: Value): Value {
    return this.record('Log', [a], [], {}, a.shape, (g) => [this.emit('Div', [g, a], a.shape)]);
  }

  sqrt(a: Value): Value {
    const y: Value = this.record('Sqrt', [a], [], {}, a.shape, (g) => [
      this.emit('Div', [this.emit('Mul', [g, this.constant(0.5)], a.shape), y], a.shape),
    ]);
    return y;
  }

  reciprocal(a: Value): Value {
    const y: Value = this.record('Reciprocal', [a], [], {}, a.shape, (g) => [
      this.emit('Neg', [this.emit('Mul', [g, this.emit('Mul', [y, y], a.shape)], a.shape)], a.shape),
    ]);
    return y;
  }

  sigmoid(a: Value): Value {
    const y: Value = this.record('Sigmoid', [a], [], {}, a.shape, (g) => {
      const dy = this.emit('Mul', [y, this.emit('Sub', [this.constant(1), y], a.shape)], a.shape);
      return [this.emit('Mul', [g, dy], a.shape)];
    });
    return y;
  }

  silu(a: Value): Value {
    return this.mul(a, this.sigmoid(a));
  }

  square(a: Value): Value {
    return this.mul(a, a);
  }

  /** where(cond, a, b); cond is a bool tensor and gets no gradient. */
  where(cond: Value, a: Value, b: Value): Value {
    const s = broadcastShapes(broadcastShapes(cond.shape, a.shape), b.shape);
    const zero = this.constant(0);
    return this.record('Where', [cond, a, b], [], {}, s, (g) => [
      null,
      this.unbroadcast(this.emit('Where', [cond, g, zero], s), a),
      this.unbroadcast(this.emit('Where', [cond, zero, g], s), b),
    ]);
  }

  minimum(a: Value, b: Value): Value {
    const [le] = this.nondiff('LessOrEqual', [a, b], {}, [{ shape: broadcastShapes(a.shape, b.shape), dtype: 'bool' }]);
    return this.where(le!, a, b);
  }

  maximum(a: Value, b: Value): Value {
    const [ge] = this.nondiff('GreaterOrEqual', [a, b], {}, [
      { shape: broadcastShapes(a.shape, b.shape), dtype: 'bool' },
    ]);
    return this.where(ge!, a, b);
  }

  /** Clip to constant bounds; the gradient passes where lo <= x <= hi. */
  clip(x: Value, lo: number, hi: number): Value {
    const loC = this.constant(lo);
    const hiC = this.constant(hi);
    return this.record('Clip', [x], [loC.name, hiC.name], {}, x.shape, (g) => {
      const inside = this.emit(
        'And',
        [
          this.emit('GreaterOrEqual', [x, loC], x.shape, {}, 'bool'),
          this.emit('LessOrEqual', [x, hiC], x.shape, {}, 'bool'),
        ],
        x.shape,
        {},
        'bool',
      );
      return [this.emit('Where', [inside, g, this.constant(0)], x.shape)];
    });
  }

  /** The same value, with no gradient flowing back through it. */
  stopGradient(x: Value): Value {
    return this.emit('Identity', [x], x.shape, {}, x.dtype);
  }

  cast(x: Value, dtype: DataType): Value {
    return this.emit('Cast', [x], x.shape, { to: DATA_TYPES[dtype] }, dtype);
  }

  // ---- reductions and normalizations ----

  reduceSum(x: Value, axes: readonly number[], keepdims = true): Value {
    const ax = axes.map((a) => (a < 0 ? a + x.shape.length : a));
    const kept = x.shape.map((d, i) => (ax.includes(i) ? 1 : d));
    const shape = keepdims ? kept : x.shape.filter((_, i) => !ax.includes(i));
    return this.record('ReduceSum', [x], [this.graph.ints(ax)], { keepdims: keepdims ? 1 : 0 }, shape, (g) => {
      const g1 = keepdims ? g : this.emit('Unsqueeze', [g, this.graph.ints(ax)], kept);
      return [this.emit('Expand', [g1, this.shapeOf(x)], x.shape)];
    });
  }

  reduceMean(x: Value, axes: readonly number[], keepdims = true): Value {
    const n = product(axes.map((a) => x.shape[a < 0 ? a + x.shape.length : a] ?? NaN));
    if (!Number.isFinite(n)) throw new Error(`reduceMean over dynamic axes of [${x.shape.join(',')}]`);
    return this.mul(this.reduceSum(x, axes, keepdims), this.constant(1 / n));
  }

  softmax(x: Value, axis = -1): Value {
    const y: Value = this.record('Softmax', [x], [], { axis }, x.shape, (g) => {
      const gy = this.emit('Mul', [g, y], x.shape);
      const s = this.emit('ReduceSum', [gy, this.graph.ints([axis])], x.shape, { keepdims: 1 });
      return [this.emit('Mul', [y, this.emit('Sub', [g, s], x.shape)], x.shape)];
    });
    return y;
  }

  logSoftmax(x: Value, axis = -1): Value {
    const y: Value = this.record('LogSoftmax', [x], [], { axis }, x.shape, (g) => {
      const s = this.emit('ReduceSum', [g, this.graph.ints([axis])], x.shape, { keepdims: 1 });
      return [this.emit('Sub', [g, this.emit('Mul', [this.emit('Exp', [y], x.shape), s], x.shape)], x.shape)];
    });
    return y;
  }

  /** x / sqrt(mean(x^2, last axis) + eps) * weight. */
  rmsNorm(x: Value, weight: Value, eps: number): Value {
    const meanSquare = this.reduceMean(this.square(x), [-1]);
    const inv = this.reciprocal(this.sqrt(this.add(meanSquare, this.constant(eps))));
    return this.mul(this.mul(x, inv), weight);
  }

  // ---- linear algebra and shapes ----

  matmul(a: Value, b: Value): Value {
    const ra = a.shape.length;
    const rb = b.shape.length;
    if (ra < 2 || rb < 2)
      throw new Error(`matmul needs rank >= 2, got [${a.shape.join(',')}] @ [${b.shape.join(',')}]`);
    const batch = broadcastShapes(a.shape.slice(0, -2), b.shape.slice(0, -2));
    const shape = [...batch, a.shape[ra - 2]!, b.shape[rb - 1]!];
    return this.record('MatMul', [a, b], [], {}, shape, (g) => {
      const ga = this.emit('MatMul', [g, this.swapLast(b)], [...batch, a.shape[ra - 2]!, a.shape[ra - 1]!]);
      let gb: Value;
      if (rb === 2 && ra > 2) {
        // A weight shared across batch dims: one GEMM over the flattened rows instead of a batched
        // product and a reduction.
        const rows = this.emit('Reshape', [a, this.graph.ints([-1, Number(a.shape[ra - 1])])], [-1, a.shape[ra - 1]!]);
        const grows = this.emit(
          'Reshape',
          [g, this.graph.ints([-1, Number(shape[shape.length - 1])])],
          [-1, shape[shape.length - 1]!],
        );
        gb = this.emit('Gemm', [rows, grows], b.shape, { transA: 1 });
      } else {
        gb = this.unbroadcast(
          this.emit('MatMul', [this.swapLast(a), g], [...batch, b.shape[rb - 2]!, b.shape[rb - 1]!]),
          b,
        );
      }
      return [this.unbroadcast(ga, a), gb];
    });
  }

  private swapLast(x: Value): Value {
    const r = x.shape.length;
    const perm = [...Array(r).keys()];
    perm[r - 2] = r - 1;
    perm[r - 1] = r - 2;
    return this.emit(
      'Transpose',
      [x],
      perm.map((p) => x.shape[p]!),
      { perm },
      x.dtype,
    );
  }

  /** Reshape to a fixed shape (one -1 allowed, resolved when the input's size is known). */
  reshape(x: Value, shape: readonly number[]): Value {
    // 0 copies the input's dim at that index (onnx Reshape, allowzero = 0); -1 is inferred when all is known.
    const out: Dim[] = shape.map((d, i) => (d === 0 ? x.shape[i]! : d));
    const minus = shape.indexOf(-1);
    if (minus >= 0) {
      const rest = product(out.filter((_, i) => i !== minus));
      const known = product(x.shape);
      out[minus] = Number.isFinite(known) && Number.isFinite(rest) ? known / rest : `${x.name}_inferred`;
    }
    return this.record('Reshape', [x], [this.graph.ints(shape)], {}, out, (g) => [
      this.emit('Reshape', [g, this.shapeOf(x)], x.shape),
    ]);
  }

  /** Reshape to the run-time shape of `like` (dynamic axes included); `shape` is what is known of it. */
  reshapeAs(x: Value, like: Value, shape: readonly Dim[] = like.shape): Value {
    return this.record('Reshape', [x], [this.shapeOf(like)], {}, shape, (g) => [
      this.emit('Reshape', [g, this.shapeOf(x)], x.shape),
    ]);
  }

  transpose(x: Value, perm: readonly number[]): Value {
    const inverse: number[] = [];
    perm.forEach((p, i) => (inverse[p] = i));
    return this.record(
      'Transpose',
      [x],
      [],
      { perm },
      perm.map((p) => x.shape[p]!),
      (g) => [this.emit('Transpose', [g], x.shape, { perm: inverse })],
    );
  }

  /** Equal parts along `axis` (with `squeeze`, size-1 parts lose that axis). Gradient: concatenation. */
  split(x: Value, axis: number, parts: number, squeeze = false): Value[] {
    const ax = axis < 0 ? axis + x.shape.length : axis;
    const size = x.shape[ax];
    if (typeof size !== 'number' || size % parts !== 0)
      throw new Error(`split: axis ${ax} of [${x.shape.join(',')}] into ${parts}`);
    const partShape = x.shape.map((d, i) => (i === ax ? size / parts : d));
    const names = this.graph.ops('Split', [x.name], { axis: ax, num_outputs: parts }, { outputCount: parts });
    const outs: Value[] = names.map((name) => ({ name, shape: partShape, dtype: x.dtype }));
    this.tape.push({
      outputs: outs,
      inputs: [x],
      vjp: (grads) => [
        this.emit(
          'Concat',
          grads.map((g, i) => g ?? this.zerosLike(outs[i]!)),
          x.shape,
          { axis: ax },
        ),
      ],
    });
    if (!squeeze) return outs;
    const squeezed = partShape.filter((_, i) => i !== ax);
    if (size / parts !== 1 || squeezed.some((d) => typeof d !== 'number'))
      throw new Error(`split: cannot squeeze parts of [${partShape.join(',')}]`);
    return outs.map((o) => this.reshape(o, squeezed as number[]));
  }

  /** `x[start:end]` along `axis` (static sizes). Gradient: zero-padded back to x's extent. */
  slice(x: Value, axis: number, start: number, end: number): Value {
    const ax = axis < 0 ? axis + x.shape.length : axis;
    const size = x.shape[ax];
    if (typeof size !== 'number' || start < 0 || end > size || start >= end)
      throw new Error(`slice: [${start}, ${end}) of axis ${ax} of [${x.shape.join(',')}]`);
    const shape = x.shape.map((d, i) => (i === ax ? end - start : d));
    return this.record(
      'Slice',
      [x],
      [this.graph.ints([start]), this.graph.ints([end]), this.graph.ints([ax])],
      {},
      shape,
      (g) => {
        const pads = new Array<number>(2 * x.shape.length).fill(0);
        pads[ax] = start;
        pads[x.shape.length + ax] = size - end;
        return [this.emit('Pad', [g, this.graph.ints(pads)], x.shape)];
      },
    );
  }

  /** Values side by side along `axis` (static sizes there). Gradient: the incoming gradient split back. */
  concat(values: readonly Value[], axis: number): Value {
    const ax = axis < 0 ? axis + values[0]!.shape.length : axis;
    const sizes = values.map((v) => v.shape[ax]);
    if (sizes.some((d) => typeof d !== 'number')) throw new Error(`concat: axis ${ax} must have static sizes`);
    const total = (sizes as number[]).reduce((a, b) => a + b, 0);
    const shape = values[0]!.shape.map((d, i) => (i === ax ? total : d));
    const name = this.graph.op(
      'Concat',
      values.map((v) => v.name),
      { axis: ax },
    );
    const output: Value = { name, shape, dtype: values[0]!.dtype };
    this.tape.push({
      outputs: [output],
      inputs: values,
      vjp: (grads) => {
        const names = this.graph.ops(
          'Split',
          [grads[0]!.name, this.graph.ints(sizes as number[])],
          { axis: ax },
          { outputCount: values.length },
        );
        return names.map((n, i) => ({ name: n, shape: values[i]!.shape, dtype: values[i]!.dtype }));
      },
    });
    return output;
  }

  // ---- indexing ----

  /** Rows of `table` (axis 0) at int64 `indices`; the gradient scatters back with addition. */
  gather(table: Value, indices: Value): Value {
    const shape = [...indices.shape, ...table.shape.slice(1)];
    return this.record('Gather', [table, indices], [], { axis: 0 }, shape, (g) => {
      const idx = this.emit('Unsqueeze', [indices, this.graph.ints([-1])], [...indices.shape, 1], {}, 'int64');
      return [this.emit('ScatterND', [this.zerosLike(table), idx, g], table.shape, { reduction: 'add' }), null];
    });
  }

  gatherElements(x: Value, indices: Value, axis: number): Value {
    return this.record('GatherElements', [x, indices], [], { axis }, indices.shape, (g) => [
      this.emit('ScatterElements', [this.zerosLike(x), indices, g], x.shape, { axis, reduction: 'add' }),
      null,
    ]);
  }

  /**
   * `like`-shaped zeros with `updates` written at `indices` along `axis` (indices unique per row, as top-k
   * indices are). Differentiable with respect to `updates`.
   */
  scatterElementsIntoZeros(like: Value, indices: Value, updates: Value, axis: number): Value {
    const zeros = this.zerosLike(like);
    return this.record('ScatterElements', [zeros, indices, updates], [], { axis }, like.shape, (g) => [
      null,
      null,
      this.emit('GatherElements', [g, indices], updates.shape, { axis }),
    ]);
  }

  /** `base` with `updates` added at rows `indices` [n, 1] (accumulating sparse expert outputs in one tensor). */
  scatterRowsAdd(base: Value, indices: Value, updates: Value): Value {
    return this.record('ScatterND', [base, indices, updates], [], { reduction: 'add' }, base.shape, (g) => [
      g,
      null,
      this.emit('GatherND', [g, indices], updates.shape),
    ]);
  }

  /** `like`-shaped zeros plus `updates` added at row `indices` [n, 1] (sparse expert outputs back to tokens). */
  scatterRowsAddIntoZeros(like: Value, indices: Value, updates: Value): Value {
    const zeros = this.zerosLike(like);
    return this.record('ScatterND', [zeros, indices, updates], [], { reduction: 'add' }, like.shape, (g) => [
      null,
      null,
      this.emit('GatherND', [g, indices], updates.shape),
    ]);
  }

  // ---- backward ----

  /**
   * Emit the gradient of scalar `loss` with respect to each of `wrt`; returns their gradient values (zeros
   * for an input the loss does not depend on). `seed` scales the loss (default 1).
   */
  backward(loss: Value, wrt: readonly Value[], seed?: Value): Map<string, Value> {
    const grads = new Map<string, Value>([[loss.name, seed ?? this.constant(1)]]);
    const accumulate = (v: Value, g: Value | null) => {
      if (!g) return;
      const prev = grads.get(v.name);
      grads.set(v.name, prev ? this.emit('Add', [prev, g], v.shape) : g);
    };
    for (let i = this.tape.length - 1; i >= 0; i--) {
      const entry = this.tape[i]!;
      const outputGrads = entry.outputs.map((o) => grads.get(o.name) ?? null);
      if (outputGrads.every((g) => g === null)) continue;
      const inputGrads = entry.vjp(outputGrads);
      entry.inputs.forEach((input, j) => accumulate(input, inputGrads[j] ?? null));
    }
    const out = new Map<string, Value>();
    for (const w of wrt) out.set(w.name, grads.get(w.name) ?? this.zerosLike(w));
    return out;
  }

  /** Number of forward ops recorded (for logs). */
  get tapeLength(): number {
    return this.tape.length;
  }
}

function nameOf(v: Value | string): string {
  return typeof v === 'string' ? v : v.name;
}

export { floatAttr };
