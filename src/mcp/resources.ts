import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { App } from '../app.js';

/** Resources, templates, completions and subscriptions (seed 000 §US-002-003/004, seed 004). */
export function registerResources(_mcp: McpServer, _app: App): void {}
