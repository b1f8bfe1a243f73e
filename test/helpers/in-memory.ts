import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CreateMessageRequestSchema, type CreateMessageRequest } from '@modelcontextprotocol/sdk/types.js';
import { createApp, type App } from '../../src/app.js';
import { loadConfig } from '../../src/config.js';
import { createLogger } from '../../src/log.js';
import { createMcpServer } from '../../src/mcp/server.js';
import { call as callTool, SUITE_EMBED_WAIT_MS, tempDir, toolError } from './cli.js';

/**
 * An SDK client linked in memory to the app's own MCP server (for tests that need the app in
 * process: an injected clock, a client that answers `sampling/createMessage`). With `sampling`,
 * the client declares the capability and answers every request with that text.
 */
export async function inMemoryClient(app: App, opts: { name: string; actor: string; sampling?: ((req: CreateMessageRequest) => string) | undefined }): Promise<Client> {
  const mcp = createMcpServer(app, { actor: opts.actor });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await mcp.connect(serverSide);
  const client = new Client({ name: opts.name, version: '1.0.0' }, { capabilities: opts.sampling ? { sampling: {} } : {} });
  const answer = opts.sampling;
  if (answer) client.setRequestHandler(CreateMessageRequestSchema, async (req) => ({ role: 'assistant', model: 'test-model-1', content: { type: 'text', text: answer(req) } }));
  await client.connect(clientSide);
  return client;
}

/**
 * Registers before/after hooks in the current suite: an embedded app in process on a fresh data
 * dir (automatic edges off), an in-memory client on it with `toolsets` enabled, all closed
 * afterwards. `call` makes a tool call that must succeed and answers its structured content.
 */
export function useInProcessApp(name: string, toolsets: readonly string[]): { readonly app: App; call: (tool: string, args: Record<string, unknown>) => Promise<any> } {
  let dir: Awaited<ReturnType<typeof tempDir>> | undefined;
  let app: App | undefined;
  let client: Client | undefined;
  const call = async (tool: string, args: Record<string, unknown>): Promise<any> => {
    const out = await callTool(client!, tool, args);
    assert.equal(toolError(out), undefined, `${tool}: ${JSON.stringify(out.content)}`);
    return out.structuredContent;
  };
  before(async () => {
    dir = await tempDir(`cg-${name}-`);
    app = await createApp(
      loadConfig({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_AUTO_EDGES: 'off', CONTEXT_GRAPH_EMBED_WAIT_MS: String(SUITE_EMBED_WAIT_MS) }),
      createLogger('silent'),
    );
    client = await inMemoryClient(app, { name, actor: 'test' });
    await call('toolsets', { enable: [...toolsets] });
  });
  after(async () => {
    await client?.close();
    await app?.close();
    await dir?.remove();
  });
  return {
    get app() {
      return app!;
    },
    call,
  };
}
