import { afterEach, describe, expect, it, vi } from 'vitest';
import { AckFlowController, DataBatcher, FlowControl } from '../../../native/pty/flow';

afterEach(() => vi.useRealTimers());

describe('AckFlowController', () => {
  it('pauses above the high watermark and resumes below the low one', () => {
    const calls: string[] = [];
    const flow = new AckFlowController({ pause: () => calls.push('pause'), resume: () => calls.push('resume') });
    flow.sent(FlowControl.HIGH_WATERMARK_CHARS);
    expect(calls).toEqual([]);
    flow.sent(1);
    expect(calls).toEqual(['pause']);
    flow.sent(50_000);
    flow.ack(100_000);
    expect(flow.isPaused).toBe(true);
    flow.ack(46_000);
    expect(calls).toEqual(['pause', 'resume']);
    expect(flow.unackedChars).toBe(4_001);
  });
  it('resumes when the receiver goes away', () => {
    const calls: string[] = [];
    const flow = new AckFlowController({ pause: () => calls.push('pause'), resume: () => calls.push('resume') }, 10, 5);
    flow.sent(11);
    flow.reset();
    expect(calls).toEqual(['pause', 'resume']);
    expect(flow.unackedChars).toBe(0);
  });
});

describe('DataBatcher', () => {
  it('sends what arrives within a batch window as one message', () => {
    vi.useFakeTimers();
    const sent: string[] = [];
    const b = new DataBatcher((d) => sent.push(d));
    b.push('a');
    b.push('b');
    expect(sent).toEqual([]);
    vi.advanceTimersByTime(FlowControl.BATCH_MS);
    expect(sent).toEqual(['ab']);
  });
  it('sends early when a batch grows too big', () => {
    const sent: string[] = [];
    const b = new DataBatcher((d) => sent.push(d), 5, 4);
    b.push('abcde');
    expect(sent).toEqual(['abcde']);
    b.dispose();
  });
});
