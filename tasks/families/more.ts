/** Families beyond the synthesizer's first set (registered by tasks/families/index.ts). */
import { accessLogReport } from './more/access-log-report';
import { csvGroupReport } from './more/csv-group-report';
import { fixPythonBug } from './more/fix-python-bug';
import type { TaskFamily } from './types';

export const MORE_FAMILIES: TaskFamily[] = [csvGroupReport, accessLogReport, fixPythonBug];
