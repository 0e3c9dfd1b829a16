/**
 * The TITO token ledger of one episode: the exact ids of every segment (prompt, sampled, observation,
 * template) with its loss mask. Sampled ids are appended verbatim; everything else is tokenized alone, once,
 * as it arrives. Two modes:
 *  - exact (the default of the harness for token-level policies): the policy continues from the ledger's own
 *    ids, never from a re-tokenization. Before each turn the new text (the end of the last turn, the
 *    observation, the generation prompt) is appended, and a fresh tokenization of the whole rendering is
 *    compared as a diagnostic only: CLEAN / REPAIR / FORK are counted, the ids are left as they are. Only a
 *    rewrite of history (a context cut) forces a fork.
 *  - retokenize (for policies that only accept text, and as an ablation): the ledger is brought up to the
 *    fresh tokenization:
 *    - CLEAN: the ledger's ids equal the fresh tokenization (it extends);
 *    - REPAIR: a short divergence at the boundary of the last response (a BPE merge across the boundary, a
 *      template that renders the end of a turn differently): the divergent span is replaced by the fresh
 *      ids, masked out of the loss;
 *    - FORK: anything else (a context cut, a template that rewrites history): the sample is closed as it was
 *      and a new training sample starts from the fresh tokenization.
 * Every turn records what the sampler was fed (prompt length + hash, the sampled ids) and the routing of
 * every token it processed (R3). `lossDrift` counts loss positions of closed samples that do not reproduce
 * that record (checkLossDrift): an independent check, must stay 0.
 */
import type {
  FedTurn,
  LedgerCheck,
  LedgerCounters,
  LedgerSample,
  LedgerVerdict,
  SampledTokens,
  SegmentKind,
} from '../../domain/trajectory';
import type { TokenCodec } from './codec';
import { checkLossDrift, fedTurn } from './drift';

interface Segment {
  kind: SegmentKind;
  ids: number[];
  text: string;
  /** Sampled ids kept out of the loss: a repair changed what precedes them, so their conditioning changed. */
  masked?: boolean;
  logprobs?: number[];
  /** Per token, the sampler's experts per layer (null: not processed by the sampler yet). */
  routing?: (number[][] | null)[];
}

export type TitoMode = 'exact' | 'retokenize';

export interface LedgerOptions {
  /** Longest divergence (tokens, each side) that is repaired rather than forked. */
  repairWindow?: number;
  /** Default 'retokenize' (the harness passes 'exact' for token-level policies). */
  mode?: TitoMode;
}

/** What the sampler was fed on a turn: the ids it ran on, and the routing of each of them (null: none). */
export interface FedPrompt {
  ids: readonly number[];
  routing: number[][][] | null;
}

export const DEFAULT_REPAIR_WINDOW = 16;

function commonPrefix(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  let i = 0;
  while (i < n && a.charCodeAt(i) === b.charCodeAt(i)) i++;
  return i;
}

function firstDifference(a: readonly number[], b: readonly number[]): number | null {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return i;
  return a.length === b.length ? null : n;
}

function commonSuffix(a: readonly number[], b: readonly number[], limit: number): number {
  let s = 0;
  while (s < limit && a[a.length - 1 - s] === b[b.length - 1 - s]) s++;
  return s;
}

export class TokenLedger {
  private segments: Segment[] = [];
  private readonly closed: LedgerSample[] = [];
  private readonly window: number;
  readonly mode: TitoMode;
  readonly counters: LedgerCounters = {
    clean: 0,
    repair: 0,
    fork: 0,
    maskedSampled: 0,
    lossDrift: 0,
    exact: 0,
    retokenized: 0,
  };
  /** The turns of the current sample as the sampler saw them. */
  private fed: FedTurn[] = [];
  /** The rendering the ledger's ids stood for before the last sampled turn (exact mode)... */
  private rendered = '';
  /** ...and the length of the ledger's own text then (it differs when a template rewrote a reply). */
  private ledgerChars = 0;

  constructor(
    private readonly codec: TokenCodec,
    options: LedgerOptions = {},
  ) {
    this.window = options.repairWindow ?? DEFAULT_REPAIR_WINDOW;
    this.mode = options.mode ?? 'retokenize';
  }

  /** Flat ids and text of the segments, rebuilt only after a change (the conversation grows to 100k+ tokens). */
  private flat: { ids: number[]; text: string } | null = null;

  private changed(): void {
    this.flat = null;
  }

  /** Append a segment, extending the flat view in place (the common path: no rebuild). */
  private push(segment: Segment): void {
    this.segments.push(segment);
    if (this.flat) {
      for (const id of segment.ids) this.flat.ids.push(id);
      this.flat.text += segment.text;
    }
  }

