import { z } from 'zod';
import type { Embedder } from '../embed/embedder.js';
import { citation, newId } from '../ids.js';
import { defineJob, type JobHandlerContext } from '../jobs/define.js';
import type { Db } from '../store/db.js';
import { insertEdge } from '../store/edges-repo.js';
import { matchingNodesInTimeOrder } from '../store/facets-repo.js';
import { liveNodesById, insertNode, type NodeRecord } from '../store/nodes-repo.js';
import { embedJob } from './embedding.js';
import type { EmbeddingScheduler } from './embedding-scheduler.js';
import { extractiveSummary, sentences } from './summarize.js';
import { image, newNode, writeTransaction } from './writes.js';

/** A range with more sources than this is summarized (and stored) by a job with progress. */
export const SUMMARY_JOB_MIN_SOURCES = 200;
/** The most memories one summary reads, oldest first. */
export const SUMMARY_MAX_SOURCES = 5_000;
/** Length bound of an extractive summary. */
export const EXTRACTIVE_MAX_CHARS = 2_000;
/** How much memory text a sampling prompt carries at most (the client's model has a context too). */
export const SAMPLING_MAX_CHARS = 48_000;
export const SUMMARY_KIND = 'summary';
export const SUMMARIZES = 'summarizes';

export interface SummaryScope {
  projectId?: string | undefined;
  start?: Date | undefined;
  end?: Date | undefined;
  tags?: readonly string[] | undefined;
}

export const summaryPayload = z.object({
  source_ids: z.array(z.string()),
  /** The client's model wrote it (MCP sampling); null means choose sentences here. */
  sampled: z.object({ text: z.string(), model: z.string(), source_ids: z.array(z.string()) }).nullable(),
  store: z.boolean(),
  project_id: z.string(),
  time_range: z.object({ start: z.string().nullable(), end: z.string().nullable() }),
  tags: z.array(z.string()),
  actor: z.string().nullable(),
});
export type SummaryRequest = z.output<typeof summaryPayload>;

export const summaryResult = z.object({
  summary: z.string(),
  source_memory_ids: z.array(z.string()),
  method: z.enum(['sampling', 'extractive']),
  model: z.string().nullable(),
  sources_read: z.number().int(),
  stored_id: z.string().nullable(),
  tx_id: z.number().int().nullable(),
});
export type SummaryResult = z.output<typeof summaryResult>;

const summaryProgress = z.object({ done: z.number().int(), total: z.number().int(), phase: z.string() });

/**
 * Salient sentences of the sources, in time order (sources come oldest first, sentences in their
 * order within a source), each followed by the citation of the memory it came from.
 */
export function citedExtract(nodes: readonly NodeRecord[]): { text: string; sourceIds: string[] } {
  const owner = nodes.flatMap((n, i) => sentences(n.content).map(() => i));
  const all = nodes.flatMap((n) => sentences(n.content));
  const picked = extractiveSummary(
    nodes.map((n) => n.content),
    EXTRACTIVE_MAX_CHARS,
  ).chosen;
  const lines = picked.map((i) => `${all[i]} ${citation(nodes[owner[i]!]!.id)}`);
  return { text: lines.join('\n'), sourceIds: [...new Set(picked.map((i) => nodes[owner[i]!]!.id))] };
}

/** The sources a sampling prompt can carry, oldest first, within SAMPLING_MAX_CHARS. */
export function samplingPrompt(nodes: readonly NodeRecord[]): { prompt: string; sourceIds: string[] } {
  const parts: string[] = [];
  const ids: string[] = [];
  let used = 0;
  for (const n of nodes) {
    const part = `${citation(n.id)} (${new Date(n.created_at).toISOString()}): ${n.content.trim()}`;
    if (ids.length > 0 && used + part.length > SAMPLING_MAX_CHARS) break;
    parts.push(part);
    ids.push(n.id);
    used += part.length;
  }
  return {
    prompt: `Summarize these memories, oldest first. Keep each fact once and cite the [node_…] tag of each fact's memory.\n\n${parts.join('\n\n')}`,
    sourceIds: ids,
  };
}

