import { type McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ReadResourceRequestSchema, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../../app.js';
import { JSONRPC_INTERNAL_ERROR, JsonRpcError } from '../../errors.js';
import type { Services } from '../../services/index.js';
import { MIME, type ResourceDef } from './define.js';
import { RESOURCES } from './index.js';
import { pathMatcher, splitKnowledgeUri, type PathMatcher } from './uri.js';

/**
 * Interprets the resource list (seed 000 §US-002-003, seed 004): read-only, discoverable JSON
 * surfaces. Each resource's integer schema version is published at the top level as `version`
 * (seed 000 US-002-003; on the wire, for clients that read the listing as JSON) and in
 * `_meta.version` (the SDK client's Resource schema drops unknown top-level fields but keeps
 * `_meta`).
 */

/** A URI resolved to the resource it names. */
export interface ResolvedUri {
  resource: ResourceDef<unknown>;
  params: unknown;
  query: URLSearchParams;
}

const MATCHERS: ReadonlyArray<[ResourceDef<unknown>, PathMatcher[]]> = RESOURCES.map((r) => [r, [r.uri, r.template].filter((u): u is string => u !== undefined).map(pathMatcher)]);

/** The JSON-RPC error for a URI that names no resource of ours. */
export function resourceNotFound(uri: string): JsonRpcError {
  return JsonRpcError.of('RESOURCE_NOT_FOUND', `Resource not found: ${uri}. See resources/list and resources/templates/list.`, { uri });
}

/** The resource a knowledge:// URI names, with its parameters; null when none does. */
export function resolveUri(uri: string): ResolvedUri | null {
  const split = splitKnowledgeUri(uri);
  if (!split) return null;
  for (const [resource, matchers] of MATCHERS) {
    for (const match of matchers) {
      const vars = match(split.path);
      if (vars) return { resource, params: resource.params(vars, split.query), query: split.query };
    }
  }
  return null;
}

/** resources/read of any knowledge:// URI; throws JsonRpcError for unknown resources or bad parameters. */
export async function readResource(services: Services, uri: string): Promise<ReadResourceResult> {
  const resolved = resolveUri(uri);
  if (!resolved) throw resourceNotFound(uri);
  const body = await resolved.resource.read(resolved.params, { services, query: resolved.query });
  return { contents: [{ uri, mimeType: MIME, text: JSON.stringify(body) }] };
}

export function registerResources(mcp: McpServer, app: App): void {
  const services = app.services;
  const viaRouter = async (uri: URL) => readResource(services, uri.href);
  const meta = (r: ResourceDef<unknown>) => ({ title: r.title, description: r.description, mimeType: MIME, version: r.version, _meta: { version: r.version } });

  for (const r of RESOURCES.filter((r) => r.uri)) mcp.registerResource(r.name, r.uri!, meta(r), viaRouter);
  for (const r of RESOURCES.filter((r) => r.template)) {
    const complete = Object.fromEntries(Object.entries(r.complete ?? {}).map(([name, fn]) => [name, (value: string | undefined) => fn(value ?? '', { services })]));
    mcp.registerResource(r.name, new ResourceTemplate(r.template!, { list: undefined, complete }), meta(r), viaRouter);
  }

  // McpServer matches static URIs exactly and templates by regex, which neither query strings
  // (limit, cursor, filters) nor project ids holding '/' get through: route reads ourselves.
  mcp.server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    try {
      return await readResource(services, request.params.uri);
    } catch (err) {
      if (err instanceof JsonRpcError) throw err;
      // Internals (SQL, stack) stay in the log.
      app.logger.error({ err, uri: request.params.uri }, 'resource read failed');
      throw new JsonRpcError(JSONRPC_INTERNAL_ERROR, 'Reading the resource failed; try again.');
    }
  });
}
