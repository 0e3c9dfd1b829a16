/**
 * The parts of Hugging Face's `tokenizer.json` (format "1.0") and `tokenizer_config.json` that the lab reads
 * or writes. Reading is loose (unknown fields and component types pass through to @huggingface/tokenizers);
 * what is checked here is what the lab relies on, so a broken file fails with its field named.
 */
import { z } from 'zod';

export const AddedTokenJson = z.looseObject({
  id: z.number().int().nonnegative(),
  content: z.string().min(1),
  single_word: z.boolean().optional(),
  lstrip: z.boolean().optional(),
  rstrip: z.boolean().optional(),
  normalized: z.boolean().optional(),
  special: z.boolean().optional(),
});
export type AddedTokenJson = z.infer<typeof AddedTokenJson>;

const Component = z.looseObject({ type: z.string() });

export const TokenizerJson = z.looseObject({
  version: z.string().optional(),
  added_tokens: z.array(AddedTokenJson).default([]),
  normalizer: Component.nullable().default(null),
  pre_tokenizer: Component.nullable().default(null),
  post_processor: Component.nullable().default(null),
  decoder: Component.nullable().default(null),
  model: z.looseObject({ type: z.string().optional(), vocab: z.unknown() }),
});
export type TokenizerJson = z.infer<typeof TokenizerJson>;

/** A token named in tokenizer_config.json: a string, or an AddedToken object with its content. */
const TokenRef = z.union([z.string(), z.looseObject({ content: z.string() }), z.null()]).optional();

export const TokenizerConfigJson = z.looseObject({
  eos_token: TokenRef,
  bos_token: TokenRef,
  pad_token: TokenRef,
  chat_template: z.union([z.string(), z.array(z.looseObject({ name: z.string(), template: z.string() }))]).optional(),
});
export type TokenizerConfigJson = z.infer<typeof TokenizerConfigJson>;

export function tokenRefContent(ref: z.infer<typeof TokenRef>): string | null {
  if (ref === undefined || ref === null) return null;
  return typeof ref === 'string' ? ref : ref.content;
}

/** The default chat template of a config (a string, or the one named 'default' in a list). */
export function chatTemplateOf(config: TokenizerConfigJson): string | null {
  const t = config.chat_template;
  if (t === undefined) return null;
  if (typeof t === 'string') return t;
  return (t.find((x) => x.name === 'default') ?? t[0])?.template ?? null;
}

/** Zod issues as one line naming each field: `model.vocab: expected object`. */
export function describeIssues(error: z.ZodError): string {
  return error.issues.map((i) => `${i.path.join('.') || '(root)'}: ${i.message}`).join('; ');
}
