import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { test } from 'node:test';
import { call, childEnv, httpClient, startServe, tempDir } from '../helpers/cli.js';

// A module-resolution hook that writes the package name of every module the process resolves.
const HOOKS = `import { appendFileSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context);
  const m = /node_modules\\/((?:@[^/]+\\/)?[^/]+)\\//.exec(resolved.url);
  if (m) appendFileSync(process.env.CG_TEST_MODULE_LOG, m[1] + '\\n');
  return resolved;
}
`;

// The clients of the distributed mode cost an embedded server ~10 MiB of idle RSS (issue 15's
// footprint goal); they are imported only when REDIS_URL / DATABASE_URL choose them.
test('an embedded server serves a store and a search without loading the Redis, BullMQ or Postgres clients', async () => {
  const dir = await tempDir();
  try {
    const hooks = join(dir.path, 'hooks.mjs');
    const register = join(dir.path, 'register.mjs');
    const log = join(dir.path, 'modules.log');
    await writeFile(hooks, HOOKS);
    await writeFile(register, `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(hooks).href)});\n`);
    await writeFile(log, '');
    const server = await startServe(
      childEnv({ CONTEXT_GRAPH_DATA_DIR: join(dir.path, 'data'), CG_TEST_MODULE_LOG: log, NODE_OPTIONS: `--import=${pathToFileURL(register).href}` }),
    );
    try {
      const client = await httpClient(server.mcpUrl);
      await call(client, 'store', { content: 'the footprint test stores one memory', project_id: 'footprint' });
      const found = await call(client, 'search', { query_text: 'footprint memory', project_id: 'footprint' });
      assert.ok(JSON.stringify(found).includes('the footprint test stores one memory'));
      await client.close();
    } finally {
      await server.stop();
    }
    const loaded = new Set((await readFile(log, 'utf8')).split('\n').filter(Boolean));
    // The hook saw the embedded store and the SDK, so an empty set cannot pass the checks below.
    assert.ok(loaded.has('@electric-sql/pglite'), `modules seen: ${[...loaded].join(', ')}`);
    assert.ok(loaded.has('@modelcontextprotocol/sdk'));
    for (const client of ['bullmq', 'ioredis', 'postgres']) assert.ok(!loaded.has(client), `${client} was loaded by an embedded server`);
  } finally {
    await dir.remove();
  }
});
