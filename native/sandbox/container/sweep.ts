/**
 * What a killed lab left in the engine: containers and state images labelled with an owner pid that is no
 * longer alive. Run at start (CLI, app host), like the temp-folder sweep. Task images built from
 * Dockerfiles are a cache (keyed by content hash) and are kept; `t1lab images prune` is not needed for them.
 */
import { processAlive } from '../../util/process-alive';
import { engineExec, LABEL_KIND, LABEL_OWNER, pidNamespace, type EngineName } from './engine';

export interface SweepReport {
  containers: string[];
  images: string[];
}

/** Ids whose owner (pid@pid-namespace) is of this namespace and no longer alive. */
function deadOwners(lines: string[]): string[] {
  const out: string[] = [];
  const here = pidNamespace();
  for (const line of lines) {
    const [id, owner = ''] = line.split(' ');
    const [pidText, space] = owner.split('@');
    const pid = Number(pidText);
    if (space !== here) continue;
    if (id && Number.isInteger(pid) && pid > 0 && pid !== process.pid && !processAlive(pid)) out.push(id);
  }
  return out;
}

export async function sweepOrphanedContainers(engine: EngineName): Promise<SweepReport> {
  const report: SweepReport = { containers: [], images: [] };
  const ps = await engineExec(
    engine,
    ['ps', '-a', '--filter', `label=${LABEL_OWNER}`, '--format', `{{.ID}} {{index .Labels "${LABEL_OWNER}"}}`],
    20_000,
  );
  if (!ps.ok) return report;
  const containers = deadOwners(ps.stdout.split('\n').filter(Boolean));
  if (containers.length) {
    await engineExec(engine, ['rm', '-f', ...containers], 120_000);
    report.containers = containers;
  }
  const images = await engineExec(
    engine,
    ['images', '--filter', `label=${LABEL_KIND}=state`, '--format', `{{.ID}} {{index .Labels "${LABEL_OWNER}"}}`],
    20_000,
  );
  if (images.ok) {
    const dead = [...new Set(deadOwners(images.stdout.split('\n').filter(Boolean)))];
    for (const id of dead) if ((await engineExec(engine, ['rmi', '-f', id], 120_000)).ok) report.images.push(id);
  }
  return report;
}
