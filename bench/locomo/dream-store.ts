/**
 * One LoCoMo conversation as a store dreams can work on (the dreams e2e test and bench part
 * `dreams` share it): its turns as memories, consecutive turns of a session joined by Temporal
 * edges as the link job makes them, and its questions as the retrievals an agent would make.
 */
import { ulid } from 'ulid';
import type { LocomoSample } from './data.js';

export interface ConversationStore {
  projectId: string;
  /** dia_id → memory id. */
  ids: Map<string, string>;
  memories: Array<Record<string, unknown>>;
  edges: Array<Record<string, unknown>>;
}

export function conversationStore(sample: LocomoSample): ConversationStore {
  const projectId = `locomo-${sample.sampleId}`;
  const ids = new Map<string, string>();
  const memories: ConversationStore['memories'] = [];
  const edges: ConversationStore['edges'] = [];
  let previous = null as { id: string; session: string } | null;
  for (const t of sample.turns) {
    const id = ulid();
    const session = t.diaId.split(':')[0]!;
    ids.set(t.diaId, id);
    memories.push({ type: 'memory', id, content: t.content, source_uri: `locomo:${sample.sampleId}/${session}`, valid_from: t.validFrom.toISOString() });
    if (previous?.session === session) {
      edges.push({ type: 'edge', src: previous.id, dst: id, edge_type: 'Temporal', predicate: 'next', weight: 0.9, metadata: { method: 'sequence' } });
    }
    previous = { id, session };
  }
  return { projectId, ids, memories, edges };
}

/** Splits records into import batches (import_records takes at most 2,000). */
export function batches<T>(records: readonly T[], size = 1_000): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < records.length; i += size) out.push(records.slice(i, i + size));
  return out;
}
