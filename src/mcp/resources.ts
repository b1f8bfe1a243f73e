import { McpServer, ResourceTemplate } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ReadResourceRequestSchema, type ReadResourceResult } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../app.js';
import { JSONRPC_INTERNAL_ERROR, JSONRPC_INVALID_PARAMS, JsonRpcError } from '../errors.js';
import {
  entryIdsWithPrefix,
  nodeImagesAsOf,
  projectIdsWithPrefix,
  projectsAsOf,
  projectTagsAsOf,
  transactionsPage,
} from '../store/resource-repo.js';
import { imagesAsOf, latestTxId } from '../store/tx-log.js';
import { MEMORY_TYPES } from '../tools/kit/fields.js';
import { jsonSchemaOf } from '../tools/kit/schema.js';
import { PAYLOAD_SCHEMAS, schemaUri } from './contract.js';
import { registerSubscriptions } from './subscriptions.js';

/**
 * Resources (seed 000 §US-002-003, seed 004): read-only, discoverable JSON surfaces.
 *
 * Every read answers `{resource_uri, as_of_tx_id, items, next_cursor}`, except the payload
 * schemas (`knowledge://schemas/{kind}`), which answer the JSON Schema itself so that a client
 * can hand it to a validator as it comes. Paged resources take
 * `limit` and `cursor` as URI query parameters (`knowledge://entries?limit=20&cursor=…`). The
 * first page fixes `as_of_tx_id` (the newest transaction); the opaque cursor carries it with the
 * last key read, and later pages are rebuilt from the transaction log as of that transaction,
 * keyset by key: writes between pages neither repeat nor skip anything the first page could see.
 *
 * Each resource's integer schema version is published in its `_meta.version` (the SDK client's
 * Resource schema drops unknown top-level fields but keeps `_meta`).
 */

export const MIME = 'application/json';
const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;
const COMPLETION_LIMIT = 100;

/** A knowledge:// URI, parsed. Query parameters other than the filters are kept in `params`. */
export type ParsedUri =
  | { kind: 'entries'; projectId: string | null; topic: string | null }
  | { kind: 'entry'; id: string }
  | { kind: 'triples' }
  | { kind: 'transactions' }
  | { kind: 'memory-types' }
  | { kind: 'projects' }
  | { kind: 'project-tags'; projectId: string }
  | { kind: 'health' }
  | { kind: 'schemas' }
  | { kind: 'schema'; payloadKind: string };

export interface ParsedRequest {
  resource: ParsedUri;
  params: URLSearchParams;
}

function decode(segment: string): string | null {
  try {
    const s = decodeURIComponent(segment);
    return s.length > 0 ? s : null;
  } catch {
    return null;
  }
}

