import { toolsetsTool } from './admin/toolsets.js';
import { annotateNodeTool } from './curation/annotate-node.js';
import { boostImportanceTool } from './curation/boost-importance.js';
import { forgetConceptTool } from './curation/forget-concept.js';
import { mergeConceptsTool } from './curation/merge-concepts.js';
import { restoreFromHashTool } from './curation/restore-from-hash.js';
import { searchTombstonesTool } from './diagnostic/search-tombstones.js';
import { homeostaticStatusTool } from './diagnostic/homeostatic-status.js';
import { quarantineNodeTool } from './diagnostic/quarantine-node.js';
import { checkAdversarialTool } from './diagnostic/check-adversarial.js';
import { scanAdversarialTool } from './diagnostic/scan-adversarial.js';
import { testRecallAccuracyTool } from './diagnostic/test-recall-accuracy.js';
import { debugCompareRetrievalTool } from './diagnostic/debug-compare-retrieval.js';
import { reloadManifestTool } from './admin/reload-manifest.js';
import { temporaryScratchpadTool } from './admin/temporary-scratchpad.js';
import { getNodeLineageTool } from './metacognitive/get-node-lineage.js';
import { hydrateCitationTool } from './metacognitive/hydrate-citation.js';
import { deleteTool } from './entries/delete.js';
import { updateTool } from './entries/update.js';
import { queryGraphTool } from './graph/query-graph.js';
import { relateTool } from './graph/relate.js';
import { historyTool } from './history/history.js';
import { undoTool } from './history/undo.js';
import { exportPageTool } from './bulk/export-page.js';
import { importRecordsTool } from './bulk/import-records.js';
import { defineToolset, type AnyTool, type Toolset } from './kit/define.js';
import { pushTool } from './memory/push.js';
import { queryTool } from './memory/query.js';
import { searchTool } from './memory/search.js';
import { storeTool } from './memory/store.js';
import { getPatternTool } from './patterns/get-pattern.js';
import { searchPatternsTool } from './patterns/search-patterns.js';
import { FAMILY_TOOLS } from './projects/families.js';
import { pathAddWorksTool, tideCompleteTool, tideUpdateExecutionTool } from './projects/operations.js';
import { patternSearchTool, searchByTagsTool, searchHybridTool, searchSemanticTool } from './projects/search.js';
import { exportGraphTool, healthCheckTool, validateStructureTool } from './projects/utility.js';
import { buildEdgesTool } from './navigation/build-edges.js';
import { entailmentQueryTool } from './navigation/entailment-query.js';
import { findCausalPathTool } from './navigation/find-causal-path.js';
import { getNeighborhoodTool } from './navigation/get-neighborhood.js';
import { getRecentContextTool } from './navigation/get-recent-context.js';
import { computeTeleologicalVectorTool } from './teleology/compute-teleological-vector.js';
import { manageTeleologicalProfileTool } from './teleology/manage-teleological-profile.js';
import { searchGraphTool } from './teleology/search-graph.js';
import { updateSynergyMatrixTool } from './teleology/update-synergy-matrix.js';
import { utlStatusTool } from './teleology/utl-status.js';
import { getGraphManifestTool } from './teleology/get-graph-manifest.js';
import { getMemeticStatusTool } from './teleology/get-memetic-status.js';
import { summarizeTool } from './summaries/summarize.js';
import { reflectOnMemoryTool } from './metacognitive/reflect-on-memory.js';
import { generateSearchPlanTool } from './metacognitive/generate-search-plan.js';
import { critiqueContextTool } from './metacognitive/critique-context.js';
import { getSystemInstructionsTool } from './metacognitive/get-system-instructions.js';
import { getSystemLogsTool } from './metacognitive/get-system-logs.js';
import { epistemicActionTool } from './metacognitive/epistemic-action.js';
import { getJohariClassificationTool } from './metacognitive/get-johari-classification.js';
import { getCollectionsTool } from './collections/get-collections.js';
import { newCollectionTool } from './collections/new-collection.js';
import { metricsTool } from './collections/metrics.js';
import { abortDreamTool } from './dreams/abort-dream.js';
import { getAmortizedShortcutsTool } from './dreams/get-amortized-shortcuts.js';
import { getDreamStatusTool } from './dreams/get-dream-status.js';
import { getPruningCandidatesTool } from './dreams/get-pruning-candidates.js';
import { triggerConsolidationTool } from './dreams/trigger-consolidation.js';
import { triggerDreamTool } from './dreams/trigger-dream.js';
import { getWorkspaceStatusTool } from './workspace/get-workspace-status.js';
import { triggerWorkspaceBroadcastTool } from './workspace/trigger-workspace-broadcast.js';
import { getConsciousnessStateTool } from './workspace/get-consciousness-state.js';
import { getEgoStateTool } from './workspace/get-ego-state.js';
import { autoBootstrapNorthStarTool } from './autonomy/auto-bootstrap-north-star.js';
import { getAlignmentDriftTool } from './autonomy/get-alignment-drift.js';
import { triggerDriftCorrectionTool } from './autonomy/trigger-drift-correction.js';
import { discoverSubGoalsTool } from './autonomy/discover-sub-goals.js';
import { getAutonomousStatusTool } from './autonomy/get-autonomous-status.js';
import { getMetaLearningStatusTool } from './autonomy/get-meta-learning-status.js';
import { triggerLambdaRecalibrationTool } from './autonomy/trigger-lambda-recalibration.js';
import { getMetaLearningLogTool } from './autonomy/get-meta-learning-log.js';
import { adjustCouplingTool } from './signals/adjust-coupling.js';
import { getCalibrationMetricsTool, getThresholdStatusTool, triggerRecalibrationTool } from './signals/calibration.js';
import { getKuramotoSyncTool } from './signals/get-kuramoto-sync.js';
import { adjustNeuromodulatorTool, getNeuromodulationStateTool, getNeuromodulationTool } from './signals/neuromodulation.js';
import { getSteeringFeedbackTool, recordFeedbackTool } from './signals/steering.js';
import { injectContextTool } from './context/inject-context.js';
import { storeMemoryTool } from './context/store-memory.js';
import { computeDeltaScTool, SEED_DELTA_SC_NAME } from './teleology/compute-delta-sc.js';
import { omniInferTool } from './causal/omni-infer.js';
import { queryCausalTool } from './causal/query-causal.js';
import { searchTeleologicalTool } from './teleology/search-teleological.js';
import { fuseEmbeddingsTool } from './teleology/fuse-embeddings.js';

