import { queryTool } from './memory/query.js';
import { storeTool } from './memory/store.js';

/** Every tool, in tools/list order. */
export const ALL_TOOLS = [storeTool, queryTool] as const;
