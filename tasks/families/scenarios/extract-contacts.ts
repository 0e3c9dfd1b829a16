/** Extract and normalise e-mail addresses and phone numbers from messy text files. */
import { buildTask, phrase } from '../kit/task';
import { check, SCENARIO } from './kit/conventions';
import { byCodePoint, FIRST_NAMES, LAST_NAMES, NOUNS } from './kit/pools';
import type { FamilyRng, TaskFamily } from '../types';

function phone(rng: FamilyRng): { text: string; norm: string } {
  const a = rng.int(201, 989);
  const b = rng.int(200, 999);
  const c = String(rng.int(0, 9999)).padStart(4, '0');
  const styles = [`(${a}) ${b}-${c}`, `${a}.${b}.${c}`, `${a}-${b}-${c}`, `+1 ${a} ${b} ${c}`];
  return { text: rng.pick(styles), norm: `+1-${a}-${b}-${c}` };
}

export const extractContacts: TaskFamily = {
  name: 'extract-contacts',
  category: 'text-processing',
  summary: 'Pull e-mails and phone numbers out of messy notes, normalise and de-duplicate them',
  heldOut: true,
  difficulty: 'easy',
  generate(rng, { split }) {
    const emails = new Set<string>();
    const phones = new Set<string>();
    const files: Record<string, string> = {};
    const nFiles = rng.int(2, 5);
    for (let f = 0; f < nFiles; f++) {
      const lines: string[] = [];
      for (let i = rng.int(4, 10); i > 0; i--) {
        const who = `${rng.pick(FIRST_NAMES)}.${rng.pick(LAST_NAMES)}`;
        const dom = rng.pick(['example.com', 'mail.test', 'corp.example.org']);
        const kind = rng.int(0, 3);
        if (kind === 0) {
          const e = `${who}@${dom}`;
          emails.add(e);
          lines.push(`Contact ${rng.bool(0.5) ? e.toUpperCase() : e} for ${rng.pick(NOUNS)} questions.`);
        } else if (kind === 1) {
          const p = phone(rng);
          phones.add(p.norm);
          lines.push(`call ${p.text} (${rng.pick(['office', 'mobile', 'desk'])})`);
        } else if (kind === 2) {
          const e = `${who}@${dom}`;
          const p = phone(rng);
          emails.add(e);
          phones.add(p.norm);
          lines.push(`${who} <${e}>, tel: ${p.text}; ref #${rng.int(1000, 99999)}`);
        } else
          lines.push(
            `meeting at ${rng.int(1, 12)}:${rng.pick(['00', '30'])}, room ${rng.int(100, 999)}, budget ${rng.int(1000, 99999)}`,
          );
      }
      files[`notes/${rng.pick(NOUNS)}-${f + 1}.txt`] = lines.join('\n') + '\n';
    }
    if (emails.size === 0 || phones.size === 0) {
      const p = phone(rng);
      const e = `${rng.pick(FIRST_NAMES)}@example.com`;
      emails.add(e);
      phones.add(p.norm);
      files['notes/extra.txt'] = `${e} ${p.text}\n`;
    }
    const em = [...emails].sort(byCodePoint);
    const ph = [...phones].sort(byCodePoint);
    const instruction = phrase(rng, split, [
      `Scan every file in /app/notes. Write all e-mail addresses to /app/emails.txt (lower-cased, unique, sorted, one per line) and all US phone numbers to /app/phones.txt normalised as \`+1-AAA-BBB-CCCC\` (unique, sorted). Phone numbers appear as (AAA) BBB-CCCC, AAA.BBB.CCCC, AAA-BBB-CCCC or +1 AAA BBB CCCC. Finally write /app/summary.json: {"emails": count, "phones": count}.`,
      `Build a contact list from /app/notes/*.txt: emails.txt (addresses in lower case, deduplicated, sorted) and phones.txt (numbers in the form +1-AAA-BBB-CCCC, deduplicated, sorted), both in /app. Source phone formats vary: "(AAA) BBB-CCCC", "AAA.BBB.CCCC", "AAA-BBB-CCCC", "+1 AAA BBB CCCC". Add /app/summary.json with the two counts under keys emails and phones.`,
      `Extract contacts from the text notes in /app/notes. Output /app/emails.txt — unique lower-case addresses, sorted — and /app/phones.txt — unique numbers normalised to +1-AAA-BBB-CCCC, sorted (inputs look like (AAA) BBB-CCCC, AAA.BBB.CCCC, AAA-BBB-CCCC, +1 AAA BBB CCCC) — plus /app/summary.json {"emails": N, "phones": M}. Ref numbers, times and budgets are not phones.`,
    ]);
    return buildTask(SCENARIO, {
      family: extractContacts,
      difficulty: 'easy',
      split,
      instruction,
      files,
      solve: `cat notes/*.txt
grep -ohiE '[a-z0-9._-]+@[a-z0-9.-]+\\.[a-z]+' notes/*.txt | tr 'A-Z' 'a-z' | LC_ALL=C sort -u > emails.txt
grep -ohE '(\\+1 [0-9]{3} [0-9]{3} [0-9]{4}|\\([0-9]{3}\\) [0-9]{3}-[0-9]{4}|[0-9]{3}[.-][0-9]{3}[.-][0-9]{4})' notes/*.txt | sed -E 's/^\\+1 //; s/[^0-9]//g; s/^(...)(...)(....)$/+1-\\1-\\2-\\3/' | LC_ALL=C sort -u > phones.txt
printf '{"emails": %d, "phones": %d}\\n' "$(wc -l < emails.txt)" "$(wc -l < phones.txt)" > summary.json
cat emails.txt phones.txt summary.json`,
      expected: {
        'emails.txt': em.join('\n') + '\n',
        'phones.txt': ph.join('\n') + '\n',
        'summary.json': JSON.stringify({ emails: em.length, phones: ph.length }),
      },
      assertions: [
        check('emails', 'same', 'emails.txt', '/tests/expected/emails.txt'),
        check('phones', 'same', 'phones.txt', '/tests/expected/phones.txt'),
        check('summary counts', 'json', 'summary.json', '/tests/expected/summary.json'),
      ],
      tags: ['regex', 'grep', 'normalisation'],
    });
  },
};
