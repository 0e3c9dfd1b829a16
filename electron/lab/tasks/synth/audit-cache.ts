/**
 * Audit verdicts by task content hash, so an audit of thousands of tasks resumes where it stopped and
 * never audits the same task twice: an append-only JSONL file, one `{hash, id, verdict, reason}` per
 * line, appended as each audit ends. A torn last line (a killed run) is ignored when reading.
 */
import { appendFile, mkdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { AuditVerdict } from '../../../domain/tasks';

export interface CachedAudit {
  hash: string;
  id: string;
  verdict: AuditVerdict;
  reason: string;
}

export class AuditCache {
  private entries: Map<string, CachedAudit> | null = null;
  private writing: Promise<void> = Promise.resolve();

  constructor(readonly file: string) {}

  static in(dataDir: string): AuditCache {
    return new AuditCache(join(dataDir, 'synth-audits.jsonl'));
  }

  async load(): Promise<Map<string, CachedAudit>> {
    if (this.entries) return this.entries;
    const map = new Map<string, CachedAudit>();
    const text = await readFile(this.file, 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      if (!line.trim()) continue;
      try {
        const e = JSON.parse(line) as CachedAudit;
        if (typeof e.hash === 'string' && typeof e.verdict === 'string') map.set(e.hash, e);
      } catch {
        // a line torn by a killed run: that task is audited again
      }
    }
    this.entries = map;
    return map;
  }

  async get(hash: string): Promise<CachedAudit | null> {
    return (await this.load()).get(hash) ?? null;
  }

  /** Record one verdict; `error` verdicts (this machine could not run it) are not cached. */
  async put(entry: CachedAudit): Promise<void> {
    (await this.load()).set(entry.hash, entry);
    if (entry.verdict === 'error') return;
    this.writing = this.writing.then(async () => {
      await mkdir(dirname(this.file), { recursive: true });
      await appendFile(this.file, `${JSON.stringify(entry)}\n`);
    });
    await this.writing;
  }
}