/** Parses a knowledge:// URI; null when it names no resource of ours. */
export function parseKnowledgeUri(uri: string): ParsedRequest | null {
  const m = /^knowledge:\/\/([^?#]*)(?:\?([^#]*))?$/i.exec(uri);
  if (!m) return null;
  const path = m[1]!.replace(/\/+$/, '');
  const params = new URLSearchParams(m[2] ?? '');
  const filter = (name: string) => {
    const v = params.get(name);
    return v === null || v.trim() === '' ? null : v.trim();
  };
  let resource: ParsedUri | null = null;
  let sub: RegExpExecArray | null;
  if (path === 'entries') resource = { kind: 'entries', projectId: filter('project_id'), topic: filter('topic') };
  else if ((sub = /^entries\/([^/]+)$/.exec(path))) {
    const id = decode(sub[1]!);
    resource = id ? { kind: 'entry', id } : null;
  } else if (path === 'graph/triples') resource = { kind: 'triples' };
  else if (path === 'history/transactions') resource = { kind: 'transactions' };
  else if (path === 'memory-types') resource = { kind: 'memory-types' };
  else if (path === 'projects') resource = { kind: 'projects' };
  else if ((sub = /^projects\/(.+)\/tags$/.exec(path))) {
    // Project ids may hold '/': accept them percent-encoded or as is.
    const projectId = decode(sub[1]!);
    resource = projectId ? { kind: 'project-tags', projectId } : null;
  } else if (path === 'health') resource = { kind: 'health' };
  else if (path === 'schemas') resource = { kind: 'schemas' };
  else if ((sub = /^schemas\/([^/]+)$/.exec(path))) {
    const payloadKind = decode(sub[1]!);
    resource = payloadKind ? { kind: 'schema', payloadKind } : null;
  }
  return resource ? { resource, params } : null;
}

/** The URI a page reports as `resource_uri`: the resource with its filters, without paging. */
export function canonicalUri(r: ParsedUri): string {
  switch (r.kind) {
    case 'entries': {
      const q = new URLSearchParams();
      if (r.projectId) q.set('project_id', r.projectId);
      if (r.topic) q.set('topic', r.topic);
      const qs = q.toString();
      return `knowledge://entries${qs ? `?${qs}` : ''}`;
    }
    case 'entry':
      return `knowledge://entries/${encodeURIComponent(r.id)}`;
    case 'triples':
      return 'knowledge://graph/triples';
    case 'transactions':
      return 'knowledge://history/transactions';
    case 'project-tags':
      return `knowledge://projects/${encodeURIComponent(r.projectId)}/tags`;
    case 'schema':
      return schemaUri(r.payloadKind);
    default:
      return `knowledge://${r.kind}`;
  }
}

interface Cursor {
  /** The resource_uri the cursor was issued for. */
  r: string;
  /** as_of_tx_id fixed by the first page. */
  a: number;
  /** Last key read (entity id, project id, tag, or tx_id). */
  k: string | number;
}

function encodeCursor(c: Cursor): string {
  return Buffer.from(JSON.stringify(c), 'utf8').toString('base64url');
}

function decodeCursor(raw: string, resourceUri: string): Cursor {
  let c: Partial<Cursor> | null = null;
  try {
    c = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8')) as Partial<Cursor>;
  } catch {
    c = null;
  }
  if (!c || typeof c !== 'object' || typeof c.r !== 'string' || !Number.isInteger(c.a) || (typeof c.k !== 'string' && typeof c.k !== 'number')) {
    throw new JsonRpcError(JSONRPC_INVALID_PARAMS, 'Invalid cursor: pass back the next_cursor of a previous page unchanged.');
  }
  if (c.r !== resourceUri) {
    throw new JsonRpcError(JSONRPC_INVALID_PARAMS, `Invalid cursor: it was issued for ${c.r}, not ${resourceUri}.`);
  }
  return c as Cursor;
}

function parseLimit(params: URLSearchParams): number {
  const raw = params.get('limit');
  if (raw === null || raw === '') return DEFAULT_LIMIT;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT) {
    throw new JsonRpcError(JSONRPC_INVALID_PARAMS, `Invalid limit "${raw}": an integer from 1 to ${MAX_LIMIT}.`);
  }
  return n;
}

export interface Page {
  resource_uri: string;
  as_of_tx_id: number;
  items: unknown[];
  next_cursor: string | null;
  [extra: string]: unknown;
}

type Img = Record<string, unknown>;

function entryItem(img: Img): Record<string, unknown> {
  return {
    id: img.id,
    kind: img.kind ?? 'memory',
    topic: img.topic ?? null,
    content: img.content,
    project_id: img.project_id,
    memory_type: img.memory_type,
    tags: img.tags ?? [],
    confidence: img.confidence ?? null,
    importance: img.importance ?? null,
    source_uri: img.source_uri ?? null,
    valid_from: img.valid_from ?? null,
    valid_to: img.valid_to ?? null,
    recorded_at: img.created_at ?? null,
    updated_at: img.updated_at ?? null,
  };
}

function tripleItem(img: Img): Record<string, unknown> {
  return {
    id: img.id,
    src: img.src,
    predicate: img.predicate,
    dst: img.dst,
    edge_type: img.edge_type ?? null,
    weight: img.weight ?? null,
    valid_from: img.valid_from ?? null,
    valid_to: img.valid_to ?? null,
  };
}

/** Reads one page of a paged resource: `fetch` gets up to limit+1 rows after the cursor's key. */
async function paged<R>(
  app: App,
  resourceUri: string,
  params: URLSearchParams,
  fetch: (asOf: number, after: string | number | null, limit: number) => Promise<R[]>,
  keyOf: (row: R) => string | number,
  itemOf: (row: R) => unknown,
): Promise<Page> {
  const limit = parseLimit(params);
  const rawCursor = params.get('cursor');
  const cursor = rawCursor ? decodeCursor(rawCursor, resourceUri) : null;
  const asOf = cursor ? cursor.a : await latestTxId(app.db);
  const rows = await fetch(asOf, cursor ? cursor.k : null, limit + 1);
  const more = rows.length > limit;
  const pageRows = more ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    resource_uri: resourceUri,
    as_of_tx_id: asOf,
    items: pageRows.map(itemOf),
    next_cursor: more && last !== undefined ? encodeCursor({ r: resourceUri, a: asOf, k: keyOf(last) }) : null,
  };
}