  private view(): { ids: number[]; text: string } {
    if (!this.flat) {
      const ids: number[] = [];
      for (const s of this.segments) for (const id of s.ids) ids.push(id);
      this.flat = { ids, text: this.segments.map((s) => s.text).join('') };
    }
    return this.flat;
  }

  /** The ids the policy continues from (the current sample). */
  ids(): number[] {
    return [...this.view().ids];
  }

  text(): string {
    return this.view().text;
  }

  /**
   * What the policy sampled, verbatim (mask 1), and what it was fed to sample it: the prompt ids it actually
   * ran on (recorded for the loss-drift check) and their routing (R3: kept where the ledger has no routing
   * for a position yet, i.e. as the sampler first processed it).
   */
  appendSampled(tokens: SampledTokens, fed?: FedPrompt): void {
    if (tokens.ids.length === 0) return;
    if (fed) {
      this.fed.push(fedTurn(fed.ids, tokens.ids));
      if (fed.routing) this.fillRouting(fed.routing);
    }
    this.push({
      kind: 'sampled',
      ids: [...tokens.ids],
      text: this.codec.decode(tokens.ids),
      logprobs: [...tokens.logprobs],
      routing: tokens.routing ? [...tokens.routing] : undefined,
    });
  }

  private fillRouting(routing: readonly number[][][]): void {
    let offset = 0;
    for (const seg of this.segments) {
      if (offset >= routing.length) break;
      for (let i = 0; i < seg.ids.length && offset + i < routing.length; i++) {
        seg.routing ??= new Array<number[][] | null>(seg.ids.length).fill(null);
        seg.routing[i] ??= routing[offset + i]!;
      }
      offset += seg.ids.length;
    }
  }

  /**
   * Bring the ledger up to `rendered` (the whole conversation as the chat template writes it now) and check
   * it against a fresh tokenization. `observations` are the texts to tag as observation segments where they
   * appear in what is appended. Returns null on the first call (the prompt).
   */
  sync(rendered: string, observations: readonly string[] = []): LedgerCheck | null {
    if (this.segments.length === 0) {
      this.push({ kind: 'prompt', ids: this.codec.encode(rendered), text: rendered });
      this.rendered = rendered;
      this.ledgerChars = rendered.length;
      return null;
    }
    if (this.mode === 'exact') {
      const check = this.extendExactly(rendered, observations);
      if (check) return check;
    }
    const before = this.segments.map((s) => ({ ...s }));
    const boundary = this.boundary();
    const removed = this.truncateTo(commonPrefix(this.text(), rendered));
    const truncatedAt = this.view().ids.length;
    this.appendText(rendered.slice(this.text().length), observations);
    const ledger = this.view().ids;
    const fresh = this.codec.encode(rendered);
    const d = firstDifference(ledger, fresh);

    if (d === null && removed.content === 0) {
      this.counters.clean++;
      this.rendered = rendered;
      this.ledgerChars = rendered.length;
      return { verdict: 'CLEAN', divergenceAt: null, ledgerSpan: 0, freshSpan: 0, maskedSampled: 0 };
    }
    const s = d === null ? 0 : commonSuffix(ledger, fresh, Math.min(ledger.length, fresh.length) - d);
    const ledgerSpan = d === null ? 0 : ledger.length - s - d;
    const freshSpan = d === null ? 0 : fresh.length - s - d;
    const start = Math.min(d ?? truncatedAt, truncatedAt);
    // Template text cut from the end (a generation prompt, a re-rendered turn end) is re-rendered, not drift.
    const repairable = start >= boundary && ledgerSpan + removed.content <= this.window && freshSpan <= this.window;
    if (repairable) {
      const masked =
        d === null ? 0 : this.replace(d, d + ledgerSpan, fresh.slice(d, d + freshSpan)) + this.maskFrom(d + freshSpan);
      if (this.text() === rendered) {
        this.counters.repair++;
        this.counters.retokenized!++;
        this.counters.maskedSampled += masked + removed.sampled;
        this.rendered = rendered;
        this.ledgerChars = rendered.length;
        return {
          verdict: 'REPAIR',
          divergenceAt: start,
          ledgerSpan: ledgerSpan + removed.tokens,
          freshSpan,
          maskedSampled: masked + removed.sampled,
          applied: true,
        };
      }
    }
    // Fork: keep the sample exactly as it was sampled, start a new one from the fresh tokenization.
    this.close(before);
    this.segments = [{ kind: 'prompt', ids: fresh, text: rendered }];
    this.changed();
    this.rendered = rendered;
    this.ledgerChars = rendered.length;
    this.counters.fork++;
    this.counters.retokenized!++;
    return {
      verdict: 'FORK',
      divergenceAt: start,
      ledgerSpan: ledgerSpan + removed.tokens,
      freshSpan,
      maskedSampled: 0,
      applied: true,
    };
  }

