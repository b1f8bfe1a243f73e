import * as z from 'zod';
import { AppError } from '../../errors.js';
import { entryUri } from '../kit/entry.js';
import { aliased } from '../kit/aliases.js';
import { defineTool, WRITE } from '../kit/define.js';
import { EntryNotFoundError } from '../../services/entries.js';
import { instant, contentField, isoDate, memoryTypeField, nodeIdField, tagsField, unitInterval } from '../kit/fields.js';

const idField = nodeIdField;

const input = z.strictObject({
  id: idField.describe('Id of the entry to change (from store, query or history).'),
  content: aliased(contentField.optional().describe('New text of the memory; it is re-embedded.'), 'text'),
  topic: z.string().trim().min(1).max(256).nullable().optional().describe('New subject line; null clears it.'),
  tags: tagsField.optional().describe('Replaces the tags.'),
  importance: unitInterval.optional().describe('0..1.'),
  confidence: unitInterval.optional().describe('0..1.'),
  memory_type: aliased(memoryTypeField.optional().describe('episodic, semantic or procedural.'), 'type'),
  source_uri: z.string().max(2_048).nullable().optional().describe('Where the memory came from; null clears it.'),
  valid_from: instant().nullable().optional().describe('When the fact starts to hold (not when it was recorded); null clears it.'),
  valid_to: instant().nullable().optional().describe('When the fact stops holding; null clears it.'),
  supersedes: z.boolean().default(false).describe('true: keep the old entry as a closed fact (valid_to = now) and write the change as a NEW entry that supersedes it.'),
  rationale: z.string().trim().max(1_000).optional().describe('Why, recorded in the history.'),
});

const output = z.object({
  kind: z.literal('updated:v1'),
  id: z.string().describe('The entry holding the fact now (the new entry when superseding).'),
  tx_id: z.number().int(),
  version: z.number().int(),
  superseded_id: z.string().nullable().describe('The closed entry when superseding, else null.'),
  updated_at: isoDate,
  valid_from: isoDate.nullable(),
  valid_to: isoDate.nullable(),
});

export const updateTool = defineTool({
  name: 'update',
  title: 'Update a memory',
  description: `Change an entry's content, topic, tags, importance, confidence, type, source or validity. In place by default (version + 1); with "supersedes": true the old entry is closed (valid_to = now) and the change becomes a NEW entry that supersedes it, in one transaction. \`undo\` reverts either.
When to use: a stored fact became wrong (plain update) or changed (supersedes: it WAS true until now). An unknown id is a NODE_NOT_FOUND error listing close ids.
Example: {"id": "01J9Z3K6Q4M8W2X5Y7R1T0V3AB", "content": "Deploys use blue-green with a 10 minute rollback window."}
Advanced: {"id": "01J9Z3K6Q4M8W2X5Y7R1T0V3AB", "content": "The payments team now deploys canary-first.", "supersedes": true, "valid_from": "2026-03-01T00:00:00Z", "rationale": "Decision in the March ops review"}`,
  annotations: WRITE,
  input,
  output,
  async handler(args, ctx) {
    try {
      const r = await ctx.services.entries.update(args, ctx.actor);
      return {
        kind: 'updated:v1' as const,
        id: r.node.id,
        tx_id: r.txId,
        version: r.node.version,
        superseded_id: r.superseded?.id ?? null,
        updated_at: r.node.updated_at.toISOString(),
        valid_from: r.node.valid_from?.toISOString() ?? null,
        valid_to: r.node.valid_to?.toISOString() ?? null,
      };
    } catch (err) {
      if (!(err instanceof EntryNotFoundError)) throw err;
      // A mutation on an unknown id is an error, never a success shape; close ids help the retry.
      const { ids, basis } = await ctx.services.entries.suggestIds(args.id);
      const why = err.deleted ? `Entry ${args.id} is deleted (undo can bring it back).` : `No entry has id ${args.id}.`;
      throw new AppError('NODE_NOT_FOUND', `${why}${ids.length ? ` ${basis === 'similar' ? 'Similar ids' : 'Recently updated entries'}: ${ids.join(', ')}.` : ''}`, {
        id: args.id,
        deleted: err.deleted,
        suggestions: ids,
        suggestions_basis: basis,
      });
    }
  },
  render(r) {
    if (r.superseded_id) return `Entry \`${r.superseded_id}\` is closed and superseded by the new entry \`${r.id}\` (transaction ${r.tx_id}).`;
    return `Updated entry \`${r.id}\` to version ${r.version} (transaction ${r.tx_id}).`;
  },
  resourceLinks: (_args, r) => [entryUri(r.id)],
});
