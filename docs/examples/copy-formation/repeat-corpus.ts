/**
 * Dense copy corpora for the LM stage (a `data.path` text file), written to OUT:
 *  - `paths`: lists of 3-12 random names (words, file names, paths, key=value) written, then written again
 *    (30% of the second writings keep a random subset); names tokenize nearly one character a token;
 *  - `words`: lists of 8-40 whole vocabulary tokens (letters, digits, `_./ -`, two characters or more) written
 *    twice, so that each token's earlier occurrence names the one after it (single-token induction).
 * Nothing here is drawn from an evaluation seed. Usage:
 *
 *   npx tsx docs/examples/copy-formation/repeat-corpus.ts paths OUT [DOCS] [CHECKPOINT]
 *   npx tsx docs/examples/copy-formation/repeat-corpus.ts words OUT [DOCS] CHECKPOINT   (its tokenizer)
 */
import { writeFileSync } from 'node:fs';
import { openCheckpoint } from '../../../native/model/policy-checkpoint';
import { createFamilyRng } from '../../../tasks/families/rng';
import { wholeWords } from './whole-words';

const [kind, out, docsArg, checkpoint] = process.argv.slice(2);
if ((kind !== 'paths' && kind !== 'words') || !out)
  throw new Error('usage: repeat-corpus.ts paths|words OUT [DOCS] [CHECKPOINT]');
const documents = Number(docsArg ?? 20_000);
const STEMS = [
  'notes',
  'config',
  'hosts',
  'todo',
  'motd',
  'readme',
  'report',
  'data',
  'cedar',
  'ember',
  'pixel',
  'atlas',
];
const EXTS = ['txt', 'cfg', 'list', 'log', 'csv', 'json', 'md'];

function words(): string[] {
  if (!checkpoint) throw new Error('words: give the CHECKPOINT whose tokenizer names the tokens');
  const ck = openCheckpoint(checkpoint, { verifyHashes: false });
  if (ck.kind !== 't1-moe') throw new Error(`${checkpoint}: not a t1-moe checkpoint`);
  return wholeWords(ck.tokenizer!, ck.config.vocab_size);
}

const vocabulary = kind === 'words' ? words() : [];
const text: string[] = [];
for (let d = 0; d < documents; d++) {
  if (kind === 'words') {
    const r = createFamilyRng(7_000_000 + d);
    const items = Array.from({ length: r.int(8, 40) }, () => r.pick(vocabulary));
    text.push(
      `${r.pick(['Tokens:', 'Seq:', 'Input:'])}\n${items.join('')}\n${r.pick(['Again:', 'Repeat:', 'Copy:'])}\n${items.join('')}\n`,
    );
    continue;
  }
  const r = createFamilyRng(5_000_000 + d);
  const item = () => {
    const k = r.int(0, 3);
    if (k === 0) return r.word(r.int(3, 8));
    if (k === 1) return `${r.pick(STEMS)}_${r.word(r.int(2, 5))}.${r.pick(EXTS)}`;
    if (k === 2) return `/${r.word(r.int(3, 6))}/${r.word(r.int(2, 5))}/${r.word(r.int(2, 6))}`;
    return `${r.word(r.int(2, 6))}=${r.int(0, 9999)}`;
  };
  const items = Array.from({ length: r.int(3, 12) }, item);
  const sep = r.pick(['\n', ' ', ', ']);
  const again = r.bool(0.7) ? items : items.filter(() => r.bool(0.6));
  text.push(
    `${r.pick(['List:', 'Items:', 'Names:', 'Files:'])}\n${items.join(sep)}\n${r.pick(['Again:', 'Repeat:', 'Copy:'])}\n${again.join(sep)}\n`,
  );
}
writeFileSync(out, text.join('\n'));
console.log(`${out}: ${documents} ${kind} documents, ${text.join('\n').length} characters`);
