/**
 * The `t1lab eval` command line that starts the same run as a run's config: what a run's page shows, so an
 * evaluation started from the page can be repeated (or scripted) from a shell.
 */
import type { EvalRunConfig } from './runs';

/** POSIX shell quoting: bare when the word is plain, else single quotes. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_./:=@%+,#-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The temperature an onnx: policy sampled at when its run recorded none (runs made before greedy was the default). */
const ONNX_UNSET_TEMPERATURE = 1;

/** The temperature a run sampled at: recorded, else what its policy used then (null: the server's own). */
export function runTemperature(config: EvalRunConfig): number | null {
  return config.policySettings.temperature ?? (config.policy.startsWith('onnx:') ? ONNX_UNSET_TEMPERATURE : null);
}

/** The settings that decide a run's figures, in words: "temperature 0 · 30 turns · 576 tokens · agent 60 s". */
export function evalSettingsText(config: EvalRunConfig): string {
  const t = runTemperature(config);
  return [
    t === null ? "server's temperature" : `temperature ${t}`,
    `${config.harness.maxTurns} turns`,
    config.policySettings.maxTokens !== undefined ? `${config.policySettings.maxTokens} tokens` : null,
    config.harness.agentTimeoutSec !== undefined ? `agent ${config.harness.agentTimeoutSec} s` : null,
    config.attempts > 1 ? `${config.attempts} attempts` : null,
  ]
    .filter((x): x is string => x !== null)
    .join(' · ');
}

/** Every option of the run, defaults included, so the line does not depend on the defaults of the day. */
export function evalCommandArgs(config: EvalRunConfig): string[] {
  const p = config.policySettings;
  const h = config.harness;
  const args = ['--suite', config.suite, '--policy', config.policy];
  if (config.only?.length) args.push('--only', config.only.join(','));
  args.push(
    '--attempts',
    String(config.attempts),
    '--concurrency',
    String(config.concurrency),
    '--seed',
    String(config.seed),
  );
  const temperature = runTemperature(config);
  if (temperature !== null) args.push('--temperature', String(temperature));
  if (p.maxTokens !== undefined) args.push('--max-tokens', String(p.maxTokens));
  if (p.protocol) args.push('--protocol', p.protocol);
  if (p.contextWindow !== undefined) args.push('--context-window', String(p.contextWindow));
  if (p.apiKeyEnv) args.push('--api-key-env', p.apiKeyEnv);
  if (p.prices) {
    args.push('--price-input', String(p.prices.inputPerMTok), '--price-output', String(p.prices.outputPerMTok));
    if (p.prices.cachedPerMTok !== undefined) args.push('--price-cached', String(p.prices.cachedPerMTok));
  }
  args.push(
    '--max-turns',
    String(h.maxTurns),
    '--context-strategy',
    h.contextStrategy,
    '--observation-chars',
    String(h.observationChars),
  );
  if (h.agentTimeoutSec !== undefined) args.push('--agent-timeout', String(h.agentTimeoutSec));
  if (config.episodeDeadlineSec !== null) args.push('--episode-deadline', String(config.episodeDeadlineSec));
  if (config.containers && config.containers.backend !== 'auto') args.push('--backend', config.containers.backend);
  if (config.containers?.network) args.push('--net');
  return args;
}

export function evalCommandLine(config: EvalRunConfig): string {
  return ['t1lab', 'eval', ...evalCommandArgs(config)].map(shellWord).join(' ');
}
