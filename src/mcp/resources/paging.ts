import { JSONRPC_INVALID_PARAMS, JsonRpcError } from '../../errors.js';
import type { AsOfPage } from '../../services/resource-reads.js';
import type { ResourceContext } from './define.js';

/**
 * The page every resource but the schemas answers. Paged resources take `limit` and `cursor` as
 * query parameters. The first page fixes `as_of_tx_id` (the newest transaction); the opaque
 * cursor carries it with the last key read, and later pages are rebuilt from the transaction
 * log as of that transaction, keyset by key: writes between pages neither repeat nor skip
 * anything the first page could see.
 */
export interface Page {
  resource_uri: string;
  as_of_tx_id: number;
  items: unknown[];
  next_cursor: string | null;
  [extra: string]: unknown;
}

const DEFAULT_LIMIT = 20;
const MAX_LIMIT = 100;

export const PAGING =
  "Query parameters: limit (1-100, default 20) and cursor (the previous page's next_cursor). Answers {resource_uri, as_of_tx_id, items, next_cursor}; next_cursor is null on the last page.";

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
  let c: Partial<Cursor> | null;
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

function parseLimit(query: URLSearchParams): number {
  const raw = query.get('limit');
  if (raw === null || raw === '') return DEFAULT_LIMIT;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1 || n > MAX_LIMIT) {
    throw new JsonRpcError(JSONRPC_INVALID_PARAMS, `Invalid limit "${raw}": an integer from 1 to ${MAX_LIMIT}.`);
  }
  return n;
}

/** One page of a keyset-paged resource: `fetch` gets up to limit+1 rows after the cursor's key. */
export async function readPaged<R, K extends string | number>(
  ctx: ResourceContext,
  resourceUri: string,
  spec: { fetch(page: AsOfPage<K>): Promise<R[]>; keyOf(row: R): K; itemOf(row: R): unknown },
): Promise<Page> {
  const limit = parseLimit(ctx.query);
  const rawCursor = ctx.query.get('cursor');
  const cursor = rawCursor ? decodeCursor(rawCursor, resourceUri) : null;
  const asOfTxId = cursor ? cursor.a : await ctx.services.reads.latestTxId();
  const rows = await spec.fetch({ asOfTxId, afterKey: cursor ? (cursor.k as K) : null, limit: limit + 1 });
  const more = rows.length > limit;
  const pageRows = more ? rows.slice(0, limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return {
    resource_uri: resourceUri,
    as_of_tx_id: asOfTxId,
    items: pageRows.map((row) => spec.itemOf(row)),
    next_cursor: more && last !== undefined ? encodeCursor({ r: resourceUri, a: asOfTxId, k: spec.keyOf(last) }) : null,
  };
}

/** The envelope of a resource that is one snapshot, not pages. */
export async function singlePage(ctx: ResourceContext, resourceUri: string, items: unknown[], extra: Record<string, unknown> = {}): Promise<Page> {
  return { resource_uri: resourceUri, as_of_tx_id: await ctx.services.reads.latestTxId(), items, next_cursor: null, ...extra };
}
