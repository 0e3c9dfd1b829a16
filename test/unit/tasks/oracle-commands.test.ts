import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  loadTaskSource,
  solutionCommands,
  solutionScript,
  splitShellCommands,
  typedCommands,
} from '../../../electron/lab/tasks';
import { REPO_ROOT } from '../../helpers/cli';

/** bash's own parser is the judge: every piece must be a complete command on its own (one bash for all). */
function bashRejects(commands: string[]): string[] {
  const loop = 'while IFS= read -r -d "" c; do if bash -n <<<"$c" 2>/dev/null; then echo ok; else echo bad; fi; done';
  const verdicts = execFileSync('bash', ['-c', loop], { input: commands.map((c) => `${c}\0`).join('') })
    .toString()
    .trim()
    .split('\n');
  return commands.filter((_, i) => verdicts[i] !== 'ok');
}

const SCRIPT = `#!/bin/bash
set -euo pipefail
# set things up
cd /app
x=$(( 1 << 2 ))
cat > a.txt <<'EOF'
if this were code ( it is not
EOF
if [ -f a.txt ]; then
  echo yes
elif true; then
  echo maybe
else
  echo no
fi
for f in *.txt; do
  case "$f" in
    a.txt|b.txt) echo "ab $f";;
    *) echo other ;;
  esac
done
f() {
  echo "in f }"
}
g() { echo g; }
ls |
  wc -l
echo a && \\
  echo b
(( i = 3 ))
python3 - <<PY
print("done")
PY
echo "multi
line"
echo "$(echo nested $(echo deeper))" # trailing comment
while read -r line; do echo "$line"; done < a.txt
exit 0
`;

describe('splitting a solution into typed commands', () => {
  it('keeps compound commands, heredocs and continuations whole; each piece parses alone', () => {
    expect(bashRejects(splitShellCommands(SCRIPT))).toEqual([]);
    const typed = typedCommands(SCRIPT);
    expect(typed[0]).toBe('set -uo pipefail');
    expect(typed).toContain("cat > a.txt <<'EOF'\nif this were code ( it is not\nEOF");
    expect(typed).toContain('ls |\n  wc -l');
    expect(typed).toContain('echo a && \\\n  echo b');
    expect(typed).toContain('f() {\n  echo "in f }"\n}');
    expect(typed.find((c) => c.startsWith('if '))).toMatch(/fi$/);
    expect(typed.find((c) => c.startsWith('for '))).toMatch(/esac\ndone$/);
    expect(typed.some((c) => c.startsWith('exit'))).toBe(false);
    expect(typed.some((c) => c.startsWith('#'))).toBe(false);
    expect(typed).toHaveLength(15);
  });

  it('drops errexit from set, keeps other options', () => {
    expect(typedCommands('set -e\nset -o errexit\nset -eux\nset -e -o pipefail\necho x\n')).toEqual([
      'set -ux',
      'set -o pipefail',
      'echo x',
    ]);
  });

  it("gives every example's oracle as complete commands; the long-horizon ones need 20+", async () => {
    const source = await loadTaskSource(join(REPO_ROOT, 'tasks/examples'));
    expect(source.invalid).toEqual([]);
    for (const task of source.tasks) {
      const commands = solutionCommands(task);
      expect(commands.length, task.id).toBeGreaterThan(0);
      expect(bashRejects(commands), task.id).toEqual([]);
      expect(solutionScript(task)).not.toBeNull();
    }
    const longHorizon = source.tasks.filter((t) => t.metadata.extra.long_horizon === true);
    expect(longHorizon.map((t) => t.id).sort()).toEqual(['release-prep', 'service-migration']);
    for (const t of longHorizon) expect(solutionCommands(t).length, t.id).toBeGreaterThanOrEqual(20);
  }, 60_000);
});
