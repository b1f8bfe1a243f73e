import type { IncomingMessage, ServerResponse } from 'node:http';
import type { App } from '../app.js';
import type { TxEvent } from '../services/change-feed.js';
import type { Route } from './http-server.js';

/**
 * `GET /api/changes`: the process-wide change feed (every committed transaction, from this front
 * end or any other on the same database) as a text/event-stream, for HTTP clients without an MCP
 * session, e.g. the explorer's Activity view. One `tx` event per transaction: {tx_id, op,
 * changes_total, changes (the first 20: entity, id, change_type, project_id, kind)}. The ids are
 * what the transaction log lists to anyone with the token; content stays behind `history`/`query`.
 */
export const CHANGES_PATH = '/api/changes';

const KEEPALIVE_MS = 15_000;
const LISTED_CHANGES = 20;

export function changeEventRoutes(app: App): Route[] {
  function stream(req: IncomingMessage, res: ServerResponse): void {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache, no-transform', connection: 'keep-alive', 'x-accel-buffering': 'no' });
    // A first comment, so a client knows it is connected before any transaction happens.
    res.write(': change feed\n\n');
    const onTx = (e: TxEvent) => {
      const data = { tx_id: e.tx_id, op: e.op, changes_total: e.changes.length, changes: e.changes.slice(0, LISTED_CHANGES) };
      res.write(`id: ${e.tx_id}\nevent: tx\ndata: ${JSON.stringify(data)}\n\n`);
    };
    app.services.changes.on('tx', onTx);
    const keepalive = setInterval(() => res.write(': keepalive\n\n'), KEEPALIVE_MS);
    keepalive.unref();
    const stop = () => {
      clearInterval(keepalive);
      app.services.changes.off('tx', onTx);
    };
    res.once('close', stop);
    req.once('close', stop);
  }
  return [{ method: 'GET', path: CHANGES_PATH, handler: stream }];
}
