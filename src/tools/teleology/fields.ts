import * as z from 'zod';

export const SPACE_IDS = ['E1', 'E2', 'E3', 'E4', 'E5', 'E6', 'E7', 'E8', 'E9', 'E10', 'E11', 'E12', 'E13'] as const;
export const spaceIdField = z.enum(SPACE_IDS);
export const spaceWeightsField = z
  .partialRecord(spaceIdField, z.number().min(0).max(10))
  .describe('Weight per space id (E1 … E13; E1 = 1 is the reference, 0 leaves a space out).');
export const profileNameField = z
  .string()
  .regex(/^[a-z][a-z0-9_-]{0,39}$/, 'lower-case letters, digits, "_" or "-", starting with a letter')
  .describe(
    'Profile name: a built-in one (default, code, temporal, causal, entity, expanded; learned = the synergy weights of the project) or one saved with manage_teleological_profile.',
  );
export const round4 = (x: number) => Math.round(x * 1e4) / 1e4;
