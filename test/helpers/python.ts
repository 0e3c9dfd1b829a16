/**
 * A Python interpreter that has the modules a cross-check needs (e.g. `safetensors`, `tokenizers`), to test
 * that other tools read the lab's files. `T1LAB_PYTHON` names one; otherwise `python3` is tried. The checks
 * that need it are skipped where none has the modules (the lab itself never needs Python); the file-format
 * tests that do not need it always run.
 */
import { spawnSync } from 'node:child_process';
import { optionalSkip } from './skip';

export function findPython(modules: string[]): string | null {
  const candidates = [process.env.T1LAB_PYTHON, 'python3'].filter((x): x is string => !!x);
  for (const python of candidates) {
    const probe = spawnSync(python, ['-c', modules.map((m) => `import ${m}`).join('; ')], {
      stdio: 'ignore',
      timeout: 20_000,
    });
    if (probe.status === 0) return python;
  }
  return null;
}

/** Run a Python script with JSON on stdin; returns its stdout parsed as JSON. Throws with stderr on failure. */
export function runPythonJson(python: string, script: string, input: unknown): unknown {
  const result = spawnSync(python, ['-c', script], {
    input: JSON.stringify(input),
    encoding: 'utf8',
    timeout: 60_000,
    maxBuffer: 64 << 20,
  });
  if (result.status !== 0) throw new Error(`python failed (${result.status}): ${result.stderr}`);
  return JSON.parse(result.stdout);
}

/** The skip note of a cross-check whose Python modules are missing (Debian 12 packages neither safetensors nor tokenizers). */
export function pythonSkipNote(modules: string[]): string {
  return optionalSkip(
    `no Python with ${modules.join(', ')} (Debian does not package them: pip install ${modules.join(' ')}, or set T1LAB_PYTHON to an interpreter that has them)`,
  );
}
