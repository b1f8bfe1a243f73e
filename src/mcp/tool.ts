import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod';
import type { App } from '../app.js';

export type Toolset = 'memory' | 'graph' | 'history' | 'curation' | 'navigation' | 'admin';

export interface ToolContext {
  app: App;
  /** MCP session id, or a transport label (stdio) — recorded as the actor of writes. */
  actor: string;
  signal: AbortSignal;
  /** Sends a progress notification when the client asked for progress; a no-op otherwise. */
  progress(progress: number, total?: number, message?: string): Promise<void>;
}

/**
 * A tool is declared once: its schemas drive validation, tools/list, the docs and the output
 * check; its handler returns the structured payload and the presenter renders it.
 */
export interface ToolDef<I extends z.ZodType = z.ZodType, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** What it does, when to use it, and two examples (happy path, advanced). */
  description: string;
  toolset: Toolset;
  annotations: ToolAnnotations;
  input: I;
  output: O;
  handler(args: z.output<I>, ctx: ToolContext): Promise<z.output<O>>;
  /** Markdown for people; the structured payload stays the contract. */
  render(result: z.output<O>): string;
}

export function defineTool<I extends z.ZodType, O extends z.ZodObject>(def: ToolDef<I, O>): ToolDef<I, O> {
  return def;
}
