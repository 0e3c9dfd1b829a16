/**
 * A vitest reporter that lists every skipped test with its reason after the run, and makes the run fail under
 * CI (`CI` set, as .ci/run does) when a test was skipped for a program that `npm run bootstrap` installs
 * (skip notes from test/helpers/skip.ts). A skip without a note is listed as silent: say why with
 * `ctx.skip(condition, note)`.
 */
import type { Reporter, TestModule } from 'vitest/node';
import { MISSING_TOOL } from './skip';

interface Skipped {
  name: string;
  note: string | undefined;
}

function skippedTests(modules: ReadonlyArray<TestModule>): Skipped[] {
  const out: Skipped[] = [];
  for (const module of modules) {
    for (const test of module.children.allTests()) {
      const result = test.result();
      if (result.state !== 'skipped' || test.options.mode === 'todo') continue;
      out.push({ name: `${module.moduleId.replace(`${process.cwd()}/`, '')} > ${test.fullName}`, note: result.note });
    }
  }
  return out;
}

export default class SkipReporter implements Reporter {
  private filtered = false;

  onInit(vitest: { config: { testNamePattern?: RegExp } }): void {
    // With a name filter (-t), every other test is "skipped" by the filter: those are not worth listing.
    this.filtered = !!vitest.config.testNamePattern;
  }

  onTestRunEnd(modules: ReadonlyArray<TestModule>): void {
    const skipped = skippedTests(modules);
    const noted = skipped.filter((s) => s.note);
    const silent = this.filtered ? [] : skipped.filter((s) => !s.note);
    const missing = noted.filter((s) => s.note!.startsWith(MISSING_TOOL));
    if (noted.length + silent.length === 0) return;
    const lines = ['', `Skipped tests (${noted.length + silent.length}):`];
    for (const s of noted) lines.push(`  - ${s.name}: ${s.note}`);
    for (const s of silent)
      lines.push(`  - ${s.name}: skipped without a reason (say why: ctx.skip(condition, note), test/helpers/skip.ts)`);
    process.stdout.write(`${lines.join('\n')}\n`);
    if (missing.length > 0 && process.env.CI) {
      process.stderr.write(
        `\nCI: ${missing.length} test(s) skipped for a program that npm run bootstrap installs; bootstrap is incomplete.\n`,
      );
      process.exitCode = 1;
    }
  }
}
