import type { Embedder } from '../../embed/embedder.js';
import { AppError } from '../../errors.js';
import type { Db } from '../../store/db.js';
import { curateNode } from '../../store/curation-repo.js';
import { broadcastNodes, e1Vectors, edgesAmong, memorySignals, type MemorySignals } from '../../store/workspace-repo.js';
import type { NodeRecord } from '../../store/nodes-repo.js';
import type { Clock } from '../clock.js';
import { curate, lockLiveNode } from '../curation.js';
import { navNode, type NavNode } from '../navigation/views.js';
import { image } from '../writes.js';
import { clamp01, cosine, normalizedEntropy, round4 } from './math.js';

/** How many of a project's newest memories compete (the rest are too old to win on recency). */
export const CANDIDATES = 5_000;
/** A memory untouched for this long has half the recency of one touched now. */
export const RECENCY_HALF_LIFE_HOURS = 24;
/** Weights of the activation's parts; a missing part (no fingerprint yet) drops out and the rest renormalise. */
export const ACTIVATION_WEIGHTS = { recency: 0.3, importance: 0.3, frequency: 0.2, learning: 0.2 } as const;

export interface ActivationParts {
  recency: number;
  importance: number;
  frequency: number;
  learning: number | null;
}

/**
 * Activation of one memory: recency 0.5^(hours since last read or write / 24), importance,
 * retrieval frequency log(1 + accesses) / log(1 + the project's most accesses), UTL L.
 */
export function activationOf(m: MemorySignals, now: Date, maxAccess: number): { activation: number; parts: ActivationParts } {
  const touched = (m.last_accessed_at ?? m.created_at).getTime();
  const hours = Math.max(0, now.getTime() - touched) / 3_600_000;
  const parts: ActivationParts = {
    recency: Math.pow(0.5, hours / RECENCY_HALF_LIFE_HOURS),
    importance: clamp01(m.importance),
    frequency: maxAccess > 0 ? Math.log1p(m.access_count) / Math.log1p(maxAccess) : 0,
    learning: m.learning,
  };
  let sum = 0;
  let weight = 0;
  for (const [k, w] of Object.entries(ACTIVATION_WEIGHTS)) {
    const v = parts[k as keyof ActivationParts];
    if (v === null) continue;
    sum += w * v;
    weight += w;
  }
  return { activation: weight > 0 ? sum / weight : 0, parts };
}

export interface Broadcast {
  at: string;
  activation: number;
  hold_minutes: number;
  actor: string | null;
}

export interface WorkspaceMember extends NavNode {
  activation: number;
  /** Its share of the members' total activation (the competition). */
  share: number;
  parts: ActivationParts;
  /** Strength of a broadcast in effect on it (1 at broadcast, 0 when it has decayed), else null. */
  broadcast_strength: number | null;
}

export interface Workspace {
  project_id: string;
  candidates: number;
  members: WorkspaceMember[];
  winner: WorkspaceMember | null;
  /** Winner's activation minus the runner-up's: how clear the competition is. */
  margin: number | null;
}

/** Kuramoto order parameter of the embedding spaces, when a synchronisation service computes one. */
export interface SyncSource {
  orderParameter(projectId: string): Promise<{ r: number; psi: number } | null>;
}

/**
 * The global workspace (GWT, contextgraph.md §4): the few memories whose activation is highest
 * compete for attention; broadcasting the winner puts it first in every session's recent context
 * until it decays. A broadcast is the winner's metadata, written in one logged transaction, so
 * undo retracts it.
 */
export class WorkspaceService {
  constructor(private readonly deps: { db: Db; embedder: Embedder; clock: Clock; size: number; holdMinutes: number; sync?: SyncSource | null | undefined }) {}

  e1ModelId(): string | null {
    return this.deps.embedder.encoders().find((e) => e.space === 'E1')?.modelId ?? null;
  }

  async workspace(projectId: string): Promise<Workspace> {
    const now = this.deps.clock.now();
    const rows = await memorySignals(this.deps.db, projectId, CANDIDATES);
    const maxAccess = Math.max(0, ...rows.map((r) => r.access_count));
    const scored = rows.map((m) => ({ m, ...activationOf(m, now, maxAccess) })).sort((a, b) => b.activation - a.activation || b.m.nid - a.m.nid);
    const top = scored.slice(0, this.deps.size);
    const total = top.reduce((s, x) => s + x.activation, 0);
    const strengths = new Map((await this.broadcastsInEffect(projectId)).map((b) => [b.node.id, b.strength]));
    const members = top.map((x) => ({
      ...navNode({ ...x.m, kind: 'memory', project_id: projectId } as unknown as NodeRecord),
      activation: round4(x.activation),
      share: total > 0 ? round4(x.activation / total) : 0,
      parts: {
        recency: round4(x.parts.recency),
        importance: round4(x.parts.importance),
        frequency: round4(x.parts.frequency),
        learning: x.parts.learning === null ? null : round4(x.parts.learning),
      },
      broadcast_strength: strengths.get(x.m.id) ?? null,
    }));
    return {
      project_id: projectId,
      candidates: rows.length,
      members,
      winner: members[0] ?? null,
      margin: top.length > 1 ? round4(top[0]!.activation - top[1]!.activation) : null,
    };
  }

