import { historyTool } from './history.js';
import { undoTool } from './undo.js';

export const HISTORY_TOOLS = [undoTool, historyTool] as const;
