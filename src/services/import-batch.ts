import { newId } from '../ids.js';
import type { Queryable } from '../store/db.js';
import {
  existingEdgeIds,
  existingNodeIds,
  insertEdgesBulk,
  insertNodesBulk,
  liveEntitiesByNames,
  liveHashesInProject,
  liveNodeIds,
  liveTripleKeys,
  type ImportedEdge,
  type ImportedNode,
} from '../store/bulk-repo.js';
import { ENTITY_KIND } from '../store/entities-repo.js';
import { advisoryXactLock, LOCKS } from '../store/locks.js';
import { liveChunksBySource, rewriteContent, type NodeRecord } from '../store/nodes-repo.js';
import type { TxChange } from '../store/tx-log.js';
import { chunkText } from './chunking.js';
import type { DocumentRecord, EdgeRecordIn, ImportRecord, MemoryRecord, Rejection, RelationRecord } from './import-records.js';
import { contentHash, image, newNode } from './writes.js';

/** Predicate of the edge from an entity to each of its observations (the MCP memory server's model). */
export const OBSERVATION_PREDICATE = 'has_observation';

export type Indexed<R> = { index: number; record: R };

export interface Written {
  inserted: number;
  updated: number;
  skipped: number;
  changed: NodeRecord[];
}

const dateOrNull = (s: string | null | undefined) => (s ? new Date(s) : null);
const topicKey = (hash: string, topic: string | null | undefined) => `${hash}|${(topic ?? '').toLowerCase()}`;

/** One batch inside its transaction: decides what is new, then writes nodes and edges set-at-a-time. */
export class BatchWriter {
  private readonly nodes: ImportedNode[] = [];
  private readonly edges: ImportedEdge[] = [];
  private readonly changed: NodeRecord[] = [];
  private inserted = 0;
  private updated = 0;
  private skipped = 0;
  /** Entities by `project|lower(name)`: found live or created in this batch. */
  private readonly entities = new Map<string, string>();
  /** Node ids this batch inserts, so edges of the same batch may point at them. */
  private readonly batchNodeIds = new Set<string>();

  constructor(
    private readonly tx: Queryable,
    private readonly log: (change: TxChange) => void,
    private readonly rejections: Rejection[],
  ) {}

  async write(records: ReadonlyArray<Indexed<ImportRecord>>): Promise<Written> {
    const of = <T extends ImportRecord['type']>(type: T) => records.filter((r) => r.record.type === type) as Array<Indexed<Extract<ImportRecord, { type: T }>>>;
    const memories = of('memory');
    this.skipped += of('transaction').length;
    const named = [...of('entity'), ...of('relation'), ...memories.filter((m) => m.record.observation_of)];
    if (named.length > 0) {
      // Entity lookup-or-create must not race `relate` (or another import) into duplicate names.
      await advisoryXactLock(this.tx, LOCKS.relate);
      await this.resolveEntities(records.map((r) => r.record));
    }
    for (const { record } of of('entity')) {
      if (this.entities.has(`${record.project_id}|${record.name.toLowerCase()}`)) this.skipped++;
      else this.addEntity(record.project_id, record.name, record.entity_type);
    }
    await this.addMemories(memories);
    for (const doc of of('document')) await this.addDocument(doc.record);
    await this.addEdges(of('edge'));
    await this.addRelations(of('relation'));
    // Edges have no foreign keys, so nodes and edges of the batch go in as two statements.
    const nodeRows = await insertNodesBulk(this.tx, this.nodes);
    for (const row of nodeRows) this.log({ entity: 'node', entityId: row.id, before: null, after: image(row) });
    this.changed.push(...nodeRows);
    const edgeRows = await insertEdgesBulk(this.tx, this.edges);
    for (const row of edgeRows) this.log({ entity: 'edge', entityId: row.id, before: null, after: image(row) });
    return { inserted: this.inserted, updated: this.updated, skipped: this.skipped, changed: this.changed };
  }

