/** The last audit of each task on this machine, kept in $T1LAB_HOME/tasks-audits.json (written atomically). */
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { z } from 'zod';
import { AuditReport } from '../../domain/tasks';

const StoreFile = z.object({ version: z.literal(1), reports: z.array(AuditReport) });

export class AuditStore {
  private reports: Map<string, AuditReport> | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(readonly file: string) {}

  static in(dataDir: string): AuditStore {
    return new AuditStore(join(dataDir, 'tasks-audits.json'));
  }

  private key(source: string, id: string): string {
    return `${source}\u0000${id}`;
  }

  private async load(): Promise<Map<string, AuditReport>> {
    if (this.reports) return this.reports;
    const map = new Map<string, AuditReport>();
    const text = await readFile(this.file, 'utf8').catch(() => null);
    if (text) {
      // A damaged file loses the history, not the app: start empty.
      const parsed = StoreFile.safeParse(
        (() => {
          try {
            return JSON.parse(text);
          } catch {
            return null;
          }
        })(),
      );
      if (parsed.success) for (const r of parsed.data.reports) map.set(this.key(r.source, r.result.id), r);
    }
    this.reports = map;
    return map;
  }

  async get(source: string, id: string): Promise<AuditReport | null> {
    return (await this.load()).get(this.key(source, id)) ?? null;
  }

  async all(): Promise<AuditReport[]> {
    return [...(await this.load()).values()];
  }

  async put(report: AuditReport): Promise<void> {
    const map = await this.load();
    map.set(this.key(report.source, report.result.id), report);
    const body = JSON.stringify({ version: 1, reports: [...map.values()] });
    this.writing = this.writing.then(async () => {
      await mkdir(dirname(this.file), { recursive: true });
      const tmp = `${this.file}.${process.pid}.tmp`;
      await writeFile(tmp, body);
      await rename(tmp, this.file);
    });
    await this.writing;
  }
}
