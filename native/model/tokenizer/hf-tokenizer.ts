/**
 * `Tokenizer` over @huggingface/tokenizers: loads any Hugging Face `tokenizer.json` (BPE, WordPiece,
 * Unigram; byte-level or not) and adds what the lab needs on top:
 * - byte exactness: for byte-level vocabularies, decoding maps tokens to bytes itself (the library's
 *   decoder turns invalid UTF-8 into U+FFFD), and raw bytes travel as byte escapes (bytes.ts);
 * - `parseSpecialTokens: false` for untrusted text (the library always splits added tokens out);
 * - errors instead of silent substitutions: an id outside the vocabulary, a string with a stray
 *   surrogate, a character with no token and no unknown token all throw a TokenizerError.
 * - decode never applies `clean_up_tokenization_spaces` (it rewrites " ." to ".", which loses text).
 */
import { readFileSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Tokenizer as HfTokenizerImpl } from '@huggingface/tokenizers';
import { BYTE_TO_CHAR, CHAR_TO_BYTE, ByteEscapeError, bytesToText, splitByteEscapes, type TextPiece } from './bytes';
import { WELL_KNOWN_TOKENS } from './special';
import {
  TokenizerConfigJson,
  TokenizerJson,
  chatTemplateOf,
  describeIssues,
  tokenRefContent,
  type TokenizerConfigJson as TokenizerConfigJsonType,
} from './tokenizer-json';
import {
  TokenizerError,
  type AddedTokenInfo,
  type DecodeOptions,
  type EncodeOptions,
  type RoundTrip,
  type SpecialTokenIds,
  type Tokenizer,
} from './types';

const utf8 = new TextEncoder();

export interface LoadTokenizerOptions {
  /** tokenizer_config.json content (chat template, eos/pad names); optional. */
  config?: unknown;
  /** Named in error messages (a path). */
  source?: string;
  /** More ids that end a turn (a checkpoint's generation_config.json `eos_token_id` list). */
  extraStopIds?: readonly number[];
}

/** Make a Tokenizer from tokenizer.json text. */
export function loadTokenizer(json: string, options: LoadTokenizerOptions = {}): Tokenizer {
  const source = options.source ?? 'tokenizer.json';
  let raw: unknown;
  try {
    raw = JSON.parse(json);
  } catch (error) {
    throw new TokenizerError(`${source}: not valid JSON (${(error as Error).message})`);
  }
  const parsed = TokenizerJson.safeParse(raw);
  if (!parsed.success) throw new TokenizerError(`${source}: ${describeIssues(parsed.error)}`);
  let config: TokenizerConfigJsonType = {};
  if (options.config !== undefined) {
    const c = TokenizerConfigJson.safeParse(options.config);
    if (!c.success) throw new TokenizerError(`${source} (tokenizer_config.json): ${describeIssues(c.error)}`);
    config = c.data;
  }
  return new HfTokenizer(json, parsed.data, config, source, options.extraStopIds ?? []);
}

/**
 * Load `path` (a tokenizer.json, or a folder holding one). A `tokenizer_config.json` beside it is read too
 * (for the chat template and eos/pad names) when present.
 */
export function loadTokenizerFile(path: string, extraStopIds: readonly number[] = []): Tokenizer {
  const file = path.endsWith('.json') ? path : join(path, 'tokenizer.json');
  if (!existsSync(file)) throw new TokenizerError(`${file}: no such file (a checkpoint needs its tokenizer.json)`);
  const configFile = join(dirname(file), 'tokenizer_config.json');
  let config: unknown;
  if (existsSync(configFile)) {
    try {
      config = JSON.parse(readFileSync(configFile, 'utf8'));
    } catch (error) {
      throw new TokenizerError(`${configFile}: not valid JSON (${(error as Error).message})`);
    }
  }
  return loadTokenizer(readFileSync(file, 'utf8'), { config, source: file, extraStopIds });
}

class HfTokenizer implements Tokenizer {
  readonly vocabSize: number;
  readonly byteLevel: boolean;
  readonly roundTrip: RoundTrip;
  readonly special: SpecialTokenIds;
  readonly addedTokens: readonly AddedTokenInfo[];
  readonly stopTokenIds: readonly number[];
  readonly chatTemplate: string | null;
  private readonly impl: HfTokenizerImpl;
  private readonly specialIds: ReadonlySet<number>;
  private readonly addedById: ReadonlyMap<number, AddedTokenInfo>;
  /** Byte-level only: id of the token for each byte. */
  private readonly byteIds: Int32Array | null;
  private readonly bytesCache = new Map<number, Uint8Array>();

