import { SYMMETRIC_EDGE_TYPES, type EdgeAround, type EdgeRecord } from '../../store/edges-repo.js';
import type { NodeRecord } from '../../store/nodes-repo.js';
import { nodeView } from '../graph-views.js';

/** Which way an edge points as seen from a node: Semantic and Shortcut edges are symmetric (stored once, either way). */
export type EdgeDirection = 'outgoing' | 'incoming' | 'undirected';

export interface NavNode {
  id: string;
  kind: string;
  name: string;
  project_id: string;
  snippet: string;
}

export interface NavEdge {
  edge_id: string;
  edge_type: string;
  predicate: string;
  weight: number;
  confidence: number;
  direction: EdgeDirection;
  /** How the edge was made: a job's method (e1_knn, sequence, cue:because, tag, …) or manual. */
  method: string;
}

const SNIPPET = 200;

export function navNode(n: NodeRecord): NavNode {
  const v = nodeView(n);
  const flat = n.content.replace(/\s+/g, ' ').trim();
  return { id: n.id, kind: n.kind, name: v.name, project_id: n.project_id, snippet: flat.length > SNIPPET ? `${flat.slice(0, SNIPPET)}…` : flat };
}

export function navEdge(e: EdgeRecord, outgoing: boolean): NavEdge {
  const method = typeof e.metadata?.['method'] === 'string' ? e.metadata['method'] : 'manual';
  return {
    edge_id: e.id,
    edge_type: e.edge_type,
    predicate: e.predicate,
    weight: e.weight,
    confidence: e.confidence,
    direction: SYMMETRIC_EDGE_TYPES.includes(e.edge_type) ? 'undirected' : outgoing ? 'outgoing' : 'incoming',
    method,
  };
}

export function aroundEdge(e: EdgeAround): NavEdge {
  return navEdge(e, e.outgoing);
}
