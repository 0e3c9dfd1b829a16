/** Size limits a task must respect when it is loaded (folder or pack). Oversize files are errors, not truncations. */

export interface SizeLimits {
  /** Largest single file of a task, bytes. */
  maxFileBytes: number;
  /** Largest total of all files of one task, bytes. */
  maxTaskBytes: number;
  /** Most files one task may have. */
  maxFiles: number;
}

const MiB = 1024 * 1024;

/**
 * Generous for hand-written and synthesized tasks (a TB 2 task is typically well under 1 MiB), small enough
 * that a pack line or a folder cannot exhaust memory when thousands are loaded.
 */
export const DEFAULT_SIZE_LIMITS: SizeLimits = {
  maxFileBytes: 16 * MiB,
  maxTaskBytes: 64 * MiB,
  maxFiles: 5000,
};

/** The deepest a folder of task folders is searched for tasks. */
export const MAX_DISCOVERY_DEPTH = 4;