const asString = (k: string | number | null) => (k === null ? null : String(k));

const MEMORY_TYPE_DESCRIPTIONS: Record<(typeof MEMORY_TYPES)[number], string> = {
  episodic: 'An event: something that happened, at a time, to someone.',
  semantic: 'A fact, decision or preference that holds until superseded.',
  procedural: 'How to do something: steps, commands, checklists.',
};

/** The JSON-RPC error for a URI that names no resource of ours. */
export function resourceNotFound(uri: string): JsonRpcError {
  return JsonRpcError.of('RESOURCE_NOT_FOUND', `Resource not found: ${uri}. See resources/list and resources/templates/list.`, { uri });
}

/** Resources that answer a page (every one but the schemas, which are documents of their own). */
type PagedResource = Exclude<ParsedUri, { kind: 'schema' }>;

/** Builds the page a resource names; throws JsonRpcError for missing entries or bad paging. */
async function readPage(app: App, uri: string, r: PagedResource, params: URLSearchParams): Promise<Page> {
  const resourceUri = canonicalUri(r);
  switch (r.kind) {
    case 'entries':
      return paged(
        app, resourceUri, params,
        (asOf, after, limit) => nodeImagesAsOf(app.db, asOf, { afterId: asString(after), limit, projectId: r.projectId, topic: r.topic }),
        (row) => row.entity_id,
        (row) => entryItem(row.image),
      );
    case 'entry': {
      const asOf = await latestTxId(app.db);
      const [row] = await imagesAsOf(app.db, 'node', asOf, { ids: [r.id], limit: 1 });
      if (!row) throw JsonRpcError.of('RESOURCE_NOT_FOUND', `Resource not found: no live entry ${r.id}.`, { uri });
      return { resource_uri: resourceUri, as_of_tx_id: asOf, items: [entryItem(row.image)], next_cursor: null };
    }
    case 'triples':
      return paged(
        app, resourceUri, params,
        (asOf, after, limit) => imagesAsOf(app.db, 'edge', asOf, { afterId: asString(after), limit }),
        (row) => row.entity_id,
        (row) => tripleItem(row.image),
      );
    case 'transactions':
      return paged(
        app, resourceUri, params,
        (asOf, after, limit) => transactionsPage(app.db, asOf, { beforeTxId: after === null ? null : Number(after), limit }),
        (row) => row.tx_id,
        (row) => ({ ...row, created_at: row.created_at instanceof Date ? row.created_at.toISOString() : row.created_at }),
      );
    case 'memory-types': {
      const asOf = await latestTxId(app.db);
      return {
        resource_uri: resourceUri,
        as_of_tx_id: asOf,
        items: MEMORY_TYPES.map((name) => ({ memory_type: name, description: MEMORY_TYPE_DESCRIPTIONS[name], default: name === 'semantic' })),
        next_cursor: null,
        memory_types: [...MEMORY_TYPES],
      };
    }
    case 'projects': {
      const page = await paged(
        app, resourceUri, params,
        (asOf, after, limit) => projectsAsOf(app.db, asOf, { afterId: asString(after), limit }),
        (row) => row.project_id,
        (row) => row,
      );
      return { ...page, projects: page.items.map((p) => (p as { project_id: string }).project_id) };
    }
    case 'project-tags': {
      const page = await paged(
        app, resourceUri, params,
        (asOf, after, limit) => projectTagsAsOf(app.db, asOf, r.projectId, { afterId: asString(after), limit }),
        (row) => row.tag,
        (row) => row,
      );
      return { ...page, project_id: r.projectId, tags: page.items.map((t) => (t as { tag: string }).tag) };
    }
    case 'health': {
      const asOf = await latestTxId(app.db);
      return { resource_uri: resourceUri, as_of_tx_id: asOf, items: [await app.health()], next_cursor: null };
    }
    case 'schemas': {
      const asOf = await latestTxId(app.db);
      const kinds = [...PAYLOAD_SCHEMAS.keys()];
      return { resource_uri: resourceUri, as_of_tx_id: asOf, items: kinds.map((kind) => ({ kind, uri: schemaUri(kind) })), next_cursor: null, kinds };
    }
  }
}

