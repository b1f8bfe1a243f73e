import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { App } from '../app.js';

/** Prompts for ingesting memory, retrieving context and correcting stale facts (seed 000 §US-002-005). */
export function registerPrompts(_mcp: McpServer, _app: App): void {}
