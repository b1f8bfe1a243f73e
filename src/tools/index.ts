import { ENTRY_TOOLS } from './entries/index.js';
import { GRAPH_TOOLS } from './graph/index.js';
import { HISTORY_TOOLS } from './history/index.js';
import { MEMORY_TOOLS } from './memory/index.js';

/** Every tool, in tools/list order; each family keeps its own list. */
export const ALL_TOOLS = [...MEMORY_TOOLS, ...ENTRY_TOOLS, ...GRAPH_TOOLS, ...HISTORY_TOOLS] as const;
