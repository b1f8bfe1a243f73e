import * as z from 'zod';
import type { Embedder } from '../../embed/embedder.js';
import { defineJob, type JobHandlerContext } from '../../jobs/define.js';
import type { Db } from '../../store/db.js';
import { nodesByNid, type NodeRecord } from '../../store/nodes-repo.js';
import { countMemoriesOfProject, memoryNidsOfProject, vectorsOf } from '../../store/navigation-repo.js';
import type { NearestMemories } from '../navigation/nearest.js';
import { judgeCircular, type CircularVerdict } from './circular.js';
import { detectInjection, type InjectionVerdict } from './injection.js';
import {
  judgeMisalign,
  judgeOutlier,
  labelText,
  misalignModel,
  outlierModel,
  OUTLIER_SPACE,
  type MisalignModel,
  type MisalignVerdict,
  type OutlierModel,
  type OutlierVerdict,
} from './outliers.js';

/** check_adversarial's checks (seed 001 §3.5 REQ-MCP-P2-002). */
export const ADVERSARIAL_CHECKS = ['embedding_outlier', 'content_misalign', 'prompt_injection', 'circular_logic'] as const;
export type AdversarialCheck = (typeof ADVERSARIAL_CHECKS)[number];

export interface AdversarialReport {
  flagged: boolean;
  /** The checks that flagged the text. */
  flagged_by: AdversarialCheck[];
  embedding_outlier?: OutlierVerdict;
  prompt_injection?: InjectionVerdict;
  content_misalign?: MisalignVerdict;
  circular_logic?: CircularVerdict;
}

export interface AdversarialDeps {
  db: Db;
  embedder: Embedder;
  nearest: NearestMemories;
}

/** What a check needs from the project, built once per call or per scan. */
interface Models {
  outlier: OutlierModel | null;
  misalign: MisalignModel | null;
}

async function modelsFor(deps: AdversarialDeps, projectId: string, checks: ReadonlySet<AdversarialCheck>): Promise<Models> {
  return {
    outlier: checks.has('embedding_outlier') ? await outlierModel(deps.db, projectId) : null,
    misalign: checks.has('content_misalign') ? await misalignModel(deps.db, deps.embedder, projectId) : null,
  };
}

interface Subject {
  content: string;
  topic: string | null;
  tags: readonly string[];
  projectId: string;
  /** A stored memory checked in place: its own vector, and itself left out of its neighbours. */
  node: NodeRecord | null;
}

async function runChecks(deps: AdversarialDeps, models: Models, s: Subject, checks: ReadonlySet<AdversarialCheck>): Promise<AdversarialReport> {
  const report: AdversarialReport = { flagged: false, flagged_by: [] };
  if (checks.has('prompt_injection')) report.prompt_injection = detectInjection(s.content);
  if (models.outlier) {
    const stored = s.node ? (await vectorsOf(deps.db, OUTLIER_SPACE, [s.node.nid])).get(s.node.nid) : undefined;
    const vector = stored ?? (await deps.embedder.embed([s.topic ? `${s.topic}\n${s.content}` : s.content], [OUTLIER_SPACE])).get(OUTLIER_SPACE)?.[0];
    report.embedding_outlier = judgeOutlier(models.outlier, vector, s.node?.nid ?? null);
  }
  if (models.misalign) report.content_misalign = await judgeMisalign(deps.embedder, models.misalign, labelText(s.topic, s.tags), s.content);
  if (checks.has('circular_logic')) report.circular_logic = await judgeCircular(deps, s.content, s.projectId, s.node?.nid ?? null);
  report.flagged_by = ADVERSARIAL_CHECKS.filter((c) => report[c]?.flagged);
  report.flagged = report.flagged_by.length > 0;
  return report;
}

