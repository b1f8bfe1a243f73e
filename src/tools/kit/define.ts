import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type * as z from 'zod';
import type { ToolContext } from './context.js';
import type { NeedsInputPayload } from './payloads.js';

export type { ToolContext };

/**
 * A tool is declared once: its schemas drive validation, tools/list, the docs and the output
 * check; its handler returns the structured payload (or a needsInput payload) and `render`
 * turns that payload into markdown for people.
 *
 * `input` is a strict object without `format`: the kit adds `format` to every tool and applies
 * the aliases and coercions its fields declare (./input.ts) before validation.
 */
export interface ToolDef<I extends z.ZodType<Record<string, unknown>> = z.ZodObject, O extends z.ZodObject = z.ZodObject> {
  name: string;
  title: string;
  /** What it does, when to use it, and two examples (happy path, advanced). */
  description: string;
  annotations: ToolAnnotations;
  input: I;
  /** Must have a `kind` literal such as `entries:v1`. */
  output: O;
  /** True when the handler may answer with a needsInput:v1 payload instead of `output`. */
  mayNeedInput?: boolean;
  handler(args: z.output<I>, ctx: ToolContext): Promise<z.output<O> | NeedsInputPayload>;
  /** Markdown for people, with the seed-003 contract markers; the structured payload stays the contract. */
  render(result: z.output<O>): string;
  /**
   * The resources the result is made of (seed 000), sent as resource links: each URI must read
   * back exactly those items with resources/read.
   */
  resourceLinks?(args: z.output<I>, result: z.output<O>): string[];
  /**
   * false for a mutating tool that changes only the caller's session (no transaction to record
   * a key with): it takes no `idempotency_key`. Every other mutating tool does (invoke.ts).
   */
  idempotencyKey?: false;
  /**
   * Rebuilds the answer of the keyed call that made `write`, for a retry whose first answer was
   * lost in a crash between commit and reply; without it, such a retry answers ALREADY_APPLIED
   * (or, for an idempotent tool, runs again).
   */
  replay?(write: { txId: number; entityId: string }, ctx: ToolContext): Promise<z.output<O> | null>;
  /**
   * The background writes of earlier calls this tool starts after (invoke.ts); by default all of
   * them. `storeVectors: false` for a tool whose answer never depends on vectors still on their
   * way to the indexes (`store`: a burst of stores does not wait for each other's vectors);
   * `retrievalLog: false` for one that never reads the retrieval log or the accesses it records
   * (search and query write it; the next of them need not wait for the last one's row).
   */
  waitsFor?: { storeVectors?: false; retrievalLog?: false };
}

/** A tool of any schemas, as lists hold them (method parameters are bivariant, so every tool fits). */
export type AnyTool = ToolDef<z.ZodObject, z.ZodObject>;

export function defineTool<I extends z.ZodType<Record<string, unknown>>, O extends z.ZodObject>(def: ToolDef<I, O>): ToolDef<I, O> {
  return def;
}

/** A named group of tools, switched on or off per server (`--toolsets`) and per session. */
export interface Toolset {
  name: string;
  /** One line: what the family is for, shown by the `toolsets` tool. */
  description: string;
  /** Listed without being asked for. */
  enabledByDefault: boolean;
  tools: readonly AnyTool[];
}

export function defineToolset(set: Toolset): Toolset {
  return set;
}

/** Annotation presets: every tool is one of these, so the hints stay consistent. */
export const READ_ONLY: ToolAnnotations = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false };
export const WRITE: ToolAnnotations = { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false };
export const IDEMPOTENT_WRITE: ToolAnnotations = { ...WRITE, idempotentHint: true };
export const DESTRUCTIVE: ToolAnnotations = { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: false };

/** Mutating tools take an optional `idempotency_key` (one definition, added by the kit). */
export function takesIdempotencyKey(def: Pick<AnyTool, 'annotations' | 'idempotencyKey'>): boolean {
  return def.annotations.readOnlyHint === false && def.idempotencyKey !== false;
}
