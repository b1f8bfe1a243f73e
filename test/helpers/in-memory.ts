import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { CreateMessageRequestSchema, type CreateMessageRequest } from '@modelcontextprotocol/sdk/types.js';
import type { App } from '../../src/app.js';
import { createMcpServer } from '../../src/mcp/server.js';

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
