/** `t1lab doctor [--json]`: what this machine has. Exits 0 when optional parts are missing, and says how to get them. */
import type { Command } from 'commander';
import type { DoctorReport } from '../../domain/system';
import { labDataDir } from '../../lab/paths';
import { runDoctor } from '../../lab/system/doctor';
import { probeOnnxruntimeInWorker } from '../../lab/system/probe-onnxruntime';
import { WorkerRegistry } from '../../lab/worker-registry';
import { forkLauncher } from '../../processes/launcher';
import { formatBytes, printJson, table, type Io } from '../output';

export async function doctorReport(): Promise<DoctorReport> {
  const workers = new WorkerRegistry(forkLauncher);
  try {
    return await runDoctor({
      dataDir: labDataDir(),
      probeOnnxruntime: (gpu) => probeOnnxruntimeInWorker(workers, gpu),
    });
  } finally {
    await workers.stopAll();
  }
}

export function formatDoctor(r: DoctorReport): string {
  const yes = (ok: boolean) => (ok ? 'yes' : 'no');
  const rows: string[][] = [
    ['part', 'status', 'detail'],
    ['node', r.node, r.platform],
    ['electron', r.electron.version ?? 'not installed', `binary: ${yes(r.electron.binary)}`],
    ['sandbox', r.sandbox.ok ? 'ok' : 'unusable', `${r.sandbox.backend} ${r.sandbox.version ?? ''}`.trim()],
    [
      'onnxruntime',
      r.onnxruntime.version ?? 'not installed',
      r.onnxruntime.providers.map((p) => `${p.name}: ${p.available ? 'yes' : 'no'}`).join(', '),
    ],
    ['cpu', `${r.cpu.cores} cores`, r.cpu.model],
    ['memory', formatBytes(r.memoryBytes), ''],
    [
      'gpus',
      String(r.gpus.length),
      r.gpus.map((g) => `${g.name} (${formatBytes(g.memoryBytes)})`).join(', ') || 'none',
    ],
    ['data dir', r.dataDir, ''],
    ...(r.containers ?? []).map((c) => [
      c.engine,
      c.canRun ? 'runs containers' : c.version ? 'answers' : c.installed ? 'no engine' : 'not installed',
      c.detail,
    ]),
  ];
  let text = table(rows);
  if (r.missing.length) {
    text += '\nOptional parts missing (the lab works without them):\n';
    for (const m of r.missing) text += `  - ${m.part}: ${m.hint}\n`;
  }
  return text;
}

export function registerDoctor(program: Command, io: Io): void {
  program
    .command('doctor')
    .description('report what this machine has: runtimes, sandbox, execution providers, GPUs')
    .option('--json', 'print the report as JSON')
    .action(async (opts: { json?: boolean }) => {
      const report = await doctorReport();
      if (opts.json) printJson(io, report);
      else io.out(formatDoctor(report));
    });
}
