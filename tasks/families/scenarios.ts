/**
 * The scenario families: realistic jobs on project-sized inputs (logs, git repositories, configs, datasets),
 * ids from their content. tasks/families/index.ts registers them next to the core set (core.ts).
 */
import { accessLogReport } from './scenarios/access-log-report';
import { csvGroupReport } from './scenarios/csv-group-report';
import { fixPythonBug } from './scenarios/fix-python-bug';
import { iniToJson } from './scenarios/ini-to-json';
import { makefileRepair } from './scenarios/makefile-repair';
import { redactSecrets } from './scenarios/redact-secrets';
import { repairShellScript } from './scenarios/repair-shell-script';
import { numericIntegration } from './scenarios/numeric-integration';
import { columnStats } from './scenarios/column-stats';
import { gitRevertRegression } from './scenarios/git-revert-regression';
import { gitMergeConflict } from './scenarios/git-merge-conflict';
import { numberTheoryBatch } from './scenarios/number-theory-batch';
import { linearSystem } from './scenarios/linear-system';
import { passwdAudit } from './scenarios/passwd-audit';
import { dedupeFiles } from './scenarios/dedupe-files';
import { sortByDate } from './scenarios/sort-by-date';
import { backupManifest } from './scenarios/backup-manifest';
import { sqliteQueries } from './scenarios/sqlite-queries';
import { permissionAudit } from './scenarios/permission-audit';
import { buildCliTool } from './scenarios/build-cli-tool';
import { mailMerge } from './scenarios/mail-merge';
import { jsonFlatten } from './scenarios/json-flatten';
import { sensorAnomalies } from './scenarios/sensor-anomalies';
import { extractContacts } from './scenarios/extract-contacts';
import { buildOrder } from './scenarios/build-order';
import { ledgerReconcile } from './scenarios/ledger-reconcile';
import { checksumRestore } from './scenarios/checksum-restore';
import { renameRefactor } from './scenarios/rename-refactor';
import { dailyPipeline } from './scenarios/daily-pipeline';
import { serviceFleetMigration } from './scenarios/service-fleet-migration';
import { incidentInvestigation } from './scenarios/incident-investigation';
import { monorepoRelease } from './scenarios/monorepo-release';
import { multiModuleDebug } from './scenarios/multi-module-debug';
import { credentialRotation } from './scenarios/credential-rotation';
import { odeSimulation } from './scenarios/ode-simulation';
import { fixSqlReport } from './scenarios/fix-sql-report';
import type { TaskFamily } from './types';

export const SCENARIO_FAMILIES: TaskFamily[] = [
  csvGroupReport,
  accessLogReport,
  fixPythonBug,
  repairShellScript,
  iniToJson,
  redactSecrets,
  makefileRepair,
  numericIntegration,
  columnStats,
  gitRevertRegression,
  gitMergeConflict,
  numberTheoryBatch,
  linearSystem,
  passwdAudit,
  dedupeFiles,
  sortByDate,
  backupManifest,
  sqliteQueries,
  permissionAudit,
  buildCliTool,
  mailMerge,
  jsonFlatten,
  sensorAnomalies,
  extractContacts,
  buildOrder,
  ledgerReconcile,
  checksumRestore,
  renameRefactor,
  dailyPipeline,
  serviceFleetMigration,
  incidentInvestigation,
  monorepoRelease,
  multiModuleDebug,
  credentialRotation,
  odeSimulation,
  fixSqlReport,
];