/** Summaries of a time range: selection, the extractive path, and the opt-in stored summary. */
export async function performSummary(
  deps: { db: Db },
  req: SummaryRequest,
  report: (phase: string, done: number) => Promise<void> = async () => {},
): Promise<{ result: SummaryResult; stored: NodeRecord | null }> {
  const nodes = await liveNodesById(deps.db, req.source_ids);
  const byId = new Map(nodes.map((n) => [n.id, n]));
  const ordered = req.source_ids.flatMap((id) => byId.get(id) ?? []);
  await report('sources loaded', 1);
  const { text, sourceIds } = req.sampled ? { text: req.sampled.text, sourceIds: req.sampled.source_ids } : citedExtract(ordered);
  await report('summary written', 2);
  let stored: NodeRecord | null = null;
  let txId: number | null = null;
  if (req.store && text.length > 0) {
    const committed = await writeTransaction(deps.db, 'summarize', { actor: req.actor, rationale: 'summarize (store: true)' }, async (tx, log) => {
      const node = await insertNode(tx, {
        ...newNode({ kind: SUMMARY_KIND, project_id: req.project_id, content: text }),
        topic: `Summary ${req.time_range.start ?? '…'} – ${req.time_range.end ?? '…'}`,
        tags: req.tags,
        metadata: { summary: { method: req.sampled ? 'sampling' : 'extractive', model: req.sampled?.model ?? null, time_range: req.time_range, source_ids: sourceIds } },
      });
      log({ entity: 'node', entityId: node.id, before: null, after: image(node) });
      for (const dst of sourceIds) {
        const edge = await insertEdge(tx, {
          id: newId(),
          src: node.id,
          dst,
          edge_type: 'Relational',
          predicate: SUMMARIZES,
          weight: 1,
          confidence: 1,
          metadata: {},
          valid_from: null,
          valid_to: null,
        });
        log({ entity: 'edge', entityId: edge.id, before: null, after: image(edge) });
      }
      return node;
    });
    stored = committed.result;
    txId = committed.txId;
  }
  await report('stored', 3);
  return {
    stored,
    result: {
      summary: text,
      source_memory_ids: sourceIds,
      method: req.sampled ? 'sampling' : 'extractive',
      model: req.sampled?.model ?? null,
      sources_read: ordered.length,
      stored_id: stored?.id ?? null,
      tx_id: txId,
    },
  };
}

/** Large ranges: the summary (and its stored memory, embedded before the job ends) with progress. */
export const summaryJob = defineJob({
  type: 'summaries.summarize',
  payload: summaryPayload,
  progress: summaryProgress,
  result: summaryResult,
  attempts: 1,
  async handler(payload, ctx: JobHandlerContext<z.input<typeof summaryProgress>, { db: Db; embedder: Embedder }>) {
    const total = 4;
    const { result, stored } = await performSummary(ctx.deps, payload, (phase, done) => ctx.report({ done, total, phase }));
    if (stored) await embedJob.handler({ nids: [stored.nid] }, { ...ctx, report: async () => {} });
    await ctx.report({ done: total, total, phase: 'done' });
    return result;
  },
});

export class SummaryService {
  constructor(private readonly deps: { db: Db; embedding: Pick<EmbeddingScheduler, 'schedule'> | null }) {}

  /** The live memories of the range, oldest first (named entities and earlier summaries left out). */
  async select(scope: SummaryScope): Promise<NodeRecord[]> {
    return matchingNodesInTimeOrder(
      this.deps.db,
      { projectId: scope.projectId, tags: scope.tags, createdFrom: scope.start, createdTo: scope.end, excludeKinds: ['entity', SUMMARY_KIND] },
      SUMMARY_MAX_SOURCES,
    );
  }

  /** After summaryJob: waits until this process's indexes hold the stored summary (as merge does). */
  async settle(storedId: string | null): Promise<void> {
    if (!storedId) return;
    const [node] = await liveNodesById(this.deps.db, [storedId]);
    if (node) await this.deps.embedding?.schedule([node]);
  }

  async summarize(req: SummaryRequest): Promise<SummaryResult> {
    const { result, stored } = await performSummary(this.deps, req);
    if (stored) await this.deps.embedding?.schedule([stored]);
    return result;
  }
}
