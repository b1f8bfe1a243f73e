import type { Direction, EdgeRecord, EdgeType } from '../store/edges-repo.js';
import { ENTITY_KIND } from '../store/entities-repo.js';
import type { NodeRecord } from '../store/nodes-repo.js';

/**
 * The shapes the graph service answers with, and the pure functions that build them from rows
 * or from logged images (whose dates are strings). No I/O here.
 */

export const MAX_RELATE_BATCH = 100;
export const MAX_ENTITY_NAME = 256;
export const MAX_PREDICATE = 128;

const ULID_RE = /^[0-9A-HJKMNP-TV-Z]{26}$/i;

/** Whether `ref` is shaped like an entry id (a ULID) rather than an entity name. */
export function isNodeId(ref: string): boolean {
  return ULID_RE.test(ref);
}

/** A node as the graph presents it, from a live row or a log image alike. */
export interface GraphNodeView {
  id: string;
  kind: string;
  project_id: string;
  /** The entity name, or the entry's topic, or the start of its content. */
  name: string;
  topic: string | null;
  content: string;
  valid_from: string | null;
  valid_to: string | null;
}

export interface TripleEnd {
  id: string;
  name: string;
  kind: string;
}

export interface TripleView {
  id: string;
  subject: TripleEnd;
  predicate: string;
  object: TripleEnd;
  edge_type: string;
  weight: number;
  confidence: number;
  valid_from: string | null;
  valid_to: string | null;
  created_at: string;
}

export interface RelateInput {
  subject: string;
  predicate: string;
  object: string;
  edge_type?: EdgeType | undefined;
  weight?: number | undefined;
  confidence?: number | undefined;
  valid_from?: Date | undefined;
  valid_to?: Date | undefined;
  project_id?: string | undefined;
}

export interface RelateResult {
  /** The transaction that recorded the change, or null when every triple already existed. */
  txId: number | null;
  triples: Array<TripleView & { created: boolean }>;
  entitiesCreated: GraphNodeView[];
}

export interface NeighborhoodQuery {
  /** Entry id or entity name. */
  node: string;
  /** Used to resolve an entity name (and for suggestions); default 'default'. */
  projectId?: string | undefined;
  depth?: number | undefined;
  direction?: Direction | undefined;
  predicates?: readonly string[] | undefined;
  edgeTypes?: readonly string[] | undefined;
  limit?: number | undefined;
  asOfTxId?: number | undefined;
  validAt?: Date | undefined;
}

export interface Neighborhood {
  found: true;
  start: GraphNodeView;
  asOfTxId: number;
  nodes: Array<GraphNodeView & { depth: number }>;
  triples: TripleView[];
  /** True when `limit` cut the traversal short. */
  truncated: boolean;
}

export interface StartNotFound {
  found: false;
  /** Up to 5 close entity names (or entry ids for entries without one), most similar first. */
  suggestions: string[];
  asOfTxId: number;
}

export type NodeLike = Pick<NodeRecord, 'id' | 'kind' | 'project_id' | 'topic' | 'content'> & {
  valid_from: Date | string | null;
  valid_to: Date | string | null;
};

function iso(d: Date | string | null | undefined): string | null {
  if (d === null || d === undefined) return null;
  return d instanceof Date ? d.toISOString() : new Date(d).toISOString();
}

function snippet(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max)}…` : flat;
}

export function nodeView(n: NodeLike): GraphNodeView {
  return {
    id: n.id,
    kind: n.kind,
    project_id: n.project_id,
    name: n.kind === ENTITY_KIND ? (n.topic ?? n.content) : (n.topic ?? snippet(n.content, 80)),
    topic: n.topic,
    content: n.content,
    valid_from: iso(n.valid_from),
    valid_to: iso(n.valid_to),
  };
}

export type EdgeLike = Pick<EdgeRecord, 'id' | 'src' | 'dst' | 'edge_type' | 'predicate' | 'weight' | 'confidence'> & {
  valid_from: Date | string | null;
  valid_to: Date | string | null;
  created_at: Date | string;
};

function end(n: GraphNodeView | undefined, id: string): TripleEnd {
  return n ? { id, name: n.name, kind: n.kind } : { id, name: id, kind: 'unknown' };
}

export function tripleView(e: EdgeLike, nodes: ReadonlyMap<string, GraphNodeView>): TripleView {
  return {
    id: e.id,
    subject: end(nodes.get(e.src), e.src),
    predicate: e.predicate,
    object: end(nodes.get(e.dst), e.dst),
    edge_type: e.edge_type,
    weight: e.weight,
    confidence: e.confidence,
    valid_from: iso(e.valid_from),
    valid_to: iso(e.valid_to),
    created_at: iso(e.created_at)!,
  };
}

export function holdsAt(x: { valid_from: string | null; valid_to: string | null }, t: Date): boolean {
  const ms = t.getTime();
  if (x.valid_from !== null && Date.parse(x.valid_from) > ms) return false;
  if (x.valid_to !== null && Date.parse(x.valid_to) <= ms) return false;
  return true;
}