  private async resolveEntities(records: readonly ImportRecord[]): Promise<void> {
    const byProject = new Map<string, Set<string>>();
    const want = (project: string, name: string) => (byProject.get(project) ?? byProject.set(project, new Set()).get(project)!).add(name);
    for (const r of records) {
      if (r.type === 'entity') want(r.project_id, r.name);
      if (r.type === 'relation') {
        want(r.project_id, r.from);
        want(r.project_id, r.to);
      }
      if (r.type === 'memory' && r.observation_of) want(r.project_id, r.observation_of);
    }
    for (const [project, names] of byProject) {
      for (const [lower, node] of await liveEntitiesByNames(this.tx, project, [...names])) this.entities.set(`${project}|${lower}`, node.id);
    }
  }

  /** The entity's id, created (and counted) when the project has none of that name yet. */
  private entityId(projectId: string, name: string): string {
    return this.entities.get(`${projectId}|${name.toLowerCase()}`) ?? this.addEntity(projectId, name, undefined);
  }

  private addEntity(projectId: string, name: string, entityType: string | undefined): string {
    const node = newNode({ kind: ENTITY_KIND, project_id: projectId, topic: name, content: name, metadata: entityType ? { entity_type: entityType } : {} });
    this.pushNode({ ...node, created_at: null, updated_at: null, version: null });
    this.entities.set(`${projectId}|${name.toLowerCase()}`, node.id);
    return node.id;
  }

  private pushNode(node: ImportedNode): void {
    this.nodes.push(node);
    this.batchNodeIds.add(node.id);
    this.inserted++;
  }

  private async addMemories(memories: ReadonlyArray<Indexed<MemoryRecord>>): Promise<void> {
    const withId = memories.filter((m) => m.record.id);
    const taken = await existingNodeIds(
      this.tx,
      withId.map((m) => m.record.id!),
    );
    const hashes = new Map<string, string>();
    const seen = new Set<string>();
    const byProject = new Map<string, string[]>();
    for (const { record } of memories) {
      const hash = contentHash(record.content);
      hashes.set(record.content, hash);
      if (!record.id) (byProject.get(record.project_id) ?? byProject.set(record.project_id, []).get(record.project_id)!).push(hash);
    }
    for (const [project, list] of byProject) {
      for (const row of await liveHashesInProject(this.tx, project, list)) seen.add(`${project}|${row.collection}|${topicKey(row.content_hash, row.topic)}`);
    }
    for (const { record } of memories) {
      const hash = hashes.get(record.content)!;
      const topic = record.topic ?? (record.observation_of ? record.observation_of : null);
      if (record.id) {
        if (taken.has(record.id) || this.batchNodeIds.has(record.id)) {
          this.skipped++;
          continue;
        }
      } else {
        // Dedupe is per collection, as push's: the same text may live in two namespaces.
        const key = `${record.project_id}|${record.collection}|${topicKey(hash, topic)}`;
        if (seen.has(key)) {
          this.skipped++;
          continue;
        }
        seen.add(key);
      }
      const node = this.memoryNode(record, hash, topic);
      this.pushNode(node);
      if (record.observation_of) {
        this.edges.push(this.newEdge(this.entityId(record.project_id, record.observation_of), node.id, 'Hierarchical', OBSERVATION_PREDICATE));
      }
    }
  }

  private memoryNode(r: MemoryRecord, hash: string, topic: string | null): ImportedNode {
    return {
      ...newNode({
        ...(r.id ? { id: r.id } : {}),
        kind: r.kind,
        project_id: r.project_id,
        collection: r.collection,
        memory_type: r.memory_type,
        topic,
        content: r.content,
        tags: r.tags,
        source_uri: r.source_uri ?? null,
        importance: r.importance,
        confidence: r.confidence,
        metadata: r.metadata,
        content_hash: hash,
        valid_from: dateOrNull(r.valid_from),
        valid_to: dateOrNull(r.valid_to),
      }),
      created_at: dateOrNull(r.created_at),
      updated_at: dateOrNull(r.updated_at),
      version: r.version ?? null,
    };
  }

