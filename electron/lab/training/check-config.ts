/** A run config checked as `training.start` will check it, each problem split out with the key it names. */
import { isAbsolute, resolve } from 'node:path';
import { appRoot } from '../app-paths';
import { isBuiltinCorpus } from './corpus/names';
import { parseRunConfigToml, RunConfigError, type ConfigOverrides } from './config/run-config';

export interface ConfigCheck {
  ok: boolean;
  errors: { key: string; message: string }[];
}

const SOURCE = 'config';

export function checkRunConfig(stage: string, toml: string, overrides: ConfigOverrides): ConfigCheck {
  const fromApp = (p: string | undefined) =>
    p === undefined || isBuiltinCorpus(p) || isAbsolute(p) ? p : resolve(appRoot(), p);
  const o = { ...overrides, model: fromApp(overrides.model), data: fromApp(overrides.data) };
  for (const k of ['model', 'data'] as const) if (o[k] === undefined) delete o[k];
  try {
    const parsed = parseRunConfigToml(toml, SOURCE, o);
    if (parsed.stage !== stage)
      return { ok: false, errors: [{ key: 'stage', message: `is "${parsed.stage}" but the form says "${stage}"` }] };
    return { ok: true, errors: [] };
  } catch (error) {
    if (!(error instanceof RunConfigError)) throw error;
    // "config: a.b: message; c: message" (describeIssues) or "config: not valid TOML: ..."
    const body = error.message.startsWith(`${SOURCE}: `) ? error.message.slice(SOURCE.length + 2) : error.message;
    if (body.startsWith('not valid TOML')) return { ok: false, errors: [{ key: '(toml)', message: body }] };
    return {
      ok: false,
      errors: body.split('; ').map((part) => {
        const at = part.indexOf(': ');
        return at < 0 ? { key: '(config)', message: part } : { key: part.slice(0, at), message: part.slice(at + 2) };
      }),
    };
  }
}
