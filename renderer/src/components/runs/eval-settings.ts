/**
 * The settings of an evaluation as the page edits them (text, as typed) and as the host takes them: every
 * option `t1lab eval` has, starting from the same defaults (EVAL_DEFAULTS), so a run started here can be
 * typed in a shell and the other way round.
 */
import { EVAL_DEFAULTS } from '../../../../electron/domain/eval-defaults';
import type { EvalRequest, HarnessSettings, PolicySettings } from '../../../../electron/domain/runs';

export interface EvalSettingsDraft {
  attempts: string;
  concurrency: string;
  maxTurns: string;
  temperature: string;
  maxTokens: string;
  agentTimeout: string;
  seed: string;
  protocol: string;
  contextStrategy: string;
  observationChars: string;
  contextWindow: string;
  episodeDeadline: string;
  apiKeyEnv: string;
  priceInput: string;
  priceOutput: string;
  priceCached: string;
  out: string;
}
export type EvalSetting = keyof EvalSettingsDraft;

export const DEFAULT_EVAL_SETTINGS: EvalSettingsDraft = {
  attempts: String(EVAL_DEFAULTS.attempts),
  concurrency: '',
  maxTurns: String(EVAL_DEFAULTS.maxTurns),
  temperature: String(EVAL_DEFAULTS.temperature),
  maxTokens: '',
  agentTimeout: '',
  seed: '',
  protocol: '',
  contextStrategy: EVAL_DEFAULTS.contextStrategy,
  observationChars: String(EVAL_DEFAULTS.observationChars),
  contextWindow: '',
  episodeDeadline: '',
  apiKeyEnv: '',
  priceInput: '',
  priceOutput: '',
  priceCached: '',
  out: '',
};

/** Where each setting sits in the request (the path a host validation error names). */
export const SETTING_PATHS: Record<EvalSetting, string> = {
  attempts: 'attempts',
  concurrency: 'concurrency',
  maxTurns: 'harness.maxTurns',
  temperature: 'policySettings.temperature',
  maxTokens: 'policySettings.maxTokens',
  agentTimeout: 'harness.agentTimeoutSec',
  seed: 'seed',
  protocol: 'policySettings.protocol',
  contextStrategy: 'harness.contextStrategy',
  observationChars: 'harness.observationChars',
  contextWindow: 'policySettings.contextWindow',
  episodeDeadline: 'episodeDeadlineSec',
  apiKeyEnv: 'policySettings.apiKeyEnv',
  priceInput: 'policySettings.prices.inputPerMTok',
  priceOutput: 'policySettings.prices.outputPerMTok',
  priceCached: 'policySettings.prices.cachedPerMTok',
  out: 'out',
};

/** The labels on screen, which error messages use too. */
export const SETTING_LABELS: Record<EvalSetting, string> = {
  attempts: 'Attempts',
  concurrency: 'Concurrency',
  maxTurns: 'Max turns',
  temperature: 'Temperature',
  maxTokens: 'Max tokens',
  agentTimeout: 'Agent timeout (s)',
  seed: 'Seed',
  protocol: 'Protocol',
  contextStrategy: 'Context strategy',
  observationChars: 'Observation chars',
  contextWindow: 'Context window',
  episodeDeadline: 'Episode deadline (s)',
  apiKeyEnv: 'API key variable',
  priceInput: 'Price input (USD/M tokens)',
  priceOutput: 'Price output (USD/M tokens)',
  priceCached: 'Price cached (USD/M tokens)',
  out: 'Run folder',
};

/** The setting a schema path is about, if any ('harness' alone: the turn limit, the one always sent). */
export function settingOfPath(path: string | null | undefined): EvalSetting | null {
  if (!path) return null;
  if (path === 'harness') return 'maxTurns';
  if (path === 'policySettings.prices') return 'priceInput';
  const hit = (Object.keys(SETTING_PATHS) as EvalSetting[]).find((k) => SETTING_PATHS[k] === path);
  return hit ?? null;
}

/** A blank field is "not set" (the default); anything else is sent as typed and the host checks it. */
function num(text: string): number | undefined {
  const t = text.trim();
  return t === '' ? undefined : Number(t);
}

function definedOnly<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

export function evalSettingsRequest(d: EvalSettingsDraft): Omit<EvalRequest, 'suite' | 'policy'> {
  const priced = [d.priceInput, d.priceOutput, d.priceCached].some((p) => p.trim() !== '');
  const policySettings: PolicySettings = definedOnly({
    protocol: (d.protocol || undefined) as PolicySettings['protocol'],
    temperature: num(d.temperature),
    maxTokens: num(d.maxTokens),
    contextWindow: num(d.contextWindow),
    apiKeyEnv: d.apiKeyEnv.trim() || undefined,
    prices: priced
      ? (definedOnly({
          inputPerMTok: num(d.priceInput),
          outputPerMTok: num(d.priceOutput),
          cachedPerMTok: num(d.priceCached),
        }) as PolicySettings['prices'])
      : undefined,
  });
  const harness: HarnessSettings = definedOnly({
    maxTurns: num(d.maxTurns) ?? EVAL_DEFAULTS.maxTurns,
    contextStrategy: (d.contextStrategy || EVAL_DEFAULTS.contextStrategy) as HarnessSettings['contextStrategy'],
    observationChars: num(d.observationChars) ?? EVAL_DEFAULTS.observationChars,
    agentTimeoutSec: num(d.agentTimeout),
  });
  return definedOnly({
    attempts: num(d.attempts) ?? EVAL_DEFAULTS.attempts,
    concurrency: num(d.concurrency),
    seed: num(d.seed),
    episodeDeadlineSec: num(d.episodeDeadline),
    out: d.out.trim() || undefined,
    policySettings,
    harness,
  });
}