  constructor(
    readonly json: string,
    spec: TokenizerJson,
    config: TokenizerConfigJsonType,
    private readonly source: string,
    extraStopIds: readonly number[] = [],
  ) {
    try {
      // The library needs every component key present (null when absent); the zod defaults supply them.
      this.impl = new HfTokenizerImpl(spec, { ...config, clean_up_tokenization_spaces: false });
    } catch (error) {
      throw new TokenizerError(`${source}: @huggingface/tokenizers cannot load it: ${(error as Error).message}`);
    }
    this.addedTokens = spec.added_tokens.map((t) => ({ id: t.id, content: t.content, special: t.special ?? false }));
    this.addedById = new Map(this.addedTokens.map((t) => [t.id, t]));
    this.specialIds = new Set(this.addedTokens.filter((t) => t.special).map((t) => t.id));
    let maxId = -1;
    for (const id of this.impl.get_vocab(true).values()) if (id > maxId) maxId = id;
    this.vocabSize = maxId + 1;

    const byteIds = new Int32Array(256);
    let allBytes = spec.model.type === 'BPE' || spec.model.type === undefined;
    for (let b = 0; b < 256 && allBytes; b++) {
      const id = this.impl.token_to_id(BYTE_TO_CHAR[b] as string);
      if (id === undefined) allBytes = false;
      else byteIds[b] = id;
    }
    this.byteLevel = allBytes && spec.decoder?.type === 'ByteLevel';
    this.byteIds = this.byteLevel ? byteIds : null;
    const strips = spec.added_tokens.some((t) => t.lstrip || t.rstrip);
    this.roundTrip = !this.byteLevel
      ? 'lossy'
      : spec.normalizer !== null || strips || addsPrefixSpace(spec.pre_tokenizer)
        ? 'normalized'
        : 'exact';

    const special: SpecialTokenIds = {};
    for (const [key, content] of Object.entries(WELL_KNOWN_TOKENS) as [keyof typeof WELL_KNOWN_TOKENS, string][]) {
      const id = this.impl.token_to_id(content);
      if (id !== undefined) special[key] = id;
    }
    const named = (ref: unknown) => {
      const content = tokenRefContent(ref as Parameters<typeof tokenRefContent>[0]);
      return content === null ? undefined : this.impl.token_to_id(content);
    };
    const eos = named(config.eos_token);
    const bos = named(config.bos_token);
    const pad = named(config.pad_token) ?? special.endOfText;
    if (eos !== undefined) special.eos = eos;
    if (bos !== undefined) special.bos = bos;
    if (pad !== undefined) special.pad = pad;
    this.special = special;
    this.stopTokenIds = [
      ...new Set(
        [special.imEnd, special.endOfText, special.eos, ...extraStopIds].filter((x): x is number => x !== undefined),
      ),
    ];
    this.chatTemplate = chatTemplateOf(config);
  }

  encode(text: string, options: EncodeOptions = {}): number[] {
    let pieces: TextPiece[];
    try {
      pieces = splitByteEscapes(text);
    } catch (error) {
      if (error instanceof ByteEscapeError) throw new TokenizerError(`cannot encode: ${error.message}`);
      throw error;
    }
    const parse = options.parseSpecialTokens ?? true;
    let tokens: string[] = [];
    for (const piece of pieces) {
      if (piece.kind === 'text') {
        // A loop, not push(...list): a long document has more tokens than a call may take arguments.
        for (const t of parse
          ? this.impl.tokenize(piece.text, { add_special_tokens: false })
          : this.tokenizeRaw(piece.text))
          tokens.push(t);
      } else {
        if (!this.byteLevel) {
          throw new TokenizerError(
            `cannot encode raw byte 0x${(piece.bytes[0] as number).toString(16)}: ${this.source} is not a byte-level BPE tokenizer, so it has no token for bytes that are not UTF-8`,
          );
        }
        for (const b of piece.bytes) tokens.push(BYTE_TO_CHAR[b] as string);
      }
    }
    if (options.addSpecialTokens && this.impl.post_processor)
      tokens = this.impl.post_processor(tokens, null, true).tokens;
    const unk = this.impl.model?.unk_token_id;
    return tokens.map((t) => {
      const id = this.impl.token_to_id(t) ?? unk;
      if (id === undefined)
        throw new TokenizerError(
          `cannot encode ${JSON.stringify(t)}: not in the vocabulary of ${this.source}, which has no unknown token`,
        );
      return id;
    });
  }