  /** Chunks a document like `push`: known chunks are skipped, a changed chunk at a known position is rewritten. */
  private async addDocument(doc: DocumentRecord): Promise<void> {
    const chunks = chunkText(doc.text, doc.chunk_size);
    const documentHash = contentHash(doc.text);
    const hashes = chunks.map((c) => contentHash(c.text));
    const known = new Set((await liveHashesInProject(this.tx, doc.project_id, hashes)).map((r) => r.content_hash));
    const byIndex = new Map<number, NodeRecord>();
    if (doc.source_uri) {
      for (const n of await liveChunksBySource(this.tx, doc.project_id, doc.source_uri)) {
        const index = (n.metadata as { chunk_index?: unknown }).chunk_index;
        if (typeof index === 'number') byIndex.set(index, n);
      }
    }
    for (const [i, chunk] of chunks.entries()) {
      const hash = hashes[i]!;
      const metadata = { chunk_index: chunk.index, chunk_count: chunks.length, chunk_tokens: chunk.tokens, document_hash: documentHash };
      if (known.has(hash)) {
        this.skipped++;
        continue;
      }
      known.add(hash);
      const previous = byIndex.get(chunk.index);
      if (previous) {
        const after = await rewriteContent(this.tx, previous.nid, chunk.text, hash, { ...previous.metadata, ...metadata });
        this.log({ entity: 'node', entityId: after.id, before: image(previous), after: image(after) });
        this.changed.push(after);
        this.updated++;
        continue;
      }
      const node = newNode({
        kind: 'chunk',
        project_id: doc.project_id,
        memory_type: doc.memory_type,
        topic: doc.topic ?? null,
        content: chunk.text,
        tags: doc.tags,
        source_uri: doc.source_uri ?? null,
        metadata,
        content_hash: hash,
      });
      this.pushNode({ ...node, created_at: null, updated_at: null, version: null });
    }
  }

  private newEdge(src: string, dst: string, edgeType: string, predicate: string): ImportedEdge {
    return { id: newId(), src, dst, edge_type: edgeType, predicate, weight: 1, confidence: 1, metadata: {}, valid_from: null, valid_to: null, created_at: null };
  }

  private async addEdges(edges: ReadonlyArray<Indexed<EdgeRecordIn>>): Promise<void> {
    const taken = await existingEdgeIds(
      this.tx,
      edges.flatMap((e) => (e.record.id ? [e.record.id] : [])),
    );
    const ends = [...new Set(edges.flatMap((e) => [e.record.src, e.record.dst]))].filter((id) => !this.batchNodeIds.has(id));
    const live = await liveNodeIds(this.tx, ends);
    const batchEdgeIds = new Set<string>();
    for (const { index, record: e } of edges) {
      if (e.id && (taken.has(e.id) || batchEdgeIds.has(e.id))) {
        this.skipped++;
        continue;
      }
      const missing = [e.src, e.dst].filter((id) => !live.has(id) && !this.batchNodeIds.has(id));
      if (missing.length > 0) {
        this.rejections.push({ index, reason: `edge end${missing.length > 1 ? 's' : ''} ${missing.join(', ')} not found (import the nodes first)` });
        continue;
      }
      const edge: ImportedEdge = {
        ...this.newEdge(e.src, e.dst, e.edge_type, e.predicate),
        ...(e.id ? { id: e.id } : {}),
        weight: e.weight,
        confidence: e.confidence,
        metadata: e.metadata,
        valid_from: dateOrNull(e.valid_from),
        valid_to: dateOrNull(e.valid_to),
        created_at: dateOrNull(e.created_at),
      };
      batchEdgeIds.add(edge.id);
      this.edges.push(edge);
      this.inserted++;
    }
  }

  private async addRelations(relations: ReadonlyArray<Indexed<RelationRecord>>): Promise<void> {
    const triples = relations.map(({ record: r }) => ({ src: this.entityId(r.project_id, r.from), predicate: r.relation_type, dst: this.entityId(r.project_id, r.to) }));
    const existing = await liveTripleKeys(this.tx, triples);
    for (const t of triples) {
      const key = `${t.src}|${t.predicate.toLowerCase()}|${t.dst}`;
      if (existing.has(key)) {
        this.skipped++;
        continue;
      }
      existing.add(key);
      this.edges.push(this.newEdge(t.src, t.dst, 'Relational', t.predicate));
      this.inserted++;
    }
  }
}
