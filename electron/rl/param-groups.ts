/**
 * Which optimizer settings apply to which parameter, by name pattern. Patterns are globs over the engine's
 * tensor names (`*` matches within a dot-separated part, `**` across parts), e.g. `layers.*.moe.router`,
 * `value_head.*`, `**.attn_norm.weight`. Decoupled weight decay is off for norms, biases and the router by
 * default (decaying a norm gain towards 0 or a router towards uniform is not regularisation); frozen
 * parameters get no update and no optimizer state change at all (critic-only warm-up in PPO).
 * A model imported from a published checkpoint also answers to its published names (`aliases`:
 * `model.layers.*.self_attn.**`, `model.embed_tokens.weight`): a pattern applies to a parameter when it
 * matches every published tensor the parameter holds (the lab stacks a layer's experts in one tensor, so
 * a pattern naming only some experts of a layer is an error rather than a silent all-or-nothing).
 */

export interface GroupRule {
  /** Glob over parameter names. */
  pattern: string;
  /** Multiplies the schedule's learning rate for matching parameters (default 1). */
  lrScale?: number;
  /** Overrides the weight decay for matching parameters. */
  weightDecay?: number;
}

export interface ParamGroupOptions {
  /** Weight decay of parameters that no rule and no exemption covers. */
  weightDecay: number;
  /** Per-group rules, first match wins. */
  groups?: readonly GroupRule[];
  /** Parameters matching any of these are not trained. */
  freeze?: readonly string[];
  /** Names exempt from weight decay unless a rule sets it (default: norms, biases, the router). */
  noDecay?: readonly string[];
  /** Other names of each parameter (published Hugging Face names, several for stacked experts). */
  aliases?: ReadonlyMap<string, readonly string[]>;
}

export class ParamGroupError extends Error {
  override readonly name = 'ParamGroupError';
}

/** The settings one parameter trains with. */
export interface ParamSettings {
  lrScale: number;
  weightDecay: number;
  frozen: boolean;
  /** The rule that matched (its pattern), or null for the defaults: reported in run.json. */
  group: string | null;
}

export const DEFAULT_NO_DECAY: readonly string[] = ['**.*norm.weight', '**.bias', '**.moe.router'];

const cache = new Map<string, RegExp>();

/** A glob as a regular expression: `**` any characters, `*` any but a dot, `?` one character but a dot. */
export function globToRegExp(glob: string): RegExp {
  let re = cache.get(glob);
  if (re) return re;
  let src = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    if (c === '*' && glob[i + 1] === '*') {
      // `**.` also matches nothing (a top-level name), so `**.bias` matches `value_head.bias` and `bias`.
      if (glob[i + 2] === '.') {
        src += '(?:.*\\.)?';
        i += 2;
      } else {
        src += '.*';
        i++;
      }
    } else if (c === '*') src += '[^.]*';
    else if (c === '?') src += '[^.]';
    else src += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  re = new RegExp(`^${src}$`);
  cache.set(glob, re);
  return re;
}

export function matchesAny(name: string, patterns: readonly string[]): boolean {
  return patterns.some((p) => globToRegExp(p).test(name));
}

/** Whether a pattern names the parameter: its own name, or all of its aliases (some of them: an error). */
function appliesTo(
  pattern: string,
  name: string,
  aliases: ReadonlyMap<string, readonly string[]> | undefined,
): boolean {
  const re = globToRegExp(pattern);
  if (re.test(name)) return true;
  const other = aliases?.get(name);
  if (!other?.length) return false;
  const hit = other.filter((a) => re.test(a));
  if (hit.length === 0) return false;
  if (hit.length < other.length) {
    const miss = other.find((a) => !re.test(a))!;
    throw new ParamGroupError(
      `optimizer pattern '${pattern}' matches ${hit[0]} but not ${miss}, which the lab holds in the same tensor ${name} (${other.length} published tensors): name all of them or none`,
    );
  }
  return true;
}

export function settingsFor(name: string, options: ParamGroupOptions): ParamSettings {
  const frozen = (options.freeze ?? []).some((p) => appliesTo(p, name, options.aliases));
  const rule = (options.groups ?? []).find((g) => appliesTo(g.pattern, name, options.aliases));
  const exempt = matchesAny(name, options.noDecay ?? DEFAULT_NO_DECAY);
  return {
    lrScale: rule?.lrScale ?? 1,
    weightDecay: rule?.weightDecay ?? (exempt ? 0 : options.weightDecay),
    frozen,
    group: rule?.pattern ?? null,
  };
}

/** Settings of every parameter, in the given order; patterns that match nothing are reported (typos). */
export function resolveParamGroups(
  names: readonly string[],
  options: ParamGroupOptions,
): { settings: Map<string, ParamSettings>; unmatched: string[] } {
  const settings = new Map(names.map((n) => [n, settingsFor(n, options)]));
  const patterns = [...(options.freeze ?? []), ...(options.groups ?? []).map((g) => g.pattern)];
  const unmatched = patterns.filter(
    (p) =>
      !names.some(
        (n) => globToRegExp(p).test(n) || (options.aliases?.get(n) ?? []).some((a) => globToRegExp(p).test(a)),
      ),
  );
  return { settings, unmatched };
}
