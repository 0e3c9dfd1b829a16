import { describe, expect, test } from 'vitest';
import { execFileSync } from 'node:child_process';
import { cpus, totalmem } from 'node:os';
import { DoctorReport } from '../../../electron/domain/system';
import { parseJsonOutput, runT1lab } from '../../helpers/cli';

function bwrapVersion(): string | null {
  try {
    return execFileSync('bwrap', ['--version'], { encoding: 'utf8' })
      .trim()
      .replace(/^bubblewrap\s+/, '');
  } catch {
    return null;
  }
}

describe('t1lab doctor', () => {
  test('--json prints the fields of the issue with this machine’s true values', async () => {
    const result = await runT1lab(['doctor', '--json'], { env: { T1LAB_HOME: '/tmp/t1lab-doctor-home' } });
    expect(result.code).toBe(0);
    const report = DoctorReport.parse(parseJsonOutput(result));
    expect(report.node).toBe(process.versions.node);
    expect(report.electron.version).toMatch(/^45\./);
    expect(typeof report.electron.binary).toBe('boolean');
    expect(report.sandbox.backend).toBe('bubblewrap');
    expect(report.sandbox.version).toBe(bwrapVersion());
    expect(report.sandbox.ok).toBe(bwrapVersion() !== null);
    expect(report.onnxruntime.version).toBe('1.30.0');
    expect(report.onnxruntime.providers.map((p) => p.name)).toEqual(['cpu', 'cuda']);
    expect(report.onnxruntime.providers[0]).toMatchObject({ name: 'cpu', available: true });
    expect(report.cpu.cores).toBe(cpus().length);
    expect(report.cpu.model).toBe(cpus()[0]?.model.trim());
    expect(report.memoryBytes).toBe(totalmem());
    expect(Array.isArray(report.gpus)).toBe(true);
    expect(report.dataDir).toBe('/tmp/t1lab-doctor-home');
    // Container engines: each says whether it is installed, answers, and what to do when it cannot run.
    expect(report.containers?.map((c) => c.engine)).toEqual(['podman', 'docker']);
    for (const c of report.containers ?? []) if (c.version === null) expect(c.hint, c.engine).toBeTruthy();
    const cuda = report.onnxruntime.providers[1]!;
    if (!cuda.available) expect(cuda.reason).toBeTruthy();
  });

  test('missing optional parts are listed with how to get them, and the exit code stays 0', async () => {
    const result = await runT1lab(['doctor']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^part\s+status\s+detail/m);
    expect(result.stdout).toMatch(/^sandbox\s+/m);
    // This machine has no Electron binary and no GPU: both are explained.
    if (result.stdout.includes('binary: no'))
      expect(result.stdout).toContain('electron binary: the Electron binary is not installed');
  });

  test('an unknown command is a usage error (exit 2)', async () => {
    const result = await runT1lab(['doctr']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("unknown command 'doctr'");
  });
});
