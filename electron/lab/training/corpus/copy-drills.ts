/**
 * Copy drills for the LM stage (`data.path` entry `builtin:copy`): short agent transcripts in the policy's
 * own format whose instruction names random spans (paths, file names, key=value lines, patterns, modes)
 * and whose tool calls and tool outputs repeat them, plus plain documents that list random spans and then
 * repeat them. Random spans cannot be predicted the first time they appear; the second time only by
 * copying from the context, so a corpus rich in them is a corpus that rewards in-context copying, the
 * skill the nano policy lacks (recipe-learning.md: a first command holds 3-6 names copied token by token).
 * Generated deterministically from a seed; nothing here comes from the evaluation suites' seeds.
 */
import { NAME_STEMS } from '../../../../tasks/families/core/kit';
import { createFamilyRng } from '../../../../tasks/families/rng';
import type { FamilyRng } from '../../../../tasks/families/types';
import { chatml } from '../../../agent/chat/chatml';
import { createHermesProtocol } from '../../../agent/protocol/hermes';
import type { ChatMessage } from '../../../domain/trajectory';
import { shellWord } from '../../../domain/eval-command';

/** Documents of the drill corpus: about 0.98M tokens with the nano tokenizer, as many as the builtin corpus (0.97M), so drills are half the stream. */
export const COPY_DRILL_DOCUMENTS = 4_500;

/** The core families' name stems, and the stems of everyday files a task names. */
const STEMS = [...NAME_STEMS, 'notes', 'config', 'hosts', 'todo', 'motd', 'readme', 'report', 'data'];
const EXTS = ['txt', 'cfg', 'list', 'log', 'csv', 'json', 'md', 'ini', 'conf', 'dat'];

/** Shell words as `t1lab eval` command lines quote them: bare when plain, else single-quoted (the oracles always quote). */
const q = shellWord;

function span(r: FamilyRng): string {
  return r.bool(0.5) ? r.word(r.int(3, 7)) : `${r.pick(STEMS)}${r.pick(['_', '-', ''])}${r.word(r.int(2, 4))}`;
}
function fileName(r: FamilyRng): string {
  return `${r.pick(STEMS)}_${r.word(r.int(2, 4))}.${r.pick(EXTS)}`;
}
function dirPath(r: FamilyRng): string {
  return Array.from({ length: r.int(1, 3) }, () => (r.bool(0.5) ? r.pick(STEMS) : r.word(r.int(3, 6)))).join('/');
}
function kvLine(r: FamilyRng): string {
  return `${r.pick(STEMS)}=${r.int(1, 9999)} ${r.word(r.int(3, 7))}`;
}

export interface Drill {
  instruction: string;
  /** Commands, each with the output the shell prints for it (empty: none). */
  steps: { command: string; output: string }[];
}

