import * as z from 'zod';
import { AppError, toErrorPayload, type ToolErrorPayload } from '../../errors.js';
import type { Logger } from '../../log.js';
import type { ToolContext } from './context.js';
import { takesIdempotencyKey, type AnyTool } from './define.js';
import { RATIONALE_SCHEMAS } from './fields.js';
import { callSchema, FORMATS, normalizeArgs, type Format } from './input.js';
import { isNeedsInput, needsInputSchema, renderNeedsInput, type NeedsInputPayload } from './payloads.js';
import { jsonSchemaOf, publishedInputSchema } from './schema.js';
import { acceptedJobLinks } from './jobs.js';

/** A tool with its call schema and published schemas built once per process. */
export interface CompiledTool {
  def: AnyTool;
  call: z.ZodObject;
  /** What the handler's result is checked against: the output, or needsInput when allowed. */
  result: z.ZodType;
  inputSchema: Record<string, unknown>;
  /** The payload kinds the tool answers with; the full schemas are resources (knowledge://schemas/{kind}). */
  kinds: string[];
}

export function compileTool(def: AnyTool): CompiledTool {
  const call = callSchema(def.input, { idempotencyKey: takesIdempotencyKey(def) });
  const kind = (def.output.shape as { kind: z.ZodLiteral<string> }).kind.value;
  return {
    def,
    call,
    result: def.mayNeedInput ? z.union([def.output, needsInputSchema]) : def.output,
    inputSchema: publishedInputSchema(call),
    kinds: def.mayNeedInput ? [kind, 'needsInput:v1'] : [kind],
  };
}

/** The full JSON Schema of a tool's output (the schemas resource and the docs read it). */
export function outputJsonSchema(def: AnyTool): Record<string, unknown> {
  return jsonSchemaOf(def.output, 'output');
}

export type Invoked =
  | { status: 'ok'; format: Format; payload: Record<string, unknown>; markdown: string; resourceLinks: string[] }
  | { status: 'needsInput'; format: Format; payload: NeedsInputPayload; markdown: string }
  | { status: 'error'; format: Format; error: ToolErrorPayload };

/** Zod issues as `path: message` lines, with the allowed values or bounds zod reports. */
export function invalidParams(error: z.ZodError, toolName: string, allowedKeys?: readonly string[]): AppError {
  const issues = error.issues.map((issue) => {
    const path = issue.path.length ? issue.path.join('.') : '(arguments)';
    const extra: Record<string, unknown> = {};
    if ('values' in issue && Array.isArray(issue.values)) extra.allowed = issue.values;
    if ('keys' in issue && Array.isArray(issue.keys)) {
      extra.keys = issue.keys;
      if (allowedKeys) extra.allowed = allowedKeys;
    }
    if ('minimum' in issue) extra.minimum = Number(issue.minimum);
    if ('maximum' in issue) extra.maximum = Number(issue.maximum);
    // A field not given at all: the REST gateway answers REQUIRED_FIELD_MISSING for these (seed 002 §3.2).
    if (issue.code === 'invalid_type' && issue.message.endsWith('received undefined')) return { path, message: `Required field '${path}' is missing`, missing: true, ...extra };
    return { path, message: issue.message, ...extra };
  });
  const summary = issues.map((i) => `${i.path}: ${i.message}${'keys' in i && 'allowed' in i ? ` (allowed: ${(i.allowed as string[]).join(', ')})` : ''}`).join('; ');
  return new AppError('INVALID_PARAMS', `Invalid arguments for ${toolName}: ${summary}`, { issues });
}

/** MISSING_RATIONALE when a required rationale (fields.ts `rationale()`) is absent or blank. */
function missingRationale(tool: CompiledTool, args: Record<string, unknown>): AppError | null {
  for (const [field, schema] of Object.entries(tool.call.shape)) {
    if (!RATIONALE_SCHEMAS.has(schema as z.ZodType)) continue;
    const value = args[field];
    if (value === undefined || value === null || (typeof value === 'string' && value.trim() === '')) {
      return new AppError('MISSING_RATIONALE', `${tool.def.name} requires a rationale: say why in "${field}" (10–1,000 characters).`, {
        issues: [{ path: field, message: 'rationale is required', minimum: 10, maximum: 1_000 }],
      });
    }
  }
  return null;
}