const publishedSchemas = new Map<string, Record<string, unknown>>();

/**
 * The JSON Schema of one payload kind, as tools/list refers to it (outputSchema description).
 * `$id` is the URI it was read from, so a validator caches it under that name.
 */
export function payloadJsonSchema(payloadKind: string): Record<string, unknown> {
  const schema = PAYLOAD_SCHEMAS.get(payloadKind);
  if (!schema) throw JsonRpcError.of('RESOURCE_NOT_FOUND', `Resource not found: no payload kind "${payloadKind}". knowledge://schemas lists the kinds.`, { uri: schemaUri(payloadKind) });
  let json = publishedSchemas.get(payloadKind);
  if (!json) {
    json = { $id: schemaUri(payloadKind), title: payloadKind, ...jsonSchemaOf(schema, 'output') };
    publishedSchemas.set(payloadKind, json);
  }
  return json;
}

/**
 * resources/read for any knowledge:// URI: a page, or for knowledge://schemas/{kind} the JSON
 * Schema itself. Throws JsonRpcError for unknown resources or bad parameters.
 */
export async function readResource(app: App, uri: string): Promise<ReadResourceResult> {
  const parsed = parseKnowledgeUri(uri);
  if (!parsed) throw resourceNotFound(uri);
  const { resource, params } = parsed;
  const body = resource.kind === 'schema' ? payloadJsonSchema(resource.payloadKind) : await readPage(app, uri, resource, params);
  return { contents: [{ uri, mimeType: MIME, text: JSON.stringify(body) }] };
}

interface StaticResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  version: number;
}

const PAGING = 'Query parameters: limit (1-100, default 20) and cursor (the previous page\'s next_cursor). Answers {resource_uri, as_of_tx_id, items, next_cursor}; next_cursor is null on the last page.';

export const STATIC_RESOURCES: readonly StaticResource[] = [
  {
    uri: 'knowledge://entries',
    name: 'entries',
    title: 'Memory entries',
    description: `Every live memory entry (id, topic, content, project_id, memory_type, tags, confidence, importance, valid_from, valid_to, recorded_at, updated_at), by id. Filters: project_id, topic (the whole topic in any case, as query's topic filter). ${PAGING} Subscribe for change notifications; knowledge://entries?project_id=x narrows them to one project.`,
    version: 1,
  },
  {
    uri: 'knowledge://graph/triples',
    name: 'graph-triples',
    title: 'Graph triples',
    description: `Every live relation as a triple (id, src, predicate, dst, edge_type, weight, valid_from, valid_to), by id. ${PAGING}`,
    version: 1,
  },
  {
    uri: 'knowledge://history/transactions',
    name: 'history-transactions',
    title: 'Transaction history',
    description: `The transaction log, newest first (tx_id, op, actor, rationale, created_at, reverted_by, changes). ${PAGING}`,
    version: 1,
  },
  {
    uri: 'knowledge://memory-types',
    name: 'memory-types',
    title: 'Memory types',
    description: 'The memory_type values store accepts (episodic, semantic, procedural), with what each is for; items plus a memory_types list.',
    version: 1,
  },
  {
    uri: 'knowledge://projects',
    name: 'projects',
    title: 'Projects',
    description: `Projects that hold live entries (project_id, entries, last_updated), by project_id; items plus a projects list. ${PAGING}`,
    version: 1,
  },
  {
    uri: 'knowledge://health',
    name: 'health',
    title: 'Health',
    description: 'Preflight: version, store driver, queue backend and counts, embedding providers and models, vector index sizes.',
    version: 1,
  },
  {
    uri: 'knowledge://schemas',
    name: 'schemas',
    title: 'Payload schemas',
    description: 'Every structured payload kind a tool answers with (kind, uri): items plus a kinds list. Each uri, knowledge://schemas/{kind}, reads the full JSON Schema that tools/list outputSchema refers to.',
    version: 1,
  },
];

