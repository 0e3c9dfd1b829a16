/** The policy and harness options `t1lab run` and `t1lab eval` share, and how they become settings. */
import { Option, type Command } from 'commander';
import type { HarnessSettings, PolicySettings } from '../../domain/runs';
import { EVAL_DEFAULTS } from '../../domain/eval-defaults';
import { UsageError } from '../errors';

export interface SharedOptions {
  policy?: string;
  maxTurns?: string;
  contextStrategy?: string;
  observationChars?: string;
  agentTimeout?: string;
  protocol?: string;
  temperature?: string;
  seed?: string;
  maxTokens?: string;
  contextWindow?: string;
  apiKeyEnv?: string;
  priceInput?: string;
  priceOutput?: string;
  priceCached?: string;
  json?: boolean;
}

export function addSharedOptions(command: Command): Command {
  return command
    .option('--policy <spec>', 'oracle | replay:FILE | openai:BASE_URL#MODEL | onnx:CHECKPOINT')
    .option('--max-turns <n>', `turn limit per episode (default ${EVAL_DEFAULTS.maxTurns})`)
    .addOption(
      new Option(
        '--context-strategy <s>',
        `when the conversation outgrows the context window (default ${EVAL_DEFAULTS.contextStrategy})`,
      ).choices(['drop-oldest', 'stop']),
    )
    .option(
      '--observation-chars <n>',
      `observation budget per action, head and tail kept (default ${EVAL_DEFAULTS.observationChars})`,
    )
    .option('--agent-timeout <sec>', "the agent's time budget (default: the task's [agent].timeout_sec)")
    .addOption(
      new Option('--protocol <p>', 'action protocol (default: tools for openai:, hermes otherwise)').choices([
        'hermes',
        'terminus',
        'tools',
      ]),
    )
    .option('--temperature <t>', `sampling temperature, passed through (default ${EVAL_DEFAULTS.temperature}: greedy)`)
    .option('--seed <n>', 'seed: the run seed, from which each episode derives its own')
    .option(
      '--max-tokens <n>',
      'completion tokens per turn (onnx: default min(1024, context window / 8); openai: 2048)',
    )
    .option('--context-window <n>', "the model's context window in tokens (enables the context strategy for servers)")
    .option('--api-key-env <var>', 'environment variable holding the API key (default OPENAI_API_KEY)')
    .option('--price-input <usd>', 'USD per million prompt tokens, for cost accounting')
    .option('--price-output <usd>', 'USD per million completion tokens')
    .option('--price-cached <usd>', 'USD per million cached prompt tokens (default: the input price)')
    .option('--json', 'print the result as JSON');
}

function number(
  name: string,
  value: string | undefined,
  check: (n: number) => boolean,
  what: string,
): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || !check(n)) throw new UsageError(`${name}: '${value}' is not ${what}`);
  return n;
}

export const positiveInt = (name: string, value: string | undefined) =>
  number(name, value, (n) => Number.isInteger(n) && n > 0, 'a positive integer');
const positive = (name: string, value: string | undefined) => number(name, value, (n) => n > 0, 'a positive number');
const nonNegative = (name: string, value: string | undefined) => number(name, value, (n) => n >= 0, 'a number >= 0');

/** The run seed: every episode's seed (passed to the policy) derives from it. */
export function runSeed(o: SharedOptions): number | undefined {
  return number('--seed', o.seed, Number.isInteger, 'an integer');
}

export function harnessSettings(o: SharedOptions): HarnessSettings {
  return {
    maxTurns: positiveInt('--max-turns', o.maxTurns) ?? EVAL_DEFAULTS.maxTurns,
    contextStrategy:
      (o.contextStrategy as HarnessSettings['contextStrategy'] | undefined) ?? EVAL_DEFAULTS.contextStrategy,
    observationChars: positiveInt('--observation-chars', o.observationChars) ?? EVAL_DEFAULTS.observationChars,
    ...(o.agentTimeout !== undefined ? { agentTimeoutSec: positive('--agent-timeout', o.agentTimeout) } : {}),
  };
}

export function policySettings(o: SharedOptions): PolicySettings {
  const temperature = number('--temperature', o.temperature, (n) => n >= 0 && n <= 2, 'a temperature between 0 and 2');
  const input = nonNegative('--price-input', o.priceInput);
  const output = nonNegative('--price-output', o.priceOutput);
  if ((input === undefined) !== (output === undefined))
    throw new UsageError('--price-input and --price-output go together');
  const cached = nonNegative('--price-cached', o.priceCached);
  return {
    ...(o.protocol ? { protocol: o.protocol as PolicySettings['protocol'] } : {}),
    ...(temperature !== undefined ? { temperature } : {}),
    ...(o.maxTokens !== undefined ? { maxTokens: positiveInt('--max-tokens', o.maxTokens) } : {}),
    ...(o.contextWindow !== undefined ? { contextWindow: positiveInt('--context-window', o.contextWindow) } : {}),
    ...(o.apiKeyEnv ? { apiKeyEnv: o.apiKeyEnv } : {}),
    ...(input !== undefined && output !== undefined
      ? {
          prices: {
            inputPerMTok: input,
            outputPerMTok: output,
            ...(cached !== undefined ? { cachedPerMTok: cached } : {}),
          },
        }
      : {}),
  };
}

/** Ends the work gracefully on SIGINT/SIGTERM (finished episodes stay recorded); returns the unhook. */
export function onInterrupt(cancel: () => void): () => void {
  const handler = () => cancel();
  process.once('SIGINT', handler);
  process.once('SIGTERM', handler);
  return () => {
    process.off('SIGINT', handler);
    process.off('SIGTERM', handler);
  };
}
