import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod';
import type { App } from '../app.js';
import type { NeedsInputPayload } from './payloads.js';

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
 * check; its handler returns the structured payload (or a needsInput payload) and `render`
 * turns that payload into markdown for people.
 *
 * `input` is a strict object without `format`: the server adds `format` to every tool and
 * applies the shared aliases and coercions (src/mcp/input.ts) before validation.
 */
export interface ToolDef<I extends z.ZodObject = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** What it does, when to use it, and two examples (happy path, advanced). */
  description: string;
  toolset: Toolset;
  annotations: ToolAnnotations;
  input: I;
  /** Must have a `kind` literal such as `entries:v1`. */
  output: O;
  /** True when the handler may answer with a needsInput:v1 payload instead of `output`. */
  mayNeedInput?: boolean;
  handler(args: z.output<I>, ctx: ToolContext): Promise<z.output<O> | NeedsInputPayload>;
  /** Markdown for people, with the seed-003 contract markers; the structured payload stays the contract. */
  render(result: z.output<O>): string;
  /** URI of the embedded JSON resource block (seed 000), e.g. `knowledge://entries?topic=deploy`. */
  resourceUri?(args: z.output<I>, result: z.output<O>): string;
}

export function defineTool<I extends z.ZodObject, O extends z.ZodObject>(def: ToolDef<I, O>): ToolDef<I, O> {
  return def;
}