const DRILLS: ((r: FamilyRng) => Drill)[] = [
  (r) => {
    const dir = dirPath(r);
    const path = `${dir}/${fileName(r)}`;
    const lines = Array.from({ length: r.int(1, 4) }, () => kvLine(r));
    const listing = lines.map((l) => `    ${l}`).join('\n');
    return {
      instruction: r.pick([
        `Write these lines to /app/${path}:\n\n${listing}\n`,
        `Create \`${path}\` under /app containing exactly:\n\n${listing}\n`,
      ]),
      steps: [
        { command: `mkdir -p ${q(dir)} && printf '%s\\n' ${lines.map(q).join(' ')} > ${q(path)}`, output: '' },
        { command: `cat ${q(path)}`, output: lines.join('\n') },
      ],
    };
  },
  (r) => {
    const from = `${dirPath(r)}/${fileName(r)}`;
    const toDir = dirPath(r);
    const to = `${toDir}/${fileName(r)}`;
    return {
      instruction: r.pick([
        `Move /app/${from} to /app/${to}.`,
        `Rename \`${from}\` to \`${to}\` (the folder ${toDir} does not exist yet).`,
      ]),
      steps: [
        { command: `mkdir -p ${q(toDir)} && mv ${q(from)} ${q(to)}`, output: '' },
        { command: `ls ${q(toDir)}`, output: to.slice(toDir.length + 1) },
      ],
    };
  },
  (r) => {
    const file = `${dirPath(r)}/${fileName(r)}`;
    const pattern = span(r);
    const count = r.int(0, 40);
    return {
      instruction: r.pick([
        `How many lines of /app/${file} contain \`${pattern}\`? Write the number to /app/count.txt.`,
        `Count the lines matching '${pattern}' in ${file} and save the count in count.txt.`,
      ]),
      steps: [
        { command: `grep -c ${q(pattern)} ${q(file)}`, output: String(count) },
        { command: `grep -c ${q(pattern)} ${q(file)} > count.txt`, output: '' },
      ],
    };
  },
  (r) => {
    const file = `${dirPath(r)}/${fileName(r)}`;
    const from = span(r);
    const to = span(r);
    return {
      instruction: r.pick([
        `In /app/${file}, replace every \`${from}\` with \`${to}\`.`,
        `Change each occurrence of ${from} to ${to} in the file ${file}.`,
      ]),
      steps: [
        { command: `sed -i 's/${from}/${to}/g' ${q(file)}`, output: '' },
        { command: `grep -c ${q(to)} ${q(file)}`, output: String(r.int(1, 30)) },
      ],
    };
  },
  (r) => {
    const file = `${dirPath(r)}/${fileName(r)}`;
    const mode = r.pick(['600', '640', '644', '700', '750', '755']);
    const owner = span(r);
    return {
      instruction: `Give /app/${file} mode ${mode} and make ${owner} its owner.`,
      steps: [
        { command: `chmod ${mode} ${q(file)} && chown ${owner} ${q(file)}`, output: '' },
        { command: `stat -c '%a %U %n' ${q(file)}`, output: `${mode} ${owner} ${file}` },
      ],
    };
  },
  (r) => {
    const archive = `${dirPath(r)}/${r.pick(STEMS)}_${r.word(3)}.tar.gz`;
    const dest = dirPath(r);
    const members = Array.from({ length: r.int(1, 3) }, () => fileName(r));
    return {
      instruction: r.pick([
        `Extract /app/${archive} into /app/${dest}.`,
        `Unpack \`${archive}\` so that its files end up in ${dest}/.`,
      ]),
      steps: [
        { command: `mkdir -p ${q(dest)} && tar -xzf ${q(archive)} -C ${q(dest)}`, output: '' },
        { command: `ls ${q(dest)}`, output: members.join('\n') },
      ],
    };
  },
  (r) => {
    const key = `${r.pick(STEMS)}_${r.word(3)}`;
    const value = span(r);
    const file = `${dirPath(r)}/${fileName(r)}`;
    return {
      instruction: `Set ${key} to ${value} in /app/${file} (add the line \`${key}=${value}\` if it is missing).`,
      steps: [
        {
          command: `grep -q '^${key}=' ${q(file)} && sed -i 's/^${key}=.*/${key}=${value}/' ${q(file)} || echo ${q(`${key}=${value}`)} >> ${q(file)}`,
          output: '',
        },
        { command: `grep ${q(key)} ${q(file)}`, output: `${key}=${value}` },
      ],
    };
  },
];

/** A plain document: random spans listed, then the same list again (pure induction). */
function repeatDocument(r: FamilyRng): string {
  const items = Array.from({ length: r.int(4, 10) }, () =>
    r.bool(0.3) ? kvLine(r) : r.bool(0.5) ? `${dirPath(r)}/${fileName(r)}` : span(r),
  );
  const sep = r.pick(['\n', ' ', ', ']);
  return `${r.pick(['The list:', 'Items:', 'Names:', 'Paths:'])}\n${items.join(sep)}\n${r.pick(['Again:', 'Repeated:', 'Once more:', 'Copy:'])}\n${items.join(sep)}\n`;
}

/** One transcript drill, drawn from `r` (also the unit of SFT drill samples). */
export function drillOf(r: FamilyRng): Drill {
  return r.pick(DRILLS)(r);
}

export function copyDrills(documents = COPY_DRILL_DOCUMENTS, seed = 17): string[] {
  const protocol = createHermesProtocol();
  const out: string[] = [];
  for (let d = 0; d < documents; d++) {
    const r = createFamilyRng((seed * 1_000_003 + d) >>> 0);
    if (r.bool(0.2)) {
      out.push(repeatDocument(r));
      continue;
    }
    const drill = drillOf(r);
    const messages: ChatMessage[] = [{ role: 'user', content: drill.instruction }];
    for (const [i, step] of drill.steps.entries()) {
      messages.push({
        role: 'assistant',
        content: protocol.writeAction({ tool: 'bash', command: step.command }, `call_${i}`).text,
      });
      messages.push({ role: 'tool', content: step.output });
    }
    messages.push({ role: 'assistant', content: protocol.writeAction({ tool: 'submit' }, 'call_submit').text });
    out.push(chatml.render(messages, { addGenerationPrompt: false }));
  }
  return out;
}
