/**
 * `[ppo]`: reserved for the PPO stage (its own issue fills it in). Kept as its own zod object so that the
 * PPO stage owns this file and nothing else in the run config changes when it grows.
 */
import { z } from 'zod';

export const PpoSection = z.strictObject({});
export type PpoSection = z.infer<typeof PpoSection>;
