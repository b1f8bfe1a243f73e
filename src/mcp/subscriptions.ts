import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { SubscribeRequestSchema, UnsubscribeRequestSchema, type ServerNotification } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../app.js';
import { JsonRpcError } from '../errors.js';
import type { TxEvent } from '../services/change-feed.js';
import { resolveUri, resourceNotFound, type ResolvedUri } from './resources/router.js';

/** At most this many ids per notification; `truncated` says when more changed. */
export const MAX_CHANGED_IDS = 100;

/** What a `notifications/resources/updated` carries besides `uri` (top level and in `_meta`). */
export interface ResourceChange {
  resource_uri: string;
  tx_id: number;
  change_type: 'upsert' | 'delete';
  changed_ids: string[];
  truncated: boolean;
}

/** The notifications one transaction yields for one subscription: one per change_type present. */
export function changesFor(uri: string, subscribed: ResolvedUri, event: TxEvent): ResourceChange[] {
  const byType = new Map<'upsert' | 'delete', string[]>();
  for (const c of event.changes) {
    if (!subscribed.resource.covers?.(subscribed.params, c)) continue;
    const ids = byType.get(c.change_type) ?? [];
    if (!ids.includes(c.id)) ids.push(c.id);
    byType.set(c.change_type, ids);
  }
  const out: ResourceChange[] = [];
  for (const change_type of ['upsert', 'delete'] as const) {
    const ids = byType.get(change_type);
    if (!ids) continue;
    out.push({
      resource_uri: uri,
      tx_id: event.tx_id,
      change_type,
      changed_ids: ids.slice(0, MAX_CHANGED_IDS),
      truncated: ids.length > MAX_CHANGED_IDS,
    });
  }
  return out;
}

/**
 * resources/subscribe and resources/unsubscribe for one session (McpServer does not implement
 * them). The session listens on the process-wide change feed only while it has subscriptions,
 * and stops when its server closes, so sessions that come and go leave no listeners behind.
 */
export function registerSubscriptions(mcp: McpServer, app: App): void {
  const subscriptions = new Map<string, ResolvedUri>();
  const log = app.logger.child({ component: 'subscriptions' });
  let listening = false;

  const onTx = (event: TxEvent) => {
    for (const [uri, resource] of subscriptions) {
      for (const change of changesFor(uri, resource, event)) {
        // Spec params are {uri, _meta?}; the fields ride at the top level (what the wire carries)
        // and in _meta (what survives the SDK client's schema, which strips unknown params).
        const notification = {
          method: 'notifications/resources/updated',
          params: { uri, ...change, _meta: { ...change } },
        } as ServerNotification;
        mcp.server.notification(notification).catch((err: unknown) => log.debug({ err, uri }, 'resource notification not delivered'));
      }
    }
  };
  const listen = (on: boolean) => {
    if (on === listening) return;
    listening = on;
    if (on) app.services.changes.on('tx', onTx);
    else app.services.changes.off('tx', onTx);
  };

  mcp.server.setRequestHandler(SubscribeRequestSchema, async (request) => {
    const uri = request.params.uri;
    const resolved = resolveUri(uri);
    if (!resolved) throw resourceNotFound(uri);
    // A session's subscriptions live as long as it does: bounded, so one session cannot grow without end.
    const max = app.config?.maxSubscriptionsPerSession ?? Infinity;
    if (!subscriptions.has(uri) && subscriptions.size >= max)
      throw JsonRpcError.of('SUBSCRIPTIONS_FULL', `This session is subscribed to ${subscriptions.size} resources, the most it may hold: unsubscribe from one first.`, {
        max_subscriptions: max,
      });
    subscriptions.set(uri, resolved);
    listen(true);
    return {};
  });
  mcp.server.setRequestHandler(UnsubscribeRequestSchema, async (request) => {
    // Unsubscribing from something never subscribed is acknowledged all the same.
    subscriptions.delete(request.params.uri);
    if (subscriptions.size === 0) listen(false);
    return {};
  });

  const previous = mcp.server.onclose;
  mcp.server.onclose = () => {
    subscriptions.clear();
    listen(false);
    previous?.();
  };
}
