import { toolsetsTool } from './admin/toolsets.js';
import { deleteTool } from './entries/delete.js';
import { updateTool } from './entries/update.js';
import { queryGraphTool } from './graph/query-graph.js';
import { relateTool } from './graph/relate.js';
import { historyTool } from './history/history.js';
import { undoTool } from './history/undo.js';
import { defineToolset, type AnyTool, type Toolset } from './kit/define.js';
import { pushTool } from './memory/push.js';
import { queryTool } from './memory/query.js';
import { searchTool } from './memory/search.js';
import { storeTool } from './memory/store.js';

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
];

/** Every tool, in tools/list order. */
export const ALL_TOOLS: readonly AnyTool[] = TOOLSETS.flatMap((s) => s.tools);

/** The toolset a tool belongs to. */
export const TOOLSET_OF: ReadonlyMap<string, string> = new Map(TOOLSETS.flatMap((s) => s.tools.map((t) => [t.name, s.name] as const)));

export const DEFAULT_TOOLSETS: readonly string[] = TOOLSETS.filter((s) => s.enabledByDefault).map((s) => s.name);
