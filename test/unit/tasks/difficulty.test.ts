/** task.toml and TB1's task.yaml check a declared difficulty the same way. */
import { describe, expect, it } from 'vitest';
import { parseTaskToml } from '../../../electron/lab/tasks/config/task-toml';
import { parseTaskYaml } from '../../../electron/lab/tasks/config/task-yaml';

/** The difficulty each format parses `word` to, or the message its check gives. */
function checked(word: string | null): { toml: string | undefined; yaml: string | undefined } {
  const toml = parseTaskToml(word === null ? '[metadata]\n' : `[metadata]\ndifficulty = "${word}"\n`);
  const yaml = parseTaskYaml(`instruction: Do it.\n${word === null ? '' : `difficulty: ${word}\n`}`);
  return {
    toml: toml.ok
      ? toml.value.metadata.difficulty
      : toml.issues?.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '),
    yaml: yaml.ok
      ? yaml.value.difficulty
      : yaml.issues?.issues.map((i) => `metadata.${i.path.join('.')}: ${i.message}`).join('; '),
  };
}

describe('a declared difficulty', () => {
  it('is easy, medium, hard or absent in both formats', () => {
    for (const word of ['easy', 'medium', 'hard']) expect(checked(word)).toEqual({ toml: word, yaml: word });
    expect(checked(null)).toEqual({ toml: undefined, yaml: undefined });
  });

  it('is refused with the same message, naming the unknown word, in both formats', () => {
    const message = "metadata.difficulty: unknown difficulty 'extreme' (expected easy, medium or hard)";
    expect(checked('extreme')).toEqual({ toml: message, yaml: message });
  });
});
