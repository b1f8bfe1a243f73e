import { deleteTool } from './delete.js';
import { updateTool } from './update.js';

export const ENTRY_TOOLS = [updateTool, deleteTool] as const;
