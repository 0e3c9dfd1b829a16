/** The synthesizer's own families (tasks/families/core/): one-command skills up to a long-horizon checklist. */
import type { TaskFamily } from './types';
import { measurementStats } from './core/measurement-stats';
import { meetingSlot } from './core/meeting-slot';
import { routeLookup } from './core/route-lookup';
import { configMigrate } from './core/config-migrate';
import { countMatches } from './core/count-matches';
import { csvGroupSum } from './core/csv-group-sum';
import { extractArchive } from './core/extract-archive';
import { fixPermissions } from './core/fix-permissions';
import { fixPythonBugs } from './core/fix-python-bugs';
import { jsonlFilter } from './core/jsonl-filter';
import { logReport } from './core/log-report';
import { opsChecklist } from './core/ops-checklist';
import { renameFiles } from './core/rename-files';
import { replaceText } from './core/replace-text';
import { secretScan } from './core/secret-scan';
import { writeFile } from './core/write-file';

export const CORE_FAMILIES: TaskFamily[] = [
  writeFile,
  countMatches,
  renameFiles,
  fixPermissions,
  replaceText,
  extractArchive,
  jsonlFilter,
  csvGroupSum,
  measurementStats,
  routeLookup,
  meetingSlot,
  fixPythonBugs,
  opsChecklist,
  logReport,
  configMigrate,
  secretScan,
];
