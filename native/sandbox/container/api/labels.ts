/**
 * Labels on everything the API path creates on an engine (containers, images it commits, volumes,
 * networks), and the rule a sweep applies to them: an object of this lab install is removed when its
 * deadline has passed, or when its owner ran on this machine (same host name and pid namespace) and is no
 * longer alive. Objects of owners on other machines whose deadline is still ahead are left alone.
 */
import { hostname } from 'node:os';
import { processAlive } from '../../../util/process-alive';
import { LABEL_KIND, LABEL_OWNER, ownerLabel, pidNamespace } from '../engine';

export const LABEL_INSTALL = 't1lab.install';
export const LABEL_RUN = 't1lab.run';
export const LABEL_OWNER_HOST = 't1lab.owner-host';
/** Milliseconds since the epoch after which the object is garbage whoever owns it. */
export const LABEL_DEADLINE = 't1lab.deadline';
export { LABEL_KIND, LABEL_OWNER };

/** Added to a container's wall-clock limit for its deadline label: time to commit and remove it. */
export const DEADLINE_GRACE_MS = 15 * 60_000;
/** The deadline of objects without a wall clock of their own (a shell without one, a committed state). */
export const DEFAULT_LIFETIME_MS = 24 * 3600_000;

export interface LabelContext {
  installId: string;
  /** The run the object belongs to ('' outside a run). */
  runId?: string;
}

export function labLabels(
  ctx: LabelContext,
  kind: string,
  lifetimeMs: number,
  now = Date.now(),
): Record<string, string> {
  return {
    [LABEL_INSTALL]: ctx.installId,
    [LABEL_RUN]: ctx.runId ?? '',
    [LABEL_OWNER]: ownerLabel(),
    [LABEL_OWNER_HOST]: hostname(),
    [LABEL_DEADLINE]: String(Math.round(now + lifetimeMs)),
    [LABEL_KIND]: kind,
  };
}

export type SweepVerdict =
  | { remove: true; why: 'deadline' | 'owner-dead' }
  | { remove: false; why: 'other-install' | 'alive' | 'other-machine' | 'unlabelled' };

/** Whether a sweep removes an object with these labels (pure but for the liveness check, injectable). */
export function sweepVerdict(
  labels: Record<string, string> | undefined,
  installId: string,
  now = Date.now(),
  alive: (pid: number) => boolean = processAlive,
): SweepVerdict {
  if (!labels?.[LABEL_INSTALL]) return { remove: false, why: 'unlabelled' };
  if (labels[LABEL_INSTALL] !== installId) return { remove: false, why: 'other-install' };
  const deadline = Number(labels[LABEL_DEADLINE]);
  if (Number.isFinite(deadline) && deadline > 0 && deadline < now) return { remove: true, why: 'deadline' };
  const [pidText, space] = (labels[LABEL_OWNER] ?? '').split('@');
  const pid = Number(pidText);
  if (labels[LABEL_OWNER_HOST] !== hostname() || space !== pidNamespace() || !Number.isInteger(pid) || pid <= 0)
    return { remove: false, why: 'other-machine' };
  if (pid === process.pid || alive(pid)) return { remove: false, why: 'alive' };
  return { remove: true, why: 'owner-dead' };
}
