import * as z from 'zod';
import { citation, uuidOf } from '../../ids.js';

/** A node id with the forms a client may cite it by. */
export const citedIdSchema = z.object({
  id: z.string().describe('The node id (ULID).'),
  citation: z.string().describe('Its citation tag [node_<hex>]; hydrate_citation expands it.'),
  uuid: z.string().describe('The same 128 bits as a UUID string.'),
});

export function cited(id: string): z.output<typeof citedIdSchema> {
  return { id, citation: citation(id), uuid: uuidOf(id) };
}

export const reversalHashField = z.string().nullable().describe('Give it to restore_from_hash within 30 days to bring back the exact prior state.');
