import { queryGraphTool } from './query-graph.js';
import { relateTool } from './relate.js';

export const GRAPH_TOOLS = [relateTool, queryGraphTool] as const;
