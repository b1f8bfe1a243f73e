import * as z from 'zod';
import type { NodeRecord } from '../../services/reads.js';
import { isoDate, memoryTypeField } from './fields.js';

/** An entry as tools and resources show it. */
export const entrySchema = z.object({
  id: z.string(),
  kind: z.string(),
  content: z.string(),
  topic: z.string().nullable(),
  project_id: z.string(),
  memory_type: memoryTypeField,
  tags: z.array(z.string()),
  source_uri: z.string().nullable(),
  importance: z.number(),
  confidence: z.number(),
  valid_from: isoDate.nullable(),
  valid_to: isoDate.nullable(),
  recorded_at: isoDate,
  updated_at: isoDate,
  version: z.number().int(),
  superseded_by: z.string().nullable().describe('The entry that replaced this fact, if one did (update with supersedes).'),
});
export type Entry = z.output<typeof entrySchema>;

const iso = (d: Date | string | null): string | null => (d === null ? null : typeof d === 'string' ? new Date(d).toISOString() : d.toISOString());

/** Accepts a row or its JSON image from the transaction log (dates as strings there). */
export function toEntry(n: NodeRecord): Entry {
  return {
    id: n.id,
    kind: n.kind,
    content: n.content,
    topic: n.topic,
    project_id: n.project_id,
    memory_type: n.memory_type as Entry['memory_type'],
    tags: n.tags,
    source_uri: n.source_uri,
    importance: n.importance,
    confidence: n.confidence,
    valid_from: iso(n.valid_from),
    valid_to: iso(n.valid_to),
    recorded_at: iso(n.created_at)!,
    updated_at: iso(n.updated_at)!,
    version: n.version,
    superseded_by: typeof n.metadata?.superseded_by === 'string' ? n.metadata.superseded_by : null,
  };
}

/** The resource that reads back one entry (resources/read `knowledge://entries/{id}`). */
export function entryUri(id: string): string {
  return `knowledge://entries/${encodeURIComponent(id)}`;
}

/** Links to the entries a result lists, capped so a long list does not flood the content. */
export function entryLinks(items: ReadonlyArray<{ id: string }>, max = 20): string[] {
  return items.slice(0, max).map((i) => entryUri(i.id));
}
