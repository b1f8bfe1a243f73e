import { queryTool } from './query.js';
import { storeTool } from './store.js';

export const MEMORY_TOOLS = [storeTool, queryTool] as const;