  /**
   * Exact TITO: append what the rendering added after the last turn, tokenized once, keeping every id the
   * policy sampled; compare with a fresh tokenization as a diagnostic. Null when history was rewritten
   * (the rendering no longer starts with the one the ledger stood for): the caller falls back to a fork.
   */
  private extendExactly(rendered: string, observations: readonly string[]): LedgerCheck | null {
    if (!rendered.startsWith(this.rendered)) return null;
    const added = rendered.slice(this.rendered.length);
    const sampledText = this.text().slice(this.ledgerChars);
    // Where the last turn ends in the rendering: after the sampled text when the template wrote it as it was
    // sampled, else after the first rendering of the sampled turn's last token (e.g. <|im_end|>) — a template
    // that trims the content renders the turn differently, but the policy keeps seeing what it sampled.
    let cut: number | null = added.startsWith(sampledText) ? sampledText.length : null;
    if (cut === null) {
      const last = [...this.segments].reverse().find((seg) => seg.kind === 'sampled');
      const tail = last ? this.codec.decode(last.ids.slice(-1)) : '';
      const at = tail ? added.indexOf(tail) : -1;
      if (at < 0) return null;
      cut = at + tail.length;
    }
    this.appendText(added.slice(cut), observations);
    this.rendered = rendered;
    this.ledgerChars = this.text().length;
    this.counters.exact!++;
    const diagnosis = this.diagnose(rendered);
    this.counters[diagnosis.verdict === 'CLEAN' ? 'clean' : diagnosis.verdict === 'REPAIR' ? 'repair' : 'fork']++;
    return { ...diagnosis, applied: false };
  }

  /** Take the sampled ids at or after `from` out of the loss (what precedes them is not what the sampler saw). */
  private maskFrom(from: number): number {
    let offset = 0;
    let masked = 0;
    for (const seg of this.segments) {
      if (offset >= from && seg.kind === 'sampled' && !seg.masked) {
        seg.masked = true;
        masked += seg.ids.length;
      }
      offset += seg.ids.length;
    }
    return masked;
  }

  /** How the ledger's ids compare with a fresh tokenization of `rendered`, changing nothing. */
  private diagnose(rendered: string): Omit<LedgerCheck, 'applied'> & { verdict: LedgerVerdict } {
    const ledger = this.view().ids;
    const fresh = this.codec.encode(rendered);
    const d = firstDifference(ledger, fresh);
    if (d === null) return { verdict: 'CLEAN', divergenceAt: null, ledgerSpan: 0, freshSpan: 0, maskedSampled: 0 };
    const s = commonSuffix(ledger, fresh, Math.min(ledger.length, fresh.length) - d);
    const ledgerSpan = ledger.length - s - d;
    const freshSpan = fresh.length - s - d;
    const repairable = d >= this.boundary() && ledgerSpan <= this.window && freshSpan <= this.window;
    return { verdict: repairable ? 'REPAIR' : 'FORK', divergenceAt: d, ledgerSpan, freshSpan, maskedSampled: 0 };
  }

  /** Close the episode: a last check against the final rendering, then the samples. */
  finish(rendered: string, observations: readonly string[] = []): LedgerSample[] {
    if (this.segments.some((s) => s.kind === 'sampled')) {
      // Exact TITO: the sample ends as the sampler left it (what follows the last turn trains nothing).
      if (this.mode === 'retokenize') this.sync(rendered, observations);
      this.close(this.segments);
    }
    this.segments = [];
    this.changed();
    return [...this.closed];
  }

  samples(): LedgerSample[] {
    return [...this.closed];
  }

  /** Where the last response starts: divergences before it are not repairs. */
  private boundary(): number {
    let offset = 0;
    let lastSampled = -1;
    for (const s of this.segments) {
      if (s.kind === 'sampled') lastSampled = offset;
      offset += s.ids.length;
    }
    return lastSampled >= 0 ? lastSampled : offset;
  }

  private appendText(text: string, observations: readonly string[]): void {
    let cursor = 0;
    const push = (kind: SegmentKind, piece: string) => {
      if (piece.length) this.push({ kind, ids: this.codec.encode(piece), text: piece });
    };
    for (const obs of observations) {
      if (!obs) continue;
      const at = text.indexOf(obs, cursor);
      if (at < 0) continue;
      push('template', text.slice(cursor, at));
      push('observation', obs);
      cursor = at + obs.length;
    }
    push('template', text.slice(cursor));
  }

