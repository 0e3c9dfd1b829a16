/**
 * A task's difficulty as its config file writes it (task.toml's `[metadata]`, TB1's task.yaml): absent, or
 * one of the domain's words. An unknown word is named in the error, so a typo is found at once.
 */
import { z } from 'zod';
import { Difficulty } from '../../../domain/tasks';

export const DeclaredDifficulty = z
  .string()
  .optional()
  .superRefine((value, ctx) => {
    if (value !== undefined && !Difficulty.options.includes(value as Difficulty)) {
      ctx.addIssue({
        code: 'custom',
        message: `unknown difficulty '${value}' (expected ${Difficulty.options.slice(0, -1).join(', ')} or ${Difficulty.options.at(-1)})`,
      });
    }
  })
  .transform((v) => v as Difficulty | undefined);
