/**
 * The documentation shows only what exists: every `t1lab ...` command and `--flag` in README.md and
 * docs/**\/*.md is in the CLI's `--help` (the real commander program, as `t1lab --help` prints it), and
 * every relative link and #anchor resolves. New files under docs/ are checked as they are added.
 */
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../../electron/cli/main';
import { defaultConfigToml } from '../../../electron/lab/training/config/default-config';
import { REPO_ROOT } from '../../helpers/cli';
import {
  checkCommands,
  checkLinks,
  docFiles,
  formatProblems,
  headingAnchors,
  type HelpNode,
} from '../../helpers/docs-check';

function helpTree(command: Command): HelpNode {
  const subcommands = new Map<string, HelpNode>();
  for (const sub of command.commands as Command[]) subcommands.set(sub.name(), helpTree(sub));
  return { name: command.name(), help: command.helpInformation(), subcommands };
}

const silent = { out: () => {}, err: () => {} } as unknown as Parameters<typeof buildProgram>[0];
const cli = helpTree(buildProgram(silent));
const files = docFiles(REPO_ROOT);

describe('documentation', () => {
  it('covers the README and the guide and reference', () => {
    const names = files.map((f) => relative(REPO_ROOT, f));
    expect(names).toContain('README.md');
    expect(names).toContain(join('docs', 'guide', 'README.md'));
    expect(names).toContain(join('docs', 'reference', 'cli.md'));
  });

  it('shows only t1lab commands and flags that --help lists', () => {
    const problems = files.flatMap((f) => checkCommands(relative(REPO_ROOT, f), readFileSync(f, 'utf8'), cli));
    expect(formatProblems(problems)).toBe('');
  });

  it('has relative links and anchors that resolve', () => {
    const problems = files.flatMap((f) => checkLinks(f, readFileSync(f, 'utf8'), REPO_ROOT));
    expect(formatProblems(problems)).toBe('');
  });

  it('keeps the README a front door with the two commands CI runs', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    expect(readme.split('\n').length).toBeLessThanOrEqual(300);
    expect(readme).toContain('npm run bootstrap && npm start');
    expect(readme).toContain('npm run bootstrap && npm test');
  });

  // The reference showed a PPO file with an old learning rate, concurrency and temperature for weeks.
  it("shows the whole default PPO file exactly as 'train init-config --stage ppo' prints it", () => {
    const doc = readFileSync(join(REPO_ROOT, 'docs', 'reference', 'config.md'), 'utf8');
    const section = doc.slice(doc.indexOf('### The `[ppo]` section'));
    const block = /```toml\n([\s\S]*?)```/.exec(section)?.[1];
    expect(block).toBe(defaultConfigToml({ stage: 'ppo', preset: 'nano' }));
  });
});

describe('the documentation checks themselves', () => {
  const fakeDoc = join(REPO_ROOT, 'docs', 'guide', 'fake.md');

  it('report a flag, a subcommand and a lone flag that the CLI does not have', () => {
    const text = [
      '```sh',
      't1lab eval --suite tasks/examples --policy oracle --no-such-flag   # comment --ignored',
      't1lab tasks synth --out x.jsonl \\',
      '  --bogus 3',
      't1lab tasks nonexistent PATH',
      '```',
      'Inline: `t1lab train lm|sft|ppo --config FILE --wrong`, and `--also-wrong` alone.',
      'Fine: `t1lab sandbox run --json -- ls --all`, `t1lab help COMMAND`, `t1lab run TASK --net`, `--resume DIR`.',
    ].join('\n');
    const messages = checkCommands('fake.md', text, cli).map((p) => `${p.line}: ${p.message.split(':')[0]}`);
    expect(messages).toEqual([
      '2: `--no-such-flag` is not in `t1lab eval --help`',
      '4: `--bogus` is not in `t1lab tasks synth --help`',
      '5: unknown command',
      '7: `--wrong` is not in `t1lab train lm --help`',
      '7: `--wrong` is not in `t1lab train sft --help`',
      '7: `--wrong` is not in `t1lab train ppo --help`',
      '7: `--also-wrong` is not a flag of any t1lab command',
    ]);
  });

  it('report links to missing files and headings, not those inside code', () => {
    const text = [
      '# A heading: `with code` (and more)',
      '[ok](#a-heading-with-code-and-more) [ok](tasks.md#the-verifier) [ok](../../README.md) [web](https://example.org)',
      '[missing file](nowhere.md) [missing anchor](tasks.md#no-such-heading) ![missing image](../x.png)',
      '`[in code](nowhere.md)`',
      '```',
      '[in a block](nowhere.md)',
      '```',
    ].join('\n');
    const problems = checkLinks(fakeDoc, text, REPO_ROOT).map((p) => `${p.line}: ${p.message}`);
    expect(problems).toEqual([
      '3: link to a missing file: nowhere.md',
      '3: link to a missing heading: tasks.md#no-such-heading',
      '3: link to a missing file: ../x.png',
    ]);
  });

  it('computes GitHub heading anchors', () => {
    const anchors = headingAnchors(
      '# Web mode: `t1lab serve`\n## metrics.jsonl\n## Repeat\n## Repeat\n```\n# not a heading\n```\n',
    );
    expect([...anchors]).toEqual(['web-mode-t1lab-serve', 'metricsjsonl', 'repeat', 'repeat-1']);
  });
});