  /** Cut the ledger's text back to `chars`; sampled tokens are kept whole (the longest id prefix that fits). */
  private truncateTo(chars: number): { tokens: number; sampled: number; content: number } {
    let tokens = 0;
    let sampled = 0;
    let content = 0;
    let start = this.text().length;
    if (chars < start) this.changed();
    while (this.segments.length) {
      const seg = this.segments[this.segments.length - 1]!;
      start -= seg.text.length;
      if (start + seg.text.length <= chars) break;
      if (start >= chars) {
        this.segments.pop();
        tokens += seg.ids.length;
        if (seg.kind === 'sampled') sampled += seg.ids.length;
        if (seg.kind !== 'template') content += seg.ids.length;
        continue;
      }
      const keepText = seg.text.slice(0, chars - start);
      if (seg.kind === 'sampled') {
        const k = this.longestPrefix(seg.ids, keepText);
        tokens += seg.ids.length - k;
        sampled += seg.ids.length - k;
        content += seg.ids.length - k;
        seg.ids = seg.ids.slice(0, k);
        seg.logprobs = seg.logprobs?.slice(0, k);
        seg.routing = seg.routing?.slice(0, k);
        seg.text = this.codec.decode(seg.ids);
      } else {
        const ids = this.codec.encode(keepText);
        tokens += Math.max(0, seg.ids.length - ids.length);
        if (seg.kind !== 'template') content += Math.max(0, seg.ids.length - ids.length);
        seg.ids = ids;
        seg.text = keepText;
        seg.routing = undefined;
      }
      if (seg.ids.length === 0) this.segments.pop();
      break;
    }
    return { tokens, sampled, content };
  }

  /** The most ids of `ids` whose decoding is a prefix of `text` (binary search; decoding is monotone enough). */
  private longestPrefix(ids: readonly number[], text: string): number {
    let lo = 0;
    let hi = ids.length;
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (text.startsWith(this.codec.decode(ids.slice(0, mid)))) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  /** Replace ids [from, to) with `ids` as a masked template segment; returns the sampled ids taken out. */
  private replace(from: number, to: number, ids: number[]): number {
    const out: Segment[] = [];
    let offset = 0;
    let masked = 0;
    let inserted = false;
    const insert = () => {
      if (!inserted && ids.length) out.push({ kind: 'template', ids, text: '' });
      inserted = true;
    };
    for (const seg of this.segments) {
      const a = offset;
      const b = offset + seg.ids.length;
      offset = b;
      if (b <= from) {
        out.push(seg);
        continue;
      }
      if (a >= to) {
        insert();
        out.push(seg);
        continue;
      }
      const head = Math.max(0, from - a);
      const tail = Math.max(0, b - to);
      if (seg.kind === 'sampled') masked += seg.ids.length - head - tail;
      if (head) out.push(this.slice(seg, 0, head));
      insert();
      if (tail) out.push(this.slice(seg, seg.ids.length - tail, seg.ids.length));
    }
    insert();
    // Texts of cut segments are re-derived from their ids; `sync` checks they still add up to the rendering.
    this.segments = out
      .filter((s) => s.ids.length > 0)
      .map((s) => (s.text === '' || s.ids.length === 0 ? { ...s, text: this.codec.decode(s.ids) } : s));
    this.changed();
    return masked;
  }

  private slice(seg: Segment, a: number, b: number): Segment {
    return {
      kind: seg.kind,
      ids: seg.ids.slice(a, b),
      text: '',
      ...(seg.masked ? { masked: true } : {}),
      logprobs: seg.logprobs?.slice(a, b),
      routing: seg.routing?.slice(a, b),
    };
  }

  private close(segments: Segment[]): void {
    if (!segments.some((s) => s.kind === 'sampled')) return;
    const ids: number[] = [];
    const mask: (0 | 1)[] = [];
    const logprobs: (number | null)[] = [];
    const routing: (number[][] | null)[] = [];
    const spans: LedgerSample['segments'] = [];
    let hasRouting = false;
    for (const seg of segments) {
      spans.push({ kind: seg.kind, start: ids.length, length: seg.ids.length });
      for (let i = 0; i < seg.ids.length; i++) {
        ids.push(seg.ids[i]!);
        const sampled = seg.kind === 'sampled';
        mask.push(sampled && !seg.masked ? 1 : 0);
        logprobs.push(sampled ? (seg.logprobs?.[i] ?? null) : null);
        const r = seg.routing?.[i] ?? null;
        if (r) hasRouting = true;
        routing.push(r);
      }
    }
    const sample: LedgerSample = {
      ids,
      mask,
      logprobs,
      segments: spans,
      ...(hasRouting ? { routing } : {}),
      fed: this.fed,
    };
    this.counters.lossDrift += checkLossDrift(sample).drift;
    this.closed.push(sample);
    this.fed = [];
  }
}
