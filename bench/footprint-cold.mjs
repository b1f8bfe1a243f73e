// node bench/footprint-cold.mjs <checkout> <port>: first search (cold), store, search over MCP HTTP against a just-started serve (bench/footprint-idle.sh runs it)
const [root, port] = process.argv.slice(2);
const { Client } = await import(root + '/node_modules/@modelcontextprotocol/sdk/dist/esm/client/index.js');
const { StreamableHTTPClientTransport } = await import(root + '/node_modules/@modelcontextprotocol/sdk/dist/esm/client/streamableHttp.js');
const client = new Client({ name: 'cold', version: '1' });
await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`)));
const t = async (name, args) => {
  const s = process.hrtime.bigint();
  const r = await client.callTool({ name, arguments: args });
  return [Number(process.hrtime.bigint() - s) / 1e6, r];
};
const [search0] = await t('search', { query_text: 'lighthouse tides at dawn' });
const [store1] = await t('store', { content: 'The lighthouse keeper logs the tides at dawn.' });
const [search1, r] = await t('search', { query_text: 'lighthouse tides' });
const found = JSON.stringify(r.structuredContent ?? r.content).includes('lighthouse');
const [store2] = await t('store', { content: 'The ferry leaves at noon on weekdays.' });
const [search2] = await t('search', { query_text: 'ferry noon' });
console.log(
  JSON.stringify({
    first_search_cold_ms: Math.round(search0),
    first_store_ms: Math.round(store1),
    search_after_first_store_ms: Math.round(search1),
    found,
    second_store_ms: Math.round(store2),
    search_after_second_store_ms: Math.round(search2),
  }),
);
await client.close();
