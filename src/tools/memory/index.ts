import { pushTool } from './push.js';
import { queryTool } from './query.js';
import { searchTool } from './search.js';
import { storeTool } from './store.js';

export const MEMORY_TOOLS = [storeTool, queryTool, searchTool, pushTool] as const;
