/** An `openai:` policy with a small --context-window is prompted as the same model's `onnx:` policy: compactly. */
import { describe, expect, it } from 'vitest';
import { createOpenAiPolicy } from '../../../electron/agent/policy/openai';

describe('openai: policy, compact prompt', () => {
  const spec = 'openai:http://127.0.0.1:1/v1#nano-sft';
  it('is compact for a window up to 8,192 tokens, and only when the window is given', () => {
    expect(createOpenAiPolicy(spec, { contextWindow: 2048 }).compactPrompt).toBe(true);
    expect(createOpenAiPolicy(spec, { contextWindow: 8192 }).compactPrompt).toBe(true);
    expect(createOpenAiPolicy(spec, { contextWindow: 32768 }).compactPrompt).toBe(false);
    expect(createOpenAiPolicy(spec).compactPrompt).toBe(false);
  });
});
