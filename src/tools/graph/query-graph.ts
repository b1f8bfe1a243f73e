import * as z from 'zod';
import { citation } from '../../ids.js';
import { markersFor, quoteMemory, renderCards } from '../kit/markdown.js';
import { contractMarkersSchema, needsInput } from '../kit/payloads.js';
import { aliased } from '../kit/aliases.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { MAX_ENTITY_NAME, MAX_PREDICATE } from '../../services/graph.js';
import { instant, projectIdField } from '../kit/fields.js';
import { edgeTypeField, inlineName, tripleCard, tripleOutput } from './relate.js';

const SNIPPET = 280;

const input = z.strictObject({
  node: z.string().trim().min(1).max(MAX_ENTITY_NAME).describe('Start: an entry id (ULID) or an entity name.'),
  depth: z.number().int().min(1).max(3).default(1).describe('Hops from the start, 1..3.'),
  direction: z.enum(['out', 'in', 'both']).default('both').describe('Follow outgoing (subject→object), incoming, or both.'),
  predicates: z.array(z.string().trim().min(1).max(MAX_PREDICATE)).max(32).optional().describe('Only these predicates (case-insensitive).'),
  edge_types: z.array(edgeTypeField).max(5).optional().describe('Only these edge types.'),
  limit: aliased(z.number().int().min(1).max(200).default(50).describe('Most triples to return, 1..200.'), 'k'),
  project_id: aliased(projectIdField.default('default').describe('Project an entity name is looked up in.'), 'project'),
  as_of_tx_id: z.number().int().min(0).optional().describe('Read the graph as it stood after this transaction.'),
  valid_at: instant().optional().describe('Only facts whose validity interval contains this instant (ISO 8601).'),
});

const output = z.object({
  kind: z.literal('graph:v1'),
  as_of_tx_id: z.number().int().describe('The transaction whose state this reflects.'),
  start: z.object({ id: z.string(), name: z.string(), kind: z.string() }),
  depth: z.number().int(),
  direction: z.enum(['out', 'in', 'both']),
  nodes: z.array(
    z.object({
      id: z.string(),
      kind: z.string(),
      name: z.string(),
      topic: z.string().nullable(),
      project_id: z.string(),
      content: z.string().describe(`The first ${SNIPPET} characters.`),
      valid_from: z.string().nullable(),
      valid_to: z.string().nullable(),
      depth: z.number().int().describe('Hops from the start (0 for the start).'),
    }),
  ),
  triples: z.array(tripleOutput),
  truncated: z.boolean().describe('True when limit cut the traversal short.'),
  contract_markers: contractMarkersSchema,
});

export const queryGraphTool = defineTool({
  name: 'query_graph',
  title: 'Explore the graph around a node',
  description: `Walk the triples around an entry or named entity, breadth first up to 3 hops (cycle-safe), optionally filtered by predicate, edge type, direction and the instant the facts must hold at; or as the graph stood after an earlier transaction.
When to use: to see what an entity or entry is connected to (dependencies, owners, causes) before answering or changing it.
Example: {"node": "payments-service"}
Advanced: {"node": "payments-service", "depth": 2, "direction": "out", "predicates": ["depends_on"], "edge_types": ["Causal", "Relational"], "valid_at": "2026-03-01", "as_of_tx_id": 42}`,
  annotations: READ_ONLY,
  input,
  output,
  mayNeedInput: true,
  async handler(args, ctx) {
    const r = await ctx.services.graph.neighborhood({
      node: args.node,
      projectId: args.project_id,
      depth: args.depth,
      direction: args.direction,
      predicates: args.predicates,
      edgeTypes: args.edge_types,
      limit: args.limit,
      asOfTxId: args.as_of_tx_id,
      validAt: args.valid_at !== undefined ? new Date(args.valid_at) : undefined,
    });
    if (!r.found) {
      return needsInput({
        message: `No entry or entity "${args.node}" in project "${args.project_id}"${args.as_of_tx_id !== undefined ? ` as of transaction ${args.as_of_tx_id}` : ''}. Which node did you mean?`,
        needsInput: {
          fields: ['node'],
          reason: 'The start node is unknown.',
          ...(r.suggestions.length ? { suggestions: { node: r.suggestions } } : {}),
        },
        ...(r.suggestions.length ? { options: r.suggestions.map((s) => ({ label: s, value: s, field: 'node' })) } : {}),
      });
    }
    return {
      kind: 'graph:v1' as const,
      as_of_tx_id: r.asOfTxId,
      start: { id: r.start.id, name: r.start.name, kind: r.start.kind },
      depth: args.depth,
      direction: args.direction,
      nodes: r.nodes.map((n) => ({
        id: n.id,
        kind: n.kind,
        name: n.name,
        topic: n.topic,
        project_id: n.project_id,
        content: n.content.length > SNIPPET ? `${n.content.slice(0, SNIPPET)}…` : n.content,
        valid_from: n.valid_from,
        valid_to: n.valid_to,
        depth: n.depth,
      })),
      triples: r.triples,
      truncated: r.truncated,
      contract_markers: markersFor(r.triples.length),
    };
  },
  render(r) {
    const others = r.nodes.filter((n) => n.depth > 0);
    const heading = [
      `Graph around ${inlineName(r.start.name)} (\`${r.start.id}\`): ${others.length} node${others.length === 1 ? '' : 's'}, ${r.triples.length} triple${r.triples.length === 1 ? '' : 's'} within ${r.depth} hop${r.depth === 1 ? '' : 's'} (${r.direction}), as of transaction ${r.as_of_tx_id}.${r.truncated ? ' Truncated: raise limit or narrow the filters.' : ''}`,
      ...others.map(
        (n) => `- depth ${n.depth} · **${citation(n.id)}** \`${n.id}\` ${n.kind} ${inlineName(n.name)}${n.kind === 'entity' ? '' : `\n${quoteMemory(n.content, 200)}`}`,
      ),
    ].join('\n');
    return renderCards('triple', heading, r.triples, tripleCard);
  },
  resourceLinks: () => ['knowledge://graph/triples'],
});
