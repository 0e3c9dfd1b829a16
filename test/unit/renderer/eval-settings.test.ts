/** The Runs page's evaluation settings start where `t1lab eval` starts, and a run's command line quotes what needs it. */
import { describe, expect, test } from 'vitest';
import { harnessSettings, policySettings } from '../../../electron/cli/commands/policy-options';
import { evalCommandArgs, evalCommandLine } from '../../../electron/domain/eval-command';
import type { EvalRunConfig } from '../../../electron/domain/runs';
import { DEFAULT_EVAL_SETTINGS, evalSettingsRequest } from '../../../renderer/src/components/runs/eval-settings';

const config: EvalRunConfig = {
  kind: 'eval',
  suite: "/data/it's suite",
  policy: 'onnx:/ckpt/step-1',
  policySettings: {},
  harness: { maxTurns: 30, contextStrategy: 'stop', observationChars: 2000 },
  attempts: 2,
  concurrency: 1,
  episodeDeadlineSec: null,
  seed: 5,
  tasks: [],
  only: ['a', 'b'],
};

describe('evaluation settings', () => {
  test('the page with nothing changed asks for what the CLI does with no option', () => {
    const page = evalSettingsRequest(DEFAULT_EVAL_SETTINGS);
    expect(page.harness).toEqual(harnessSettings({}));
    expect(page.policySettings).toEqual({ ...policySettings({}), temperature: 0 });
    expect(page.attempts).toBe(1);
    expect(page.concurrency).toBeUndefined();
    expect(page.seed).toBeUndefined();
  });

  test('a blank field is not sent; a typed one is, as a number', () => {
    const r = evalSettingsRequest({
      ...DEFAULT_EVAL_SETTINGS,
      temperature: '0.7',
      maxTokens: '64',
      priceInput: '1',
      priceOutput: '2',
      out: ' /tmp/x ',
    });
    expect(r.policySettings).toEqual({
      temperature: 0.7,
      maxTokens: 64,
      prices: { inputPerMTok: 1, outputPerMTok: 2 },
    });
    expect(r.out).toBe('/tmp/x');
  });

  test("a run's command line names every setting, the temperature an old onnx run sampled at, and quotes for the shell", () => {
    const args = evalCommandArgs(config);
    expect(args).toContain('--only');
    expect(args[args.indexOf('--temperature') + 1]).toBe('1');
    expect(evalCommandLine(config)).toBe(
      "t1lab eval --suite '/data/it'\\''s suite' --policy onnx:/ckpt/step-1 --only a,b --attempts 2 --concurrency 1 --seed 5 --temperature 1 --max-turns 30 --context-strategy stop --observation-chars 2000",
    );
  });
});
