import * as z from 'zod';
import { markersFor, neutralise, renderCards } from '../kit/markdown.js';
import { contractMarkersSchema } from '../kit/payloads.js';
import { defineTool, IDEMPOTENT_WRITE } from '../kit/define.js';
import { AppError } from '../../errors.js';
import { aliased } from '../kit/aliases.js';
import { EDGE_TYPES, MAX_ENTITY_NAME, MAX_PREDICATE, MAX_RELATE_BATCH, type RelateInput } from '../../services/graph.js';
import { instant, projectIdField, unitInterval } from '../kit/fields.js';

const nodeRef = z.string().trim().min(1).max(MAX_ENTITY_NAME);
const predicateField = z.string().trim().min(1).max(MAX_PREDICATE);
export const edgeTypeField = z.enum(EDGE_TYPES);

const tripleFields = {
  subject: nodeRef.describe('Entry id (26-character ULID) or an entity name, found case-insensitively in the project or created.'),
  predicate: predicateField.describe('The relation, e.g. "depends_on", "owned_by", "causes".'),
  object: nodeRef.describe('Entry id or entity name, like subject.'),
  edge_type: edgeTypeField.optional().describe('Semantic | Temporal | Causal | Hierarchical | Relational (default) | Shortcut (what dreams write).'),
  weight: unitInterval.optional().describe('Strength 0..1, default 1.'),
  confidence: unitInterval.optional().describe('0..1, default 1.'),
  valid_from: instant().optional().describe('When the fact starts to hold (ISO 8601); open when omitted.'),
  valid_to: instant().optional().describe('When the fact stops holding (ISO 8601, exclusive); open when omitted.'),
};

const tripleInput = z.strictObject({
  ...tripleFields,
  project_id: projectIdField.optional().describe("Project of named entities; defaults to the call's project_id."),
});

const input = z.strictObject({
  subject: tripleFields.subject.optional(),
  predicate: tripleFields.predicate.optional(),
  object: tripleFields.object.optional(),
  edge_type: tripleFields.edge_type,
  weight: tripleFields.weight,
  confidence: tripleFields.confidence,
  valid_from: tripleFields.valid_from,
  valid_to: tripleFields.valid_to,
  project_id: aliased(projectIdField.default('default').describe('Project (namespace) named entities live in.'), 'project'),
  triples: z
    .array(tripleInput)
    .min(1)
    .max(MAX_RELATE_BATCH)
    .optional()
    .describe(`A batch of up to ${MAX_RELATE_BATCH} triples, written all or nothing; instead of subject/predicate/object.`),
});

const tripleEnd = z.object({ id: z.string(), name: z.string(), kind: z.string() });

export const tripleOutput = z.object({
  id: z.string(),
  subject: tripleEnd,
  predicate: z.string(),
  object: tripleEnd,
  edge_type: z.string(),
  weight: z.number(),
  confidence: z.number(),
  valid_from: z.string().nullable(),
  valid_to: z.string().nullable(),
  created_at: z.string(),
});

const output = z.object({
  kind: z.literal('triples:v1'),
  tx_id: z.number().int().nullable().describe('The transaction that recorded the change; null when every triple already existed.'),
  triples: z.array(tripleOutput.extend({ created: z.boolean().describe('False when the live triple already existed and was returned as is.') })),
  entities_created: z.array(z.object({ id: z.string(), name: z.string(), project_id: z.string() })),
  contract_markers: contractMarkersSchema,
});

const SINGLE_FIELDS = ['subject', 'predicate', 'object', 'edge_type', 'weight', 'confidence', 'valid_from', 'valid_to'] as const;

/** Markdown-safe inline rendering of a name (names are data written by users). */
export function inlineName(name: string): string {
  return `\`${neutralise(name).replace(/`/g, "'").replace(/\s+/g, ' ').slice(0, 120)}\``;
}

