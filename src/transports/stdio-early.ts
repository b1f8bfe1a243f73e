import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isInitializeRequest, type InitializeRequest, type JSONRPCMessage, type JSONRPCRequest } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../app.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import { createMcpServer } from '../mcp/server.js';

/**
 * The id the client's own `initialize` is replayed under once the real server is there: its
 * answer (the client already has one) is dropped. It starts like the relay's own handshakes
 * (./stdio.ts drops answers to `relay-init-…`), so a relay swallows the owner's answer too.
 */
const EARLY_INIT_ID = 'relay-init-early';

type Handshake = (request: InitializeRequest) => Promise<unknown>;

/**
 * The answer to `initialize` does not depend on the store: server info, capabilities and
 * instructions are the same for every session. A server built over a bare app (never called)
 * gives it, so the answer is exactly what the real server would say.
 */
export function staticHandshake(config: Config, logger: Logger): Handshake | null {
  try {
    const mcp = createMcpServer({ config, logger, services: {} } as unknown as App, { actor: 'handshake' });
    const server = mcp.server as unknown as { _oninitialize(request: InitializeRequest): Promise<unknown> };
    return (request) => server._oninitialize(request);
  } catch (err) {
    logger.debug({ err }, 'no early handshake: the client waits for the store');
    return null;
  }
}

/**
 * stdin/stdout of a `context-graph stdio` process, read from the first moment. Opening the store
 * (or waiting for the process that owns the data directory to open it) can take a minute on a
 * loaded machine, longer than an MCP client waits for its `initialize` (60 s in the SDK): so the
 * client's `initialize` is answered at once, and everything else it sends is held. When the real
 * server (or the relay to the owner) attaches with `start`, the client's `initialize` is replayed
 * to it (that answer dropped), then the held messages, in order.
 */
export class EarlyStdio implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: Transport['onclose'];
  onerror?: Transport['onerror'];
  private readonly stdio = new StdioServerTransport();
  private held: JSONRPCMessage[] | null = [];

  constructor(private readonly handshake: Handshake | null) {}

  /** Starts reading the client; answers its initialize now if there is a handshake. */
  async open(): Promise<void> {
    this.stdio.onmessage = (message) => (this.held ? this.hold(message) : this.onmessage?.(message));
    this.stdio.onclose = () => this.onclose?.();
    this.stdio.onerror = (err) => this.onerror?.(err);
    await this.stdio.start();
  }

  private hold(message: JSONRPCMessage): void {
    if (!this.handshake || !isInitializeRequest(message)) return void this.held!.push(message);
    const request = message as JSONRPCRequest & InitializeRequest;
    this.held!.push({ ...request, id: EARLY_INIT_ID });
    void this.handshake(request).then(
      (result) => this.stdio.send({ jsonrpc: '2.0', id: request.id, result } as JSONRPCMessage),
      (err: unknown) => this.onerror?.(err instanceof Error ? err : new Error(String(err))),
    );
  }

  /** The real receiver is attached (its onmessage set): held messages go to it, in order. */
  async start(): Promise<void> {
    setImmediate(() => {
      const held = this.held ?? [];
      this.held = null;
      for (const message of held) this.onmessage?.(message);
    });
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if ('id' in message && message.id === EARLY_INIT_ID) return;
    await this.stdio.send(message);
  }

  async close(): Promise<void> {
    await this.stdio.close();
  }
}