/** Checks one text against a project, as if it were about to be stored there. */
export async function checkContent(
  deps: AdversarialDeps,
  input: { content: string; projectId: string; topic?: string | null | undefined; tags?: readonly string[] | undefined; checks: readonly AdversarialCheck[] },
): Promise<AdversarialReport> {
  const checks = new Set(input.checks);
  const models = await modelsFor(deps, input.projectId, checks);
  return runChecks(deps, models, { content: input.content, topic: input.topic ?? null, tags: input.tags ?? [], projectId: input.projectId, node: null }, checks);
}

/** Flagged memories a scan answers with at most (the counts cover all). */
export const SCAN_MAX_FLAGGED = 200;
const SCAN_PAGE = 100;

const checkEnum = z.enum(ADVERSARIAL_CHECKS);
export const scanPayload = z.object({ project_id: z.string(), checks: z.array(checkEnum).min(1) });
const scanProgress = z.object({ done: z.number().int(), total: z.number().int(), phase: z.string() });
export const scanResult = z.object({
  project_id: z.string(),
  scanned: z.number().int(),
  flagged_count: z.number().int(),
  by_check: z.record(z.string(), z.number().int()),
  flagged: z.array(z.object({ id: z.string(), flagged_by: z.array(checkEnum), injection_score: z.number().nullable(), reasons: z.array(z.string()) })),
});
export type ScanResult = z.output<typeof scanResult>;

/**
 * Every live memory of a project through the checks, in pages, with progress. Reads only: what
 * it finds is reported; quarantine_node acts on it.
 */
export const adversarialScanJob = defineJob({
  type: 'diagnostics.adversarial-scan',
  payload: scanPayload,
  progress: scanProgress,
  result: scanResult,
  attempts: 1,
  async handler(payload, ctx: JobHandlerContext<z.input<typeof scanProgress>, AdversarialDeps>) {
    const deps = ctx.deps;
    const checks = new Set(payload.checks);
    const total = await countMemoriesOfProject(deps.db, payload.project_id);
    await ctx.report({ done: 0, total, phase: 'sampling the project' });
    const models = await modelsFor(deps, payload.project_id, checks);
    const out: ScanResult = { project_id: payload.project_id, scanned: 0, flagged_count: 0, by_check: Object.fromEntries(payload.checks.map((c) => [c, 0])), flagged: [] };
    for (let after = 0; ;) {
      if (ctx.signal.aborted) throw new Error('scan cancelled');
      const nids = await memoryNidsOfProject(deps.db, payload.project_id, after, SCAN_PAGE);
      if (nids.length === 0) break;
      after = nids[nids.length - 1]!;
      for (const node of await nodesByNid(deps.db, nids)) {
        if (node.deleted_at !== null) continue;
        const r = await runChecks(deps, models, { content: node.content, topic: node.topic, tags: node.tags, projectId: node.project_id, node }, checks);
        out.scanned++;
        if (!r.flagged) continue;
        out.flagged_count++;
        for (const c of r.flagged_by) out.by_check[c] = (out.by_check[c] ?? 0) + 1;
        if (out.flagged.length < SCAN_MAX_FLAGGED)
          out.flagged.push({
            id: node.id,
            flagged_by: r.flagged_by,
            injection_score: r.prompt_injection?.score ?? null,
            reasons: r.flagged_by.map((c) => (c === 'prompt_injection' ? r.prompt_injection!.findings.map((f) => f.signal).join(', ') : r[c]!.reason)),
          });
      }
      await ctx.report({ done: out.scanned, total, phase: `checked ${out.scanned} of ${total}` });
    }
    return out;
  },
});

/** check_adversarial and its project scan, for tools (the scan runs as adversarialScanJob). */
export class AdversarialService {
  constructor(private readonly deps: AdversarialDeps) {}

  check(input: Parameters<typeof checkContent>[1]): Promise<AdversarialReport> {
    return checkContent(this.deps, input);
  }

  scanJob(projectId: string, checks: readonly AdversarialCheck[]) {
    return { job: adversarialScanJob, payload: { project_id: projectId, checks: [...checks] } };
  }
}
