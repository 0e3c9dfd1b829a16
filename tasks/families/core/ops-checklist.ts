/**
 * Long horizon: a checklist of 20-45 independent workspace chores (create, copy, move, delete, chmod,
 * link, append, count, replace), one command each, one assertion each. Composes the one-command skills
 * into episodes that need 20+ commands.
 */
import type { FamilyRng, TaskFamily } from '../types';
import { type Assertion, buildTask, phrase, shq } from '../kit/task';
import { CORE, NOUNS } from './kit';

interface Step {
  text: string;
  command: string;
  check: Assertion;
}

type StepMaker = (rng: FamilyRng, name: string, files: Record<string, string>, setup: string[]) => Step;

const STEPS: StepMaker[] = [
  (_rng, name) => ({
    text: `create the folder \`${name}/\``,
    command: `mkdir -p ${name}`,
    check: { name: `${name}/ exists`, run: `test -d ${name}` },
  }),
  (rng, name) => {
    const line = `${rng.pick(NOUNS)} ${rng.int(1, 999)}`;
    return {
      text: `write the single line \`${line}\` to \`${name}.txt\``,
      command: `echo ${shq(line)} > ${name}.txt`,
      check: { name: `${name}.txt holds the line`, run: `test "$(cat ${name}.txt)" = ${shq(line)}` },
    };
  },
  (rng, name, files) => {
    files[`in/${name}.src`] = `${rng.word(12)}\n`;
    return {
      text: `copy \`in/${name}.src\` to \`out/${name}.copy\` (make \`out/\` if needed)`,
      command: `mkdir -p out && cp in/${name}.src out/${name}.copy`,
      check: { name: `out/${name}.copy is a copy`, run: `cmp -s in/${name}.src out/${name}.copy` },
    };
  },
  (rng, name, files) => {
    files[`in/${name}.mv`] = `${rng.word(12)}\n`;
    return {
      text: `move \`in/${name}.mv\` into the folder \`archive/\` (create it)`,
      command: `mkdir -p archive && mv in/${name}.mv archive/`,
      check: { name: `${name}.mv moved to archive/`, run: `test -f archive/${name}.mv && ! test -e in/${name}.mv` },
    };
  },
  (rng, name, files) => {
    files[`in/${name}.tmp`] = `${rng.word(8)}\n`;
    return {
      text: `delete \`in/${name}.tmp\``,
      command: `rm in/${name}.tmp`,
      check: { name: `in/${name}.tmp is gone`, run: `test -d in && ! test -e in/${name}.tmp` },
    };
  },
  (rng, name, files, setup) => {
    files[`in/${name}.sh`] = `#!/bin/sh\necho ${rng.word(6)}\n`;
    setup.push(`chmod 644 in/${name}.sh`);
    const mode = rng.pick(['755', '700', '750']);
    return {
      text: `make \`in/${name}.sh\` mode ${mode}`,
      command: `chmod ${mode} in/${name}.sh`,
      check: { name: `in/${name}.sh is ${mode}`, run: `test "$(stat -c %a in/${name}.sh)" = ${mode}` },
    };
  },
  (rng, name, files) => {
    files[`in/${name}.target`] = `${rng.word(8)}\n`;
    return {
      text: `create a symbolic link \`${name}.link\` pointing to \`in/${name}.target\``,
      command: `ln -s in/${name}.target ${name}.link`,
      check: { name: `${name}.link points to its target`, run: `test "$(readlink ${name}.link)" = in/${name}.target` },
    };
  },
  (rng, name, files) => {
    files[`in/${name}.log`] = `${rng.word(6)}\n${rng.word(6)}\n`;
    const line = `done ${rng.word(5)}`;
    return {
      text: `append the line \`${line}\` to \`in/${name}.log\``,
      command: `echo ${shq(line)} >> in/${name}.log`,
      check: {
        name: `in/${name}.log ends with the new line`,
        run: `test "$(tail -n1 in/${name}.log)" = ${shq(line)} && test "$(wc -l < in/${name}.log)" -eq 3`,
      },
    };
  },
  (rng, name, files) => {
    const n = rng.int(3, 30);
    files[`in/${name}.list`] = `${Array.from({ length: n }, () => rng.word(5)).join('\n')}\n`;
    return {
      text: `write the number of lines of \`in/${name}.list\` to \`${name}.count\``,
      command: `wc -l < in/${name}.list > ${name}.count`,
      check: { name: `${name}.count is ${n}`, run: `test "$(tr -d ' \\n' < ${name}.count)" = ${n}` },
    };
  },
  (rng, name, files) => {
    const from = rng.pick(['staging', 'draft', 'beta']);
    const to = rng.pick(['production', 'final', 'stable']);
    files[`in/${name}.cfg`] = `mode=${from}\nlevel=${rng.int(1, 9)}\nmirror=${from}\n`;
    return {
      text: `in \`in/${name}.cfg\`, replace every \`${from}\` with \`${to}\``,
      command: `sed -i 's/${from}/${to}/g' in/${name}.cfg`,
      check: {
        name: `in/${name}.cfg says ${to}`,
        run: `test "$(grep -c ${to} in/${name}.cfg)" -eq 2 && ! grep -q ${from} in/${name}.cfg`,
      },
    };
  },
];

export const opsChecklist: TaskFamily = {
  name: 'ops-checklist',
  category: 'system-administration',
  summary: 'work through a 20-45 item checklist of workspace chores (long horizon)',
  heldOut: false,
  difficulty: 'hard',
  generate(rng, { seed, split }) {
    const count = rng.int(20, 45);
    const files: Record<string, string> = {};
    const setup: string[] = [];
    const used = new Set<string>();
    const steps: Step[] = [];
    for (let i = 0; i < count; i++) {
      let name = `${rng.pick(NOUNS)}${rng.int(1, 99)}`;
      while (used.has(name)) name = `${rng.pick(NOUNS)}${rng.int(100, 999)}`;
      used.add(name);
      steps.push(rng.pick(STEPS)(rng, name, files, setup));
    }
    const list = steps.map((s, i) => `${i + 1}. ${s.text}`).join('\n');
    const instruction = phrase(rng, split, [
      `Work through this checklist in \`/app\` (all paths are relative to /app):\n\n${list}\n`,
      `The workspace /app needs the following ${count} chores done; paths are relative to /app.\n\n${list}\n`,
      `Please do every item of this maintenance list inside /app (relative paths):\n\n${list}\n\nEach item is checked separately.`,
    ]);
    if (!Object.keys(files).length) files['in/.keep'] = '';
    else files['in/README'] = 'inputs for the checklist\n';
    return buildTask(CORE, {
      family: opsChecklist,
      seed,
      split,
      difficulty: 'hard',
      instruction,
      tags: ['long-horizon', 'files', 'shell'],
      files,
      ...(setup.length ? { setup: setup.join('\n') } : {}),
      solve: steps.map((s) => s.command).join('\n'),
      assertions: steps.map((s, i) => ({ ...s.check, name: `${i + 1}. ${s.check.name}` })),
      agentTimeoutSec: 1800,
    });
  },
};
