import * as z from 'zod';

/** Field schemas shared by the memory tools, with the bounds of seed 001 §3.7. */
export const MEMORY_TYPES = ['episodic', 'semantic', 'procedural'] as const;

export const contentField = z.string().min(1, 'must not be empty').max(65_536, 'must be at most 65,536 characters');
export const queryTextField = z.string().trim().min(1, 'must not be empty').max(4_096, 'must be at most 4,096 characters');
export const projectIdField = z.string().trim().min(1).max(128).regex(/^[\w.:@/-]+$/, 'letters, digits and . _ : @ / - only');
export const memoryTypeField = z.enum(MEMORY_TYPES);
export const tagsField = z.array(z.string().trim().min(1).max(64)).max(32);
export const unitInterval = z.number().min(0).max(1);

export const isoDate = z.string().describe('ISO 8601 timestamp');
