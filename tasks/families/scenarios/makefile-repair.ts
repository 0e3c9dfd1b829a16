/** A small C project whose Makefile is broken in planted ways: fix it so build, clean and rebuild work. */
import { buildTask, phrase } from '../kit/task';
import { SCENARIO } from './kit/conventions';
import { NOUNS } from './kit/pools';
import type { TaskFamily } from '../types';

const BREAKERS = ['spaces', 'missing-object', 'include-dir', 'pattern-ext'] as const;
type Bug = (typeof BREAKERS)[number] | 'clean';

function makefile(prog: string, modules: string[], bugs: Set<Bug>): string {
  const objs = ['main', ...modules]
    .filter((m, i) => !(bugs.has('missing-object') && i === modules.length))
    .map((m) => `build/${m}.o`);
  return [
    'CC = gcc',
    `CFLAGS = -Wall -O2 -I${bugs.has('include-dir') ? 'includes' : 'include'}`,
    `OBJS = ${objs.join(' ')}`,
    `PROG = bin/${prog}`,
    '',
    'all: $(PROG)',
    '',
    '$(PROG): $(OBJS)',
    '\t@mkdir -p bin',
    `${bugs.has('spaces') ? '        ' : '\t'}$(CC) $(CFLAGS) -o $@ $(OBJS)`,
    '',
    `build/%.o: src/%.${bugs.has('pattern-ext') ? 'cpp' : 'c'} include/modules.h`,
    '\t@mkdir -p build',
    '\t$(CC) $(CFLAGS) -c -o $@ $<',
    '',
    'clean:',
    `\trm -rf build${bugs.has('clean') ? '' : ' bin'}`,
    '',
    '.PHONY: all clean',
    '',
  ].join('\n');
}

export const makefileRepair: TaskFamily = {
  name: 'makefile-repair',
  category: 'software-engineering',
  summary: 'Fix a broken Makefile of a small C project so that make, make clean and incremental builds work',
  heldOut: false,
  difficulty: 'medium',
  generate(rng, { split }) {
    const prog = rng.pick(NOUNS) + rng.int(1, 99);
    const modules = rng.sample(['alpha', 'beta', 'gamma', 'delta', 'sigma', 'omega', 'kappa'], rng.int(2, 4));
    const values = modules.map(() => rng.int(1, 999));
    const bugs = new Set<Bug>(rng.sample(BREAKERS, rng.int(1, 3)));
    if (rng.bool(0.5)) bugs.add('clean');
    const files: Record<string, string> = {
      'include/modules.h': `#ifndef MODULES_H\n#define MODULES_H\n${modules.map((m) => `int ${m}_value(void);`).join('\n')}\n#endif\n`,
      'src/main.c': `#include <stdio.h>\n#include "modules.h"\n\nint main(void) {\n  int total = 0;\n${modules.map((m) => `  printf("${m}: %d\\n", ${m}_value());\n  total += ${m}_value();`).join('\n')}\n  printf("total: %d\\n", total);\n  return 0;\n}\n`,
      Makefile: makefile(prog, modules, bugs),
    };
    modules.forEach(
      (m, i) => (files[`src/${m}.c`] = `#include "modules.h"\n\nint ${m}_value(void) { return ${values[i]}; }\n`),
    );
    const output =
      [...modules.map((m, i) => `${m}: ${values[i]}`), `total: ${values.reduce((a, b) => a + b, 0)}`].join('\n') + '\n';
    const last = modules[modules.length - 1]!;
    const instruction = phrase(rng, split, [
      `\`make\` fails in /app. Fix the Makefile so that \`make\` builds bin/${prog} from src/*.c (objects in build/), \`make clean\` removes build/ and bin/, and touching one source file rebuilds only that object and the program. Then build it, leaving bin/${prog} in place.`,
      `The C project in /app does not build. Repair its Makefile (do not change the C sources): the default target must produce bin/${prog}; objects go to build/; \`make clean\` deletes both build/ and bin/; incremental builds must only recompile what changed. Finish with a built bin/${prog}.`,
      `Get /app building again: the Makefile has several mistakes. Requirements: \`make\` -> bin/${prog}, one build/<name>.o per src/<name>.c, \`make clean\` leaves neither build/ nor bin/, a changed .c file triggers only its own recompilation plus the link. Build the program when done.`,
    ]);
    const good = makefile(prog, modules, new Set());
    return buildTask(SCENARIO, {
      family: makefileRepair,
      difficulty: bugs.size >= 3 ? 'hard' : 'medium',
      split,
      instruction,
      files,
      requires: ['make', 'gcc'],
      solve: `make 2>&1 | tail -5 || true\ncat -A Makefile\ncat > Makefile <<'MK'\n${good}MK\nmake clean\nmake\n./bin/${prog}`,
      expected: { 'output.txt': output },
      assertions: [
        {
          name: `bin/${prog} was built and runs`,
          run: `test -x bin/${prog} && ./bin/${prog} > /tmp/out.txt && cmp -s /tmp/out.txt /tests/expected/output.txt`,
        },
        {
          name: 'make clean removes build/ and bin/, make rebuilds',
          run: `make clean >/dev/null && test ! -e build && test ! -e bin && make >/dev/null && ./bin/${prog} | cmp -s - /tests/expected/output.txt`,
        },
        {
          name: 'incremental build recompiles only what changed',
          run: `make >/dev/null && touch src/${last}.c && make > /tmp/inc.txt && test "$(grep -c -- ' -c ' /tmp/inc.txt)" = 1 && grep -q 'build/${last}.o' /tmp/inc.txt && grep -q -- '-o bin/${prog}' /tmp/inc.txt`,
        },
      ],
      tags: ['make', 'c', 'build'],
    });
  },
};
