/** Families beyond the synthesizer's first set (registered by tasks/families/index.ts). */
import { accessLogReport } from './more/access-log-report';
import { csvGroupReport } from './more/csv-group-report';
import { fixPythonBug } from './more/fix-python-bug';
import { iniToJson } from './more/ini-to-json';
import { makefileRepair } from './more/makefile-repair';
import { redactSecrets } from './more/redact-secrets';
import { repairShellScript } from './more/repair-shell-script';
import { numericIntegration } from './more/numeric-integration';
import { columnStats } from './more/column-stats';
import { gitRevertRegression } from './more/git-revert-regression';
import { gitMergeConflict } from './more/git-merge-conflict';
import { numberTheoryBatch } from './more/number-theory-batch';
import { linearSystem } from './more/linear-system';
import { passwdAudit } from './more/passwd-audit';
import { dedupeFiles } from './more/dedupe-files';
import { sortByDate } from './more/sort-by-date';
import { backupManifest } from './more/backup-manifest';
import { sqliteQueries } from './more/sqlite-queries';
import { permissionAudit } from './more/permission-audit';
import type { TaskFamily } from './types';

export const MORE_FAMILIES: TaskFamily[] = [csvGroupReport, accessLogReport, fixPythonBug, repairShellScript, iniToJson, redactSecrets, makefileRepair, numericIntegration, columnStats, gitRevertRegression, gitMergeConflict, numberTheoryBatch, linearSystem, passwdAudit, dedupeFiles, sortByDate, backupManifest, sqliteQueries, permissionAudit];