export function registerResources(mcp: McpServer, app: App): void {
  const completeEntryIds = async (value: string | undefined) => entryIdsWithPrefix(app.db, value ?? '', COMPLETION_LIMIT);
  const completeProjects = async (value: string | undefined) => projectIdsWithPrefix(app.db, value ?? '', COMPLETION_LIMIT);
  const viaRouter = async (uri: URL) => readResource(app, uri.href);
  const completeKinds = async (value: string | undefined) => [...PAYLOAD_SCHEMAS.keys()].filter((k) => k.toLowerCase().startsWith((value ?? '').toLowerCase()));

  for (const r of STATIC_RESOURCES) {
    mcp.registerResource(r.name, r.uri, { title: r.title, description: r.description, mimeType: MIME, _meta: { version: r.version } }, viaRouter);
  }
  mcp.registerResource(
    'entry',
    new ResourceTemplate('knowledge://entries/{id}', { list: undefined, complete: { id: completeEntryIds } }),
    { title: 'One memory entry', description: 'One live entry by id; answers the usual page with the entry as its only item. The id completes by prefix.', mimeType: MIME, _meta: { version: 1 } },
    async (uri) => viaRouter(uri),
  );
  mcp.registerResource(
    'entries-filtered',
    new ResourceTemplate('knowledge://entries{?project_id,topic,limit,cursor}', { list: undefined, complete: { project_id: completeProjects } }),
    { title: 'Memory entries, filtered', description: `Entries of one project and/or of one topic (matched whole, in any case, as query's topic filter). ${PAGING} project_id completes from the known projects.`, mimeType: MIME, _meta: { version: 1 } },
    async (uri) => viaRouter(uri),
  );
  mcp.registerResource(
    'project-tags',
    new ResourceTemplate('knowledge://projects/{project_id}/tags', { list: undefined, complete: { project_id: completeProjects } }),
    { title: 'Tags of a project', description: `Distinct tags of a project's live entries (tag, entries), by tag; items plus project_id and a tags list. Percent-encode a '/' in project_id. ${PAGING}`, mimeType: MIME, _meta: { version: 1 } },
    async (uri) => viaRouter(uri),
  );
  // Not listed one by one (resources/list stays short as tools grow): knowledge://schemas lists them.
  mcp.registerResource(
    'payload-schema',
    new ResourceTemplate('knowledge://schemas/{kind}', { list: undefined, complete: { kind: completeKinds } }),
    { title: 'Schema of a payload kind', description: 'The full JSON Schema of one payload kind (e.g. entries:v1), as the outputSchema of tools/list refers to it; the answer is the schema itself, not a page. kind completes from the known kinds.', mimeType: MIME, _meta: { version: 1 } },
    async (uri) => viaRouter(uri),
  );

  // McpServer matches static URIs exactly and templates by regex, which neither query strings
  // (limit, cursor, filters) nor project ids holding '/' get through: route reads ourselves.
  mcp.server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    try {
      return await readResource(app, request.params.uri);
    } catch (err) {
      if (err instanceof JsonRpcError) throw err;
      // Internals (SQL, stack) stay in the log.
      app.logger.error({ err, uri: request.params.uri }, 'resource read failed');
      throw new JsonRpcError(JSONRPC_INTERNAL_ERROR, 'Reading the resource failed; try again.');
    }
  });

  registerSubscriptions(mcp, app);
}
