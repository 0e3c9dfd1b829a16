/** Families beyond the synthesizer's first set (registered by tasks/families/index.ts). */
import type { TaskFamily } from './types';

export const MORE_FAMILIES: TaskFamily[] = [];