/** The format a call asked for, read leniently so that even a rejected call answers in it. */
function requestedFormat(raw: unknown): Format {
  const f = typeof raw === 'object' && raw !== null ? (raw as { format?: unknown }).format : undefined;
  return (FORMATS as readonly unknown[]).includes(f) ? (f as Format) : 'markdown';
}

/**
 * The whole tool-call pipeline, for every transport: normalise aliases and coercions,
 * validate, run the handler, check the result against its schema, render. Never throws: a
 * failure is an `error` with a registry payload.
 */
export async function invoke(tool: CompiledTool, rawArgs: unknown, ctx: ToolContext, logger: Logger): Promise<Invoked> {
  const name = tool.def.name;
  let format = requestedFormat(rawArgs);
  const logContext = { tool: name, actor: ctx.actor };
  try {
    if (typeof rawArgs !== 'object' || rawArgs === null || Array.isArray(rawArgs)) {
      throw new AppError('INVALID_PARAMS', `Invalid arguments for ${name}: arguments must be a JSON object.`, {
        issues: [{ path: '(arguments)', message: 'expected an object' }],
      });
    }
    const normalized = normalizeArgs(rawArgs, tool.call.shape) as Record<string, unknown>;
    const parsed = tool.call.safeParse(normalized);
    if (!parsed.success) throw missingRationale(tool, normalized) ?? invalidParams(parsed.error, name, Object.keys(tool.call.shape));
    const { format: chosen, idempotency_key: key, ...args } = parsed.data as Record<string, unknown> & { format: Format; idempotency_key?: string };
    format = chosen;
    const callCtx = { ...ctx, format };
    // What was stored before this call is found by it, although `store` answers before its
    // vectors; what the retrievals before it logged is read by it, although they log after answering.
    const vectors = tool.def.waitsFor?.storeVectors === false ? null : ctx.services.pendingVectors.settled();
    if (vectors) await vectors;
    const logged = tool.def.waitsFor?.retrievalLog === false ? null : ctx.services.retrievalLog.settled();
    if (logged) await logged;
    const run = async () => checkedResult(tool, await tool.def.handler(args, callCtx), logger, logContext);
    const { payload, replayed } = key ? await keyed(tool, key, args, callCtx, run) : { payload: await run(), replayed: false };
    if (isNeedsInput(payload)) return { status: 'needsInput', format, payload, markdown: renderNeedsInput(payload) };
    const markdown = tool.def.render(payload) + (replayed && !('replayed' in tool.def.output.shape) ? `\n\n${REPLAYED_NOTE}` : '');
    return { status: 'ok', format, payload, markdown, resourceLinks: [...(tool.def.resourceLinks?.(args, payload) ?? []), ...acceptedJobLinks(payload)] };
  } catch (err) {
    return { status: 'error', format, error: toErrorPayload(err, logger, logContext) };
  }
}

const REPLAYED_NOTE = 'Already done by an earlier call with this idempotency_key: this is its answer, and nothing was changed now.';

/** The handler's result, checked against the tool's output schema. */
function checkedResult(tool: CompiledTool, result: unknown, logger: Logger, logContext: Record<string, unknown>): Record<string, unknown> {
  const checked = tool.result.safeParse(result);
  if (!checked.success) {
    // A result that breaks its own schema is our bug: log it, and do not send it.
    logger.error({ ...logContext, issues: checked.error.issues }, 'tool output failed its schema');
    throw new Error(`output of ${tool.def.name} failed its schema`);
  }
  return checked.data as Record<string, unknown>;
}

/**
 * A call with an idempotency_key: the first one runs, a retry answers the first result (marked
 * `replayed` when the output has that field) and writes nothing (services/idempotency.ts).
 */
async function keyed(tool: CompiledTool, key: string, args: Record<string, unknown>, ctx: ToolContext, run: () => Promise<Record<string, unknown>>) {
  const def = tool.def;
  const outcome = await ctx.services.idempotency.run(
    {
      tool: tool.def.name,
      key,
      args,
      rerunnable: tool.def.annotations.idempotentHint === true,
      rebuild: def.replay ? async (write) => (await def.replay!(write, ctx)) ?? null : undefined,
    },
    run,
    (payload) => !isNeedsInput(payload),
  );
  if (!outcome.replayed) return outcome;
  const payload = tool.result.parse(outcome.payload) as Record<string, unknown>;
  return { payload: 'replayed' in tool.def.output.shape ? { ...payload, replayed: true } : payload, replayed: true };
}
