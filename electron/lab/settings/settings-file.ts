/**
 * The lab's settings: one small JSON file in the data dir (`settings.json`), read whole and written whole
 * through a temporary file and a rename, so a crash never leaves half a file. Each part of the lab owns
 * one top-level key; unknown keys are kept as they are.
 */
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { LabError } from '../../ipc/common/errors';

export const SETTINGS_FILE = 'settings.json';

export function settingsPath(dataDir: string): string {
  return join(dataDir, SETTINGS_FILE);
}

export function readSettings(dataDir: string): Record<string, unknown> {
  const file = settingsPath(dataDir);
  if (!existsSync(file)) return {};
  try {
    const parsed: unknown = JSON.parse(readFileSync(file, 'utf8'));
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>;
  } catch (error) {
    throw new LabError('CONFLICT', `${file} is not valid JSON (${(error as Error).message}): fix or delete it`);
  }
  throw new LabError('CONFLICT', `${file} must hold a JSON object: fix or delete it`);
}

/** Set one top-level key and write the file atomically. */
export function writeSetting(dataDir: string, key: string, value: unknown): void {
  const file = settingsPath(dataDir);
  const next = { ...readSettings(dataDir), [key]: value };
  mkdirSync(dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(next, null, 2) + '\n');
  renameSync(tmp, file);
}