  /**
   * Broadcasts a memory (the current winner when `nodeId` is absent): its metadata records when,
   * with what activation, for how long; get_recent_context lists it first for every session
   * until the hold has passed. Undoable like any write.
   */
  async broadcast(projectId: string, nodeId: string | null, meta: { actor: string | null; rationale: string | null }) {
    const ws = await this.workspace(projectId);
    const chosen = nodeId ? (ws.members.find((m) => m.id === nodeId) ?? null) : ws.winner;
    if (!chosen && !nodeId)
      throw new AppError('INVALID_PARAMS', `project_id: project ${projectId} holds no memory to broadcast.`, { issues: [{ path: 'project_id', message: 'no memories' }] });
    const activation = chosen?.activation ?? null;
    const at = this.deps.clock.now().toISOString();
    const out = await curate(
      this.deps.db,
      'workspace_broadcast',
      { actor: meta.actor, rationale: meta.rationale ?? `workspace broadcast of the ${nodeId ? 'chosen memory' : 'winner'} (activation ${activation ?? 'outside the workspace'})` },
      async (tx, log) => {
        const old = await lockLiveNode(tx, nodeId ?? chosen!.id);
        if (old.project_id !== projectId)
          throw new AppError('INVALID_PARAMS', `node_id: ${old.id} belongs to project ${old.project_id}, not ${projectId}.`, {
            issues: [{ path: 'node_id', message: 'other project' }],
          });
        const broadcast: Broadcast = { at, activation: activation ?? 0, hold_minutes: this.deps.holdMinutes, actor: meta.actor };
        const row = await curateNode(tx, old.id, {
          tags: old.tags,
          confidence: old.confidence,
          importance: old.importance,
          metadata: { ...old.metadata, workspace_broadcast: broadcast },
        });
        log({ entity: 'node', entityId: old.id, before: image(old), after: image(row) });
        return { nodeIds: [old.id], result: { node: row, broadcast, member: chosen !== null } };
      },
    );
    return { txId: out.txId, reversalHash: out.reversalHash, ...out.result, workspace: ws };
  }

  /**
   * Broadcasts not yet decayed, strongest first: strength falls linearly from 1 at the broadcast
   * to 0 when its hold has passed.
   */
  async broadcastsInEffect(projectId: string | null): Promise<Array<{ node: NodeRecord & { access_count: number }; broadcast: Broadcast; strength: number }>> {
    const now = this.deps.clock.now().getTime();
    return (await broadcastNodes(this.deps.db, projectId))
      .flatMap((node) => {
        const b = node.metadata['workspace_broadcast'] as Broadcast | undefined;
        if (!b || typeof b.at !== 'string') return [];
        const age = (now - Date.parse(b.at)) / 60_000;
        const strength = 1 - age / Math.max(1e-9, b.hold_minutes);
        return strength > 0 && age >= 0 ? [{ node, broadcast: b, strength: round4(strength) }] : [];
      })
      .sort((a, b) => b.strength - a.strength || b.node.nid - a.node.nid);
  }

  /**
   * Integration measures of the workspace: how its activation is spread (normalised entropy),
   * how connected its members are (live edges among them / possible pairs), how alike they are
   * (mean pairwise E1 cosine), and the Kuramoto order parameter r when synchronisation is computed.
   */
  async consciousness(projectId: string) {
    const ws = await this.workspace(projectId);
    const ids = ws.members.map((m) => m.id);
    const pairs = (ids.length * (ids.length - 1)) / 2;
    const edges = await edgesAmong(this.deps.db, ids);
    const density = pairs > 0 ? edges / pairs : 0;
    const entropy = normalizedEntropy(ws.members.map((m) => m.activation));
    const modelId = this.e1ModelId();
    const nids = (await memorySignals(this.deps.db, projectId, CANDIDATES)).filter((m) => ids.includes(m.id)).map((m) => m.nid);
    const vectors = modelId ? [...(await e1Vectors(this.deps.db, nids, modelId)).values()] : [];
    let sum = 0;
    let n = 0;
    for (let i = 0; i < vectors.length; i++) {
      for (let j = i + 1; j < vectors.length; j++) {
        sum += cosine(vectors[i]!, vectors[j]!);
        n++;
      }
    }
    const coherence = n > 0 ? sum / n : null;
    const sync = this.deps.sync ? await this.deps.sync.orderParameter(projectId) : null;
    const parts = [density, entropy, ...(coherence === null ? [] : [clamp01(coherence)]), ...(sync ? [sync.r] : [])];
    const level = ws.members.length > 0 ? parts.reduce((s, x) => s + x, 0) / parts.length : 0;
    return {
      project_id: projectId,
      members: ws.members.length,
      winner: ws.winner?.id ?? null,
      edges_among_members: edges,
      edge_density: round4(density),
      activation_entropy: round4(entropy),
      semantic_coherence: coherence === null ? null : round4(coherence),
      kuramoto: sync ? { r: round4(sync.r), psi: round4(sync.psi), reason: null } : { r: null, psi: null, reason: 'not computed yet' },
      level: round4(level),
      state: stateOf(level),
    };
  }
}

/** The origin's level bands (contextgraph.md §4), applied to the level itself (not to r as there). */
export function stateOf(level: number): 'dormant' | 'fragmented' | 'emerging' | 'conscious' {
  if (level < 0.3) return 'dormant';
  if (level < 0.5) return 'fragmented';
  if (level < 0.8) return 'emerging';
  return 'conscious';
}