/**
 * The one list of toolsets, in tools/list order. The default ones stay small enough for an
 * agent's context; the others are one `toolsets {"enable": [...]}` call (or `--toolsets`) away.
 */
export const TOOLSETS: readonly Toolset[] = [
  defineToolset({
    name: 'core',
    description: 'Remember, find, correct, forget and undo memories.',
    enabledByDefault: true,
    tools: [storeTool, searchTool, queryTool, updateTool, deleteTool, undoTool, toolsetsTool],
  }),
  defineToolset({ name: 'ingest', description: 'Index long documents in chunks, deduplicated.', enabledByDefault: false, tools: [pushTool] }),
  defineToolset({ name: 'graph', description: 'Relate entries and entities as triples and walk the graph.', enabledByDefault: false, tools: [relateTool, queryGraphTool] }),
  defineToolset({ name: 'history', description: 'Browse the transaction log.', enabledByDefault: false, tools: [historyTool] }),
  defineToolset({
    name: 'curation',
    description: 'Merge, annotate, boost, forget and restore memories, each reversible by hash.',
    enabledByDefault: false,
    tools: [mergeConceptsTool, annotateNodeTool, boostImportanceTool, forgetConceptTool, restoreFromHashTool],
  }),
  defineToolset({
    name: 'metacognitive',
    description: 'Expand citations, trace lineage, plan and critique memory use, ask clarifying questions, read logs and Johari views.',
    enabledByDefault: false,
    tools: [
      hydrateCitationTool,
      getNodeLineageTool,
      reflectOnMemoryTool,
      generateSearchPlanTool,
      critiqueContextTool,
      getSystemInstructionsTool,
      getSystemLogsTool,
      epistemicActionTool,
      getJohariClassificationTool,
    ],
  }),
  defineToolset({
    name: 'diagnostic',
    description: 'Audit tombstones, importance balance and semantic cancer, quarantine, adversarial content, and recall per query and per space.',
    enabledByDefault: false,
    tools: [
      searchTombstonesTool,
      homeostaticStatusTool,
      quarantineNodeTool,
      checkAdversarialTool,
      scanAdversarialTool,
      testRecallAccuracyTool,
      debugCompareRetrievalTool,
    ] as AnyTool[],
  }),
  defineToolset({
    name: 'projects',
    description: 'Seed 002 project knowledge: phases, works, paths, tides, patterns, their search, checks and export (also POST /api/tool).',
    enabledByDefault: false,
    tools: [
      ...FAMILY_TOOLS,
      pathAddWorksTool,
      tideUpdateExecutionTool,
      tideCompleteTool,
      patternSearchTool,
      searchSemanticTool,
      searchHybridTool,
      searchByTagsTool,
      healthCheckTool,
      validateStructureTool,
      exportGraphTool,
    ] as AnyTool[],
  }),
  defineToolset({
    name: 'patterns',
    description: 'Seed 003 pattern search and details over the same patterns, with cards and needsInput.',
    enabledByDefault: false,
    tools: [searchPatternsTool, getPatternTool] as AnyTool[],
  }),
  defineToolset({
    name: 'bulk',
    description: 'Import and export in batches (what the import/export commands use).',
    enabledByDefault: false,
    tools: [importRecordsTool, exportPageTool],
  }),
  defineToolset({
    name: 'navigation',
    description: 'Walk typed, weighted edges: neighbourhoods, causal chains, entailment cones, recent context.',
    enabledByDefault: false,
    tools: [getNeighborhoodTool, findCausalPathTool, entailmentQueryTool, getRecentContextTool, buildEdgesTool],
  }),
  defineToolset({
    name: 'teleological',
    description: 'Search all 13 embedding spaces under weight profiles, read fingerprints, learn which spaces work together.',
    enabledByDefault: false,
    tools: [searchGraphTool, computeTeleologicalVectorTool, manageTeleologicalProfileTool, updateSynergyMatrixTool, searchTeleologicalTool, fuseEmbeddingsTool],
  }),
  defineToolset({
    name: 'utl',
    description: 'Surprise, coherence and learning magnitude of the stored memories.',
    enabledByDefault: false,
    tools: [utlStatusTool, computeDeltaScTool],
  }),
  defineToolset({
    name: 'manifest',
    description: 'What the store holds and how it is doing: counts, spaces, vital signs.',
    enabledByDefault: false,
    tools: [getGraphManifestTool, getMemeticStatusTool],
  }),
  defineToolset({
    name: 'summaries',
    description: "Summarize a time range, by the client's model or extractively, optionally stored as a memory.",
    enabledByDefault: false,
    tools: [summarizeTool],
  }),
  defineToolset({
    name: 'admin',
    description: 'Reload the user manifest as pinned memories; a per-session scratchpad that never reaches the graph.',
    enabledByDefault: false,
    tools: [reloadManifestTool, temporaryScratchpadTool] as AnyTool[],
  }),
  defineToolset({
    name: 'collections',
    description: 'Namespaces inside a project for push, store, search and query: create, list, ingestion metrics (seed 004).',
    enabledByDefault: false,
    tools: [getCollectionsTool, newCollectionTool, metricsTool],
  }),
  defineToolset({
    name: 'dreams',
    description: 'Dreams that learn from use (Hebbian edges, shortcuts, decay), consolidation of near-duplicates, pruning candidates.',
    enabledByDefault: false,
    tools: [triggerDreamTool, getDreamStatusTool, abortDreamTool, getAmortizedShortcutsTool, triggerConsolidationTool, getPruningCandidatesTool] as AnyTool[],
  }),
  defineToolset({
    name: 'workspace',
    description: "Global workspace: the memories competing for attention, broadcast to every session, integration and the store's self-model.",
    enabledByDefault: false,
    tools: [getWorkspaceStatusTool, triggerWorkspaceBroadcastTool, getConsciousnessStateTool, getEgoStateTool] as AnyTool[],
  }),
  defineToolset({
    name: 'autonomy',
    description: 'North star, alignment drift and its correction, sub-goals, autonomous runs, and how well UTL predicts retrieval (meta-UTL).',
    enabledByDefault: false,
    tools: [
      autoBootstrapNorthStarTool,
      getAlignmentDriftTool,
      triggerDriftCorrectionTool,
      discoverSubGoalsTool,
      getAutonomousStatusTool,
      getMetaLearningStatusTool,
      triggerLambdaRecalibrationTool,
      getMetaLearningLogTool,
    ] as AnyTool[],
  }),
  defineToolset({
    name: 'sync',
    description: 'Kuramoto sync of the 13 embedding spaces: which spaces agree with the fused ranking, the coupling K, the weights search uses.',
    enabledByDefault: false,
    tools: [getKuramotoSyncTool, adjustCouplingTool],
  }),
  defineToolset({
    name: 'neuromodulation',
    description: 'Dopamine, serotonin, noradrenaline, acetylcholine: levels that decay to baseline and set sync gain, weight spread, result diversity and calibration rate.',
    enabledByDefault: false,
    tools: [getNeuromodulationStateTool, getNeuromodulationTool, adjustNeuromodulatorTool],
  }),
  defineToolset({
    name: 'calibration',
    description: 'Thresholds calibrated from relevance feedback: status, ECE/MCE/Brier, recalibration.',
    enabledByDefault: false,
    tools: [getThresholdStatusTool, getCalibrationMetricsTool, triggerRecalibrationTool],
  }),
  defineToolset({
    name: 'steering',
    description: 'Tell the server which results were relevant, and audit what it learned and changed from that.',
    enabledByDefault: false,
    tools: [recordFeedbackTool, getSteeringFeedbackTool],
  }),
  defineToolset({
    name: 'context',
    description: "Seed 001's core pair: a prompt-ready context within a token budget, and stores that must say why.",
    enabledByDefault: false,
    tools: [injectContextTool, storeMemoryTool],
  }),
  defineToolset({
    name: 'causal',
    description: 'Reason over stored causality (Causal edges and the E5 cause/effect space): forward, backward, abduction, why-questions.',
    enabledByDefault: false,
    tools: [omniInferTool, queryCausalTool],
  }),
];

/** Every tool, in tools/list order. */
export const ALL_TOOLS: readonly AnyTool[] = TOOLSETS.flatMap((s) => s.tools);

/** The toolset a tool belongs to. */
export const TOOLSET_OF: ReadonlyMap<string, string> = new Map(TOOLSETS.flatMap((s) => s.tools.map((t) => [t.name, s.name] as const)));

export const DEFAULT_TOOLSETS: readonly string[] = TOOLSETS.filter((s) => s.enabledByDefault).map((s) => s.name);

/**
 * Tool names of the seeds that MCP does not allow (names are [A-Za-z0-9._-], SEP-986): accepted
 * at tools/call under the seed's spelling, listed under the compliant one.
 */
export const TOOL_NAME_ALIASES: ReadonlyMap<string, string> = new Map([[SEED_DELTA_SC_NAME, computeDeltaScTool.name]]);
