import * as z from 'zod';
import { aliased } from '../kit/aliases.js';
import { projectIdField } from '../kit/fields.js';
import { navNodeSchema } from '../navigation/shapes.js';

/** The project a workspace tool looks at (one workspace per project). */
export const workspaceProjectField = aliased(projectIdField.default('default').describe('The project whose memories compete (default: "default").'), 'project');

export const memberSchema = navNodeSchema.extend({
  activation: z.number().describe('0.3·recency + 0.3·importance + 0.2·retrieval frequency + 0.2·UTL L (L left out, and the rest renormalised, before its fingerprint exists).'),
  share: z.number().describe("Its share of the members' total activation."),
  parts: z.object({
    recency: z.number().describe('0.5^(hours since last read or write / 24).'),
    importance: z.number(),
    frequency: z.number().describe("log(1 + accesses) / log(1 + the project's most accesses)."),
    learning: z.number().nullable().describe('UTL L of its fingerprint; null before the fingerprint job ran.'),
  }),
  broadcast_strength: z.number().nullable().describe('1 right after a broadcast of it, falling to 0 over the hold; null when not broadcast.'),
});
