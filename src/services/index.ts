import type { ChangeFeed } from './change-feed.js';
import type { CurationService } from './curation.js';
import type { LineageService } from './lineage.js';
import type { MergeService } from './merge.js';
import type { SummaryService } from './summaries.js';
import type { EntriesService } from './entries.js';
import type { GraphService } from './graph.js';
import type { HealthService } from './health.js';
import type { HistoryService } from './history.js';
import type { IngestService } from './ingest.js';
import type { ExportService } from './export.js';
import type { ImportService } from './import.js';
import type { MemoryService } from './memory.js';
import type { ProjectReports } from './project-reports.js';
import type { ProjectService } from './projects.js';
import type { NavigationService } from './navigation/navigation.js';
import type { ReadService } from './reads.js';
import type { RetrievalLog } from './retrieval-log.js';
import type { ResourceReadService } from './resource-reads.js';
import type { PendingVectors } from './pending-vectors.js';
import type { SearchService } from './search.js';
import type { SignalsService } from './signals/signals.js';
import type { TeleologyService } from './teleology.js';
import type { MetacognitionService } from './metacognition/service.js';
import type { AdversarialService } from './diagnostics/adversarial.js';
import type { HomeostasisService } from './diagnostics/homeostasis.js';
import type { ManifestService } from './diagnostics/manifest.js';
import type { RetrievalDiagnostics } from './diagnostics/retrieval.js';
import type { CollectionsService } from './collections.js';
import type { DreamService } from './dreams/dreams.js';
import type { WorkspaceService } from './cognition/workspace.js';
import type { EgoService } from './cognition/ego.js';
import type { AutonomyService } from './cognition/autonomy.js';
import type { MetaUtlService } from './cognition/meta-utl.js';
import type { IdempotencyService } from './idempotency.js';
import type { JobRecordsService } from './job-records.js';
import type { TeleologyQueries } from './teleology-queries.js';
import type { CausalInference } from './causal-inference.js';

export type { JobRunner } from '../jobs/runner.js';
export type { JobProgress } from '../jobs/queue.js';

/**
 * The one list of services. Built once by the composition root (src/app.ts); tools, resources
 * and prompts receive it, never the App, so they see the domain and not its infrastructure.
 */
export interface Services {
  memory: MemoryService;
  entries: EntriesService;
  ingest: IngestService;
  graph: GraphService;
  history: HistoryService;
  search: SearchService;
  /** Stores that answered before their vectors reached this process's indexes; tool calls wait for them (invoke.ts). */
  pendingVectors: PendingVectors;
  reads: ReadService;
  /** Snapshot reads behind the resources (as of a transaction, keyset-paged) and completions. */
  resourceReads: ResourceReadService;
  /** Committed transactions from any process on this database, in tx_id order. */
  changes: ChangeFeed;
  health: HealthService;
  /** Annotate, boost, forget, restore_from_hash and tombstones (seed 001 §3.2). */
  curation: CurationService;
  merge: MergeService;
  /** A node's history from the transaction log. */
  lineage: LineageService;
  /** seed 002's project-knowledge model (phases, works, paths, tides, patterns) as graph nodes. */
  projects: ProjectService;
  /** Search, tags, structure checks and export over that model. */
  projectReports: ProjectReports;
  /** Bulk import of records in batches (context-graph import). */
  bulkImport: ImportService;
  /** Keyset pages of memories, edges and the log (context-graph export). */
  bulkExport: ExportService;
  /** Neighbourhoods, causal paths, recent context and entailment cones (toolset `navigation`). */
  navigation: NavigationService;
  /** Teleological fingerprints, UTL, weight profiles and the synergy matrix (issue 11). */
  teleology: TeleologyService;
  /** Summaries of a time range (toolset `summaries`). */
  summaries: SummaryService;
  /** What search and query returned, for the signals that learn from use (db/075). */
  retrievalLog: RetrievalLog;
  /** Plans, critiques, instructions, logs, clarifying questions and Johari views (seed 001 §3.4). */
  metacognition: MetacognitionService;
  /** Importance distribution, semantic cancer and quarantine (homeostatic_status, quarantine_node; guards boost_importance). */
  homeostasis: HomeostasisService;
  /** check_adversarial and its project scan job. */
  adversarial: AdversarialService;
  /** test_recall_accuracy and debug_compare_retrieval over the live search. */
  retrievalDiagnostics: RetrievalDiagnostics;
  /** The user manifest pinned as memories (reload_manifest). */
  manifest: ManifestService;
  /** Collections (namespaces inside a project): declare, list, metrics, check a name (toolset `collections`). */
  collections: CollectionsService;
  /** Dreams (NREM, REM), consolidation, amortized shortcuts and pruning candidates (toolset `dreams`). */
  dreams: DreamService;
  /** Global workspace: activation, broadcast, integration measures (toolset `workspace`). */
  workspace: WorkspaceService;
  /** The store's self-model: goals, dominant topics, identity continuity. */
  ego: EgoService;
  /** North star, alignment drift, drift correction, sub-goals, scheduled passes (toolset `autonomy`). */
  autonomy: AutonomyService;
  /** How well L predicted retrieval, and the λ refit. */
  metaUtl: MetaUtlService;
  /** Idempotency keys of mutating tool calls (the kit's invoke() uses it; tools never do). */
  idempotency: IdempotencyService;
  /** Kuramoto sync, neuromodulation, threshold calibration and the feedback they learn from (issue 12). */
  signals: SignalsService;
  /** Job records readable after a job ends (knowledge://jobs, GET /api/jobs), on either queue backend. */
  jobRecords: JobRecordsService;
  /** ΔS/ΔC of one memory against another, purpose-aligned search, weighted fusion (issue 11). */
  teleologyQueries: TeleologyQueries;
  /** omni_infer and query_causal over Causal edges and E5 (issue 11). */
  causalInference: CausalInference;
}
