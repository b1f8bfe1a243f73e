import * as z from 'zod';
import { needsInput } from '../../mcp/payloads.js';
import { defineTool } from '../../mcp/tool.js';
import { entriesFor, EntryNotFoundError } from '../../services/entries.js';
import { contentField, isoDate, memoryTypeField, tagsField, unitInterval } from '../memory/schemas.js';

const idField = z.string().trim().min(1).max(128);
const timestamp = z.string().trim().max(64).describe('ISO 8601 timestamp, e.g. 2026-03-01T00:00:00Z');

const input = z.strictObject({
  id: idField.describe('Id of the entry to change (from store, query or history).'),
  content: contentField.optional().describe('New text of the memory; it is re-embedded.'),
  topic: z.string().trim().min(1).max(256).nullable().optional().describe('New subject line; null clears it.'),
  tags: tagsField.optional().describe('Replaces the tags.'),
  importance: unitInterval.optional().describe('0..1.'),
  confidence: unitInterval.optional().describe('0..1.'),
  memory_type: memoryTypeField.optional().describe('episodic, semantic or procedural.'),
  source_uri: z.string().max(2_048).nullable().optional().describe('Where the memory came from; null clears it.'),
  valid_from: timestamp.nullable().optional().describe('When the fact starts to hold (not when it was recorded); null clears it.'),
  valid_to: timestamp.nullable().optional().describe('When the fact stops holding; null clears it.'),
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
  toolset: 'memory',
  description: `Change an entry's content, topic, tags, importance, confidence, type, source or validity time. A plain update edits the entry in place (version + 1); with "supersedes": true the old entry is kept as a closed fact (valid_to set, metadata.superseded_by) and the new fields go to a NEW entry (metadata.supersedes), both in one transaction. Either way \`undo\` can revert it.
When to use: a stored fact became wrong or incomplete. Use supersedes when the old fact WAS true until now (a decision changed), plain update for corrections.
Example: {"id": "01J9Z3K6Q4M8W2X5Y7R1T0V3AB", "content": "Deploys use blue-green with a 10 minute rollback window."}
Advanced: {"id": "01J9Z3K6Q4M8W2X5Y7R1T0V3AB", "content": "The payments team now deploys canary-first.", "supersedes": true, "valid_from": "2026-03-01T00:00:00Z", "rationale": "Decision in the March ops review"}`,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  input,
  output,
  mayNeedInput: true,
  async handler(args, ctx) {
    const entries = entriesFor(ctx.app);
    try {
      const r = await entries.update(args, ctx.actor);
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
      const { ids, basis } = await entries.suggestIds(args.id);
      const why = err.deleted ? `Entry ${args.id} is deleted (undo can bring it back).` : `No entry has id ${args.id}.`;
      const which = basis === 'similar' ? 'the ids most similar to the one given' : 'no id is similar, so these are the most recently updated entries';
      return needsInput({
        message: `${why} Which entry did you mean? Suggestions: ${which}.`,
        needsInput: { fields: ['id'], reason: err.deleted ? 'deleted' : 'not_found', suggestions: { id: ids } },
        options: ids.map((id) => ({ label: id, value: id, field: 'id', description: basis === 'similar' ? 'similar id' : 'recently updated' })),
      });
    }
  },
  render(r) {
    if (r.superseded_id) return `Entry \`${r.superseded_id}\` is closed and superseded by the new entry \`${r.id}\` (transaction ${r.tx_id}).`;
    return `Updated entry \`${r.id}\` to version ${r.version} (transaction ${r.tx_id}).`;
  },
  resourceUri: (_args, r) => `knowledge://entries/${r.id}`,
});
