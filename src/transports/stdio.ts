import { setTimeout as sleep } from 'node:timers/promises';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { isInitializeRequest, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../app.js';
import type { Logger } from '../log.js';
import { createMcpServer } from '../mcp/server.js';

/** Serves one MCP client over stdin/stdout; resolves when the client goes away. */
export async function serveStdio(app: App, stdio?: Transport): Promise<void> {
  const transport = stdio ?? new StdioServerTransport();
  const server = createMcpServer(app, { actor: 'stdio' });
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => {});
}

/** How long a relay looks for the next owner before it gives up on its client. */
const HEAL_DEADLINE_MS = 30_000;
const UNREACHABLE = -32030;

export interface RelayOptions {
  token?: string | null;
  /**
   * Called when the owner is gone: answers the URL of the next owner, after making this
   * process the owner if nobody else is (the CLI takes the lock and starts serving); null when
   * no owner is there yet (asked again shortly).
   */
  nextOwner?: () => Promise<string | null>;
  /** The client's side, already being read (./stdio-early.ts); a new stdin/stdout transport by default. */
  local?: Transport;
}

/**
 * Relays a stdio client to the process that already owns the data directory, so several stdio
 * clients (each spawning its own `context-graph stdio`) share one memory instead of fighting
 * over it. Messages pass through unchanged: the owner's MCP server does all the work. When the
 * owner exits, the relay moves to the next owner (or becomes it) and re-runs the client's
 * initialize there; a call caught in the switch gets a retryable error, nothing more. Writes
 * are never lost: the owner commits them before it answers.
 */
export async function forwardStdio(targetUrl: string, logger: Logger, opts: RelayOptions = {}): Promise<void> {
  const local = opts.local ?? new StdioServerTransport();
  const headers = opts.token ? { requestInit: { headers: { authorization: `Bearer ${opts.token}` } } } : undefined;
  let initialize: JSONRPCRequest | undefined;
  let healing: Promise<void> | null = null;
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));

  function connect(url: string): StreamableHTTPClientTransport {
    const remote = new StreamableHTTPClientTransport(new URL(url), headers);
    remote.onmessage = (message: JSONRPCMessage) => {
      // The relay must send the negotiated protocol version header, as a client would.
      const result = 'result' in message ? (message.result as { protocolVersion?: unknown }) : undefined;
      if (typeof result?.protocolVersion === 'string') remote.setProtocolVersion(result.protocolVersion);
      if ('id' in message && typeof message.id === 'string' && message.id.startsWith('relay-init-')) return;
      void local.send(message);
    };
    remote.onerror = (err) => logger.debug({ err }, 'relay stream error');
    return remote;
  }

  /** Moves to the next owner and replays the client's handshake there. */
  async function heal(): Promise<void> {
    const deadline = Date.now() + HEAL_DEADLINE_MS;
    for (let attempt = 0; Date.now() < deadline; attempt++) {
      const url = await opts.nextOwner!().catch((err: unknown) => (logger.debug({ err }, 'taking over failed'), null));
      if (url) {
        const next = connect(url);
        try {
          await next.start();
          if (initialize) {
            await next.send({ ...initialize, id: `relay-init-${attempt}` });
            await next.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
          }
          const old = remote;
          remote = next;
          void old.close().catch(() => {});
          logger.info({ target: url }, 'the owner changed: relaying to the new one');
          return;
        } catch (err) {
          logger.debug({ err, url }, 'next owner not reachable yet');
        }
      }
      await sleep(Math.min(1_000, 100 * 2 ** attempt));
    }
    throw new Error('no owner of the data directory within the deadline');
  }

  function answerUnreachable(message: JSONRPCMessage, retryable: boolean): void {
    if (!('id' in message) || !('method' in message)) return;
    const hint = retryable ? ' It is being replaced: retry the call.' : '';
    void local.send({
      jsonrpc: '2.0',
      id: message.id,
      error: { code: UNREACHABLE, message: `The context-graph server that owns this data directory is unreachable.${hint}`, data: { retryable } },
    });
  }

  let remote = connect(targetUrl);
  // Messages held while the owner was starting arrive in a burst: none may reach the owner
  // before the initialize that opens the session (its answer carries the session id).
  let handshake: Promise<unknown> = Promise.resolve();
  local.onmessage = (message: JSONRPCMessage) => {
    const opening = isInitializeRequest(message);
    if (opening) initialize = message as JSONRPCRequest;
    const opened = handshake;
    const forwarded = (async () => {
      if (healing) await healing.catch(() => {});
      if (!opening) await opened;
      const via = remote;
      try {
        await via.send(message);
      } catch (err) {
        logger.warn({ err }, 'forwarding to the owning server failed');
        if (!opts.nextOwner) return answerUnreachable(message, false);
        answerUnreachable(message, true);
        // Only the first failure after a switch starts a new one.
        if (via === remote) healing ??= heal().finally(() => (healing = null));
        await healing?.catch(() => done());
      }
    })();
    if (opening) handshake = forwarded;
  };
  local.onclose = () => done();
  process.stdin.once('end', () => done());

  await remote.start();
  await local.start();
  logger.info({ target: targetUrl }, 'data directory in use: relaying this stdio client to its owner');
  await finished;
  await remote.terminateSession().catch(() => {});
  await remote.close().catch(() => {});
  await local.close().catch(() => {});
}