  encodeBytes(bytes: Uint8Array, options?: EncodeOptions): number[] {
    return this.encode(bytesToText(bytes), options);
  }

  decode(ids: readonly number[], options: DecodeOptions = {}): string {
    if (this.byteLevel) return bytesToText(this.decodeBytes(ids, options));
    this.checkIds(ids);
    if (ids.length === 0) return '';
    return this.impl.decode([...ids], {
      skip_special_tokens: options.skipSpecialTokens ?? false,
      clean_up_tokenization_spaces: false,
    });
  }

  decodeBytes(ids: readonly number[], options: DecodeOptions = {}): Uint8Array {
    if (!this.byteLevel)
      throw new TokenizerError(`decodeBytes: ${this.source} is not a byte-level BPE tokenizer; use decode()`);
    this.checkIds(ids);
    const parts: Uint8Array[] = [];
    let total = 0;
    for (const id of ids) {
      if (options.skipSpecialTokens && this.specialIds.has(id)) continue;
      const b = this.tokenBytes(id);
      parts.push(b);
      total += b.length;
    }
    const out = new Uint8Array(total);
    let offset = 0;
    for (const p of parts) {
      out.set(p, offset);
      offset += p.length;
    }
    return out;
  }

  tokenBytes(id: number): Uint8Array {
    if (!this.byteLevel) throw new TokenizerError(`tokenBytes: ${this.source} is not a byte-level BPE tokenizer`);
    const cached = this.bytesCache.get(id);
    if (cached) return cached;
    const token = this.impl.id_to_token(id);
    if (token === undefined)
      throw new TokenizerError(`token id ${id} is not in the vocabulary of ${this.source} (size ${this.vocabSize})`);
    const added = this.addedById.get(id);
    let bytes: Uint8Array;
    if (added) bytes = utf8.encode(added.content);
    else {
      const out: number[] = [];
      for (const ch of token) {
        const b = CHAR_TO_BYTE.get(ch);
        if (b !== undefined) out.push(b);
        else out.push(...utf8.encode(ch)); // a vocabulary entry outside the alphabet: its own UTF-8, as the Rust decoder does
      }
      bytes = Uint8Array.from(out);
    }
    this.bytesCache.set(id, bytes);
    return bytes;
  }

  tokens(ids: readonly number[]): string[] {
    this.checkIds(ids);
    return ids.map((id) => this.impl.id_to_token(id) as string);
  }

  tokenToId(token: string): number | undefined {
    return this.impl.token_to_id(token);
  }

  idToToken(id: number): string | undefined {
    return this.impl.id_to_token(id);
  }

  isSpecial(id: number): boolean {
    return this.specialIds.has(id);
  }

  /** Normalizer -> pre-tokenizer -> model on the whole text, without splitting added tokens out. */
  private tokenizeRaw(text: string): string[] {
    const normalized = this.impl.normalizer ? this.impl.normalizer(text) : text;
    if (normalized.length === 0) return [];
    const pre = this.impl.pre_tokenizer ? this.impl.pre_tokenizer(normalized, { section_index: 0 }) : [normalized];
    return this.impl.model ? this.impl.model(pre) : pre;
  }

  private checkIds(ids: readonly number[]): void {
    for (let i = 0; i < ids.length; i++) {
      const id = ids[i] as number;
      if (!Number.isInteger(id) || id < 0 || this.impl.id_to_token(id) === undefined) {
        throw new TokenizerError(
          `token id ${id} at position ${i} is not in the vocabulary of ${this.source} (size ${this.vocabSize})`,
        );
      }
    }
  }
}

function addsPrefixSpace(pre: TokenizerJson['pre_tokenizer']): boolean {
  if (!pre) return false;
  if (pre.add_prefix_space === true) return true;
  if (pre.type === 'Metaspace') return true;
  const children = (pre as { pretokenizers?: unknown }).pretokenizers;
  return Array.isArray(children) && children.some((c) => addsPrefixSpace(c as TokenizerJson['pre_tokenizer']));
}
