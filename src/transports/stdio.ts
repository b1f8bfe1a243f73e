import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../app.js';
import type { Logger } from '../log.js';
import { createMcpServer } from '../mcp/server.js';

/** Serves one MCP client over stdin/stdout; resolves when the client goes away. */
export async function serveStdio(app: App): Promise<void> {
  const transport = new StdioServerTransport();
  const server = createMcpServer(app, { actor: 'stdio' });
  const closed = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    process.stdin.once('end', () => resolve());
  });
  await server.connect(transport);
  await closed;
  await server.close().catch(() => {});
}

/**
 * Relays a stdio client to the process that already owns the data directory, so several stdio
 * clients (each spawning its own `context-graph stdio`) share one memory instead of fighting
 * over it. Messages pass through unchanged: the owner's MCP server does all the work.
 */
export async function forwardStdio(targetUrl: string, logger: Logger): Promise<void> {
  const local = new StdioServerTransport();
  const remote = new StreamableHTTPClientTransport(new URL(targetUrl));
  let done!: () => void;
  const finished = new Promise<void>((resolve) => (done = resolve));

  local.onmessage = (message: JSONRPCMessage) => {
    remote.send(message).catch((err: unknown) => {
      logger.error({ err }, 'forwarding to the owning server failed');
      // Answer the request so the client is not left waiting for ever.
      if ('id' in message && 'method' in message) {
        void local.send({ jsonrpc: '2.0', id: message.id, error: { code: -32030, message: 'The context-graph server that owns this data directory is unreachable.' } });
      }
    });
  };
  remote.onmessage = (message: JSONRPCMessage) => {
    // The relay must send the negotiated protocol version header, as a client would.
    const result = 'result' in message ? (message.result as { protocolVersion?: unknown }) : undefined;
    if (typeof result?.protocolVersion === 'string') remote.setProtocolVersion(result.protocolVersion);
    void local.send(message);
  };
  remote.onerror = (err) => logger.debug({ err }, 'relay stream error');
  local.onclose = () => done();
  remote.onclose = () => done();
  process.stdin.once('end', () => done());

  await remote.start();
  await local.start();
  logger.info({ target: targetUrl }, 'data directory in use: relaying this stdio client to its owner');
  await finished;
  await remote.terminateSession().catch(() => {});
  await remote.close().catch(() => {});
  await local.close().catch(() => {});
}
