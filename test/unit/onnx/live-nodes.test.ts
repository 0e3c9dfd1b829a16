import { describe, expect, it } from 'vitest';
import { GraphBuilder, liveNodes } from '../../../native/onnx/graph';

describe('liveNodes', () => {
  it('drops nodes no output reads and keeps the chain an output needs, in order', () => {
    const g = new GraphBuilder();
    const x = g.input('x', 'float32', [2]);
    const a = g.op('Neg', [x]);
    const dead = g.op('Exp', [a]); // a gradient nobody reads
    g.op('Abs', [dead]);
    const b = g.op('Relu', [a]);
    g.output(b, 'y', 'float32', [2]);
    const kept = liveNodes(g.nodes, g.outputs).map((n) => n.opType);
    expect(kept).toEqual(['Neg', 'Relu', 'Identity']);
  });

  it('keeps the outer values an If branch reads by name', () => {
    const g = new GraphBuilder();
    const x = g.input('x', 'float32', [2]);
    const cond = g.input('c', 'bool', []);
    const outer = g.op('Neg', [x]);
    const branch = g.subgraph('then');
    branch.output(branch.op('Abs', [outer]), 'then_out', 'float32', [2]);
    const other = g.subgraph('else');
    other.output(other.op('Relu', [x]), 'else_out', 'float32', [2]);
    const y = g.op('If', [cond], {
      then_branch: { kind: 'graph', value: branch.toGraph() },
      else_branch: { kind: 'graph', value: other.toGraph() },
    });
    g.output(y, 'y', 'float32', [2]);
    expect(liveNodes(g.nodes, g.outputs).map((n) => n.opType)).toEqual(['Neg', 'If', 'Identity']);
  });
});