export const relateTool = defineTool({
  name: 'relate',
  title: 'Relate entries and entities',
  description: `Record subject–predicate–object triples (graph edges) between entries (by id) or named entities (by name; created on first use). One triple or a batch; each call is one transaction, all or nothing. An existing live triple is returned with created=false instead of being duplicated.
When to use: to connect facts ("service A depends on service B", "this decision caused that incident"), with valid_from/valid_to when the fact only holds for a while.
Example: {"subject": "payments-service", "predicate": "depends_on", "object": "postgres"}
Advanced: {"triples": [{"subject": "01J9Z8X7W6V5T4S3R2Q1P0N9M8", "predicate": "caused", "object": "incident-42", "edge_type": "Causal", "weight": 0.8}, {"subject": "alice", "predicate": "owns", "object": "payments-service", "valid_from": "2026-01-01"}], "project_id": "team-x"}`,
  annotations: IDEMPOTENT_WRITE,
  input,
  output,
  async handler(args, ctx) {
    let triples: RelateInput[];
    if (args.triples) {
      const mixed = SINGLE_FIELDS.filter((f) => args[f] !== undefined);
      if (mixed.length > 0) {
        throw new AppError('INVALID_PARAMS', `Give either triples or a single subject/predicate/object, not both (also set: ${mixed.join(', ')}).`, { fields: mixed });
      }
      triples = args.triples.map((t) => ({ ...t, project_id: t.project_id ?? args.project_id }));
    } else {
      const missing = (['subject', 'predicate', 'object'] as const).filter((f) => args[f] === undefined);
      if (missing.length > 0) {
        throw new AppError('INVALID_PARAMS', `Invalid arguments for relate: ${missing.join(', ')} required (or a triples list).`, { fields: missing });
      }
      const { triples: _none, ...single } = args;
      triples = [{ ...single, subject: args.subject!, predicate: args.predicate!, object: args.object! }];
    }
    const r = await ctx.services.graph.relate(triples, ctx.actor);
    // A new Hierarchical edge moves the entailment cones: refit that project in the background.
    const reshaped = new Set(r.triples.flatMap((t, i) => (t.created && t.edge_type === 'Hierarchical' ? [triples[i]!.project_id ?? args.project_id] : [])));
    for (const projectId of reshaped) await ctx.services.navigation.hierarchyChanged(projectId);
    return {
      kind: 'triples:v1' as const,
      tx_id: r.txId,
      triples: r.triples,
      entities_created: r.entitiesCreated.map((n) => ({ id: n.id, name: n.name, project_id: n.project_id })),
      contract_markers: markersFor(r.triples.length),
    };
  },
  render(r) {
    const made = r.triples.filter((t) => t.created).length;
    const heading =
      `Recorded ${made} new triple${made === 1 ? '' : 's'}` +
      (made < r.triples.length ? `, ${r.triples.length - made} already existed` : '') +
      (r.tx_id !== null ? ` (transaction ${r.tx_id})` : ' (nothing written)') +
      (r.entities_created.length ? `; new entities: ${r.entities_created.map((e) => inlineName(e.name)).join(', ')}` : '') +
      '.';
    return renderCards('triple', heading, r.triples, (t) => tripleCard(t) + (t.created ? '' : ' · existing'));
  },
  resourceLinks: () => ['knowledge://graph/triples'],
});

/** One triple as a markdown card line: ids, names, type, weight, validity. */
export function tripleCard(t: Pick<z.output<typeof tripleOutput>, 'id' | 'subject' | 'predicate' | 'object' | 'edge_type' | 'weight' | 'valid_from' | 'valid_to'>): string {
  return (
    `**[${t.id}]** ${inlineName(t.subject.name)} —${inlineName(t.predicate)}→ ${inlineName(t.object.name)} · ${t.edge_type} · weight ${t.weight}` +
    (t.valid_from || t.valid_to ? ` · valid ${t.valid_from ?? '…'} – ${t.valid_to ?? '…'}` : '')
  );
}
