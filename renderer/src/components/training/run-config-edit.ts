/**
 * The new-run form's config edits: the ablation switches of issue 13 as `[ppo]` keys, setting one key in a
 * TOML section, and the CLI's overrides from the form's fields.
 */

/** The ablation switches of issue 13 (`[ppo]` keys), each a cell's setting. */
export const ABLATIONS: { key: string; values: string[] }[] = [
  { key: 'reward', values: ['dense', 'fraction', 'binary'] },
  { key: 'tito', values: ['exact', 'retokenize'] },
  { key: 'r3', values: ['on', 'off'] },
  { key: 'tis', values: ['on', 'off'] },
  { key: 'advantage', values: ['gae', 'group'] },
];

/** Set `key = "value"` in a TOML section (added at the section's end, or with the section, when missing). */
export function setTomlKey(toml: string, section: string, key: string, value: string): string {
  const lines = toml.split('\n');
  const head = lines.findIndex((l) => l.trim() === `[${section}]`);
  const assignment = `${key} = "${value}"`;
  if (head < 0) return `${toml.replace(/\n*$/, '\n')}\n[${section}]\n${assignment}\n`;
  let end = lines.findIndex((l, i) => i > head && /^\s*\[/.test(l));
  if (end < 0) end = lines.length;
  const at = lines.findIndex((l, i) => i > head && i < end && new RegExp(`^\\s*${key}\\s*=`).test(l));
  if (at >= 0) lines[at] = assignment;
  else {
    let last = end;
    while (last > head + 1 && !lines[last - 1]!.trim()) last--;
    lines.splice(last, 0, assignment);
  }
  return lines.join('\n');
}

/** The form's override fields as typed (empty: the config's own value). */
export interface OverrideFields {
  model: string;
  data: string;
  steps: string;
  seed: string;
  every: string;
}

function numberOrUndefined(s: string): number | undefined {
  return s.trim() === '' ? undefined : Number(s);
}

/** The overrides a start sends: trimmed paths, steps and checkpoint interval when above 0, a seed when given (0 too). */
export function runOverrides(f: OverrideFields): {
  model?: string;
  data?: string;
  steps?: number;
  seed?: number;
  checkpointEvery?: number;
} {
  return {
    ...(f.model.trim() ? { model: f.model.trim() } : {}),
    ...(f.data.trim() ? { data: f.data.trim() } : {}),
    ...(numberOrUndefined(f.steps) ? { steps: numberOrUndefined(f.steps) } : {}),
    ...(numberOrUndefined(f.seed) !== undefined ? { seed: numberOrUndefined(f.seed) } : {}),
    ...(numberOrUndefined(f.every) ? { checkpointEvery: numberOrUndefined(f.every) } : {}),
  };
}
