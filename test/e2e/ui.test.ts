import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser, type Page } from 'playwright-core';
import { packageRoot } from '../../src/paths.js';
import { childEnv, startServe, tempDir } from '../helpers/cli.js';
import { openEventStream } from '../helpers/sse.js';

/**
 * The memory explorer (issue 19) in a real browser: Debian's headless Chromium driven by
 * playwright-core against a real `serve` behind a bearer token. One server, one browser, one page
 * that goes through the views as a user would; each view's screenshot lands in test-output/ui/.
 */
const CHROMIUM = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].find((p) => p && existsSync(p));
const SKIP = CHROMIUM ? false : 'no Chromium found: set CHROMIUM_PATH, or apt-get install chromium';
const TOKEN = 'ui-explorer-test-token-0123456789';
const SHOTS = join(packageRoot(), 'test-output', 'ui');
const HOSTILE = `<script>window.__pwned = 1</script><img src=x onerror="window.__pwned = 2"> a hostile note about the backup rota`;

describe('the memory explorer at /ui, in headless Chromium', { skip: SKIP }, () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let server: Awaited<ReturnType<typeof startServe>>;
  let browser: Browser;
  let page: Page;
  const ids: Record<string, string> = {};
  const cspViolations: string[] = [];
  const pageErrors: string[] = [];

  /** A tool call as a program makes it (with the token), for the setup the page is then shown. */
  async function tool(name: string, args: Record<string, unknown>, auth = true): Promise<{ status: number; body: any }> {
    const res = await fetch(`${server.baseUrl}/api/tool`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(auth ? { authorization: `Bearer ${TOKEN}` } : {}) },
      body: JSON.stringify({ tool: name, arguments: args }),
    });
    return { status: res.status, body: await res.json() };
  }

  async function shot(name: string): Promise<void> {
    await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: false });
  }

  before(async () => {
    await mkdir(SHOTS, { recursive: true });
    dir = await tempDir();
    [server, browser] = await Promise.all([
      startServe(childEnv({ CONTEXT_GRAPH_DATA_DIR: dir.path, CONTEXT_GRAPH_AUTH_TOKEN: TOKEN })),
      chromium.launch({ executablePath: CHROMIUM!, args: ['--no-sandbox', '--disable-dev-shm-usage'] }),
    ]);
    const memories = {
      backup: { content: 'The nightly database backup runs at 02:00 UTC and keeps 14 days of snapshots.', topic: 'database backup', tags: ['ops', 'backup'] },
      restore: { content: 'Restores from the database backup are rehearsed twice a year by the platform team.', topic: 'restore drill', tags: ['ops'] },
      hostile: { content: HOSTILE, tags: ['ops'] },
      coffee: { content: 'The office coffee machine is descaled on Fridays.', memory_type: 'episodic' },
    };
    for (const [key, args] of Object.entries(memories)) {
      const r = await tool('store', args);
      assert.equal(r.status, 200, JSON.stringify(r.body));
      ids[key] = r.body.result.id;
    }
    // A second version, so the memory panel has a history to show.
    const updated = await tool('update', {
      id: ids.restore,
      content: 'Restores from the database backup are rehearsed every quarter by the platform team.',
      rationale: 'the drill moved to quarterly',
    });
    assert.equal(updated.status, 200, JSON.stringify(updated.body));
    // The restore drill has neighbours of its own, two hops from the backup fact once the page relates them.
    const related = await tool('relate', {
      triples: [
        { subject: ids.restore, predicate: 'owned_by', object: 'platform team', edge_type: 'Hierarchical', weight: 0.9 },
        { subject: ids.restore, predicate: 'followed_by', object: ids.hostile, edge_type: 'Temporal', weight: 0.6 },
        { subject: 'platform team', predicate: 'maintains', object: ids.coffee, edge_type: 'Causal', weight: 0.4 },
      ],
    });
    assert.equal(related.status, 200, JSON.stringify(related.body));
    page = await browser.newPage({ viewport: { width: 1280, height: 820 } });
    page.on('console', (m) => m.type() === 'error' && /Content Security Policy/i.test(m.text()) && cspViolations.push(m.text()));
    page.on('pageerror', (e) => pageErrors.push(e.message));
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
    await dir?.remove();
  });

  test('with a token set, the API refuses a caller without it; the page asks for it once and then works', async () => {
    const refused = await tool('history', { limit: 1 }, false);
    assert.equal(refused.status, 401);
    await page.goto(`${server.baseUrl}/ui`);
    await page.locator('#auth').waitFor({ state: 'visible' });
    assert.match(await page.locator('#auth-reason').innerText(), /Unauthorized: send Authorization: Bearer/);
    assert.match(await page.locator('#status').innerText(), /needs the access token/);
    await shot('token');
    await page.getByTestId('token').fill('not-the-token-at-all');
    await page.getByTestId('token').press('Enter');
    await page.locator('#auth-reason').filter({ hasText: 'not valid' }).waitFor();
    await page.getByTestId('token').fill(TOKEN);
    await page.getByTestId('token').press('Enter');
    await page.locator('#status').filter({ hasText: 'Connected' }).waitFor();
    assert.equal(await page.locator('#auth').isHidden(), true);
    assert.equal(await page.evaluate(() => (globalThis as any).sessionStorage.getItem('context-graph.token')), TOKEN, 'kept for this tab');
  });

  test('Search finds a stored memory, with its citation and per-space signals; filters narrow it', async () => {
    await page.getByTestId('search-query').fill('nightly database backup');
    await page.getByTestId('search-query').press('Enter');
    const first = page.getByTestId('hit').first();
    await first.waitFor();
    assert.equal(await first.getAttribute('data-id'), ids.backup);
    assert.match(await first.getByTestId('hit-text').innerText(), /nightly database backup runs at 02:00 UTC/);
    const hex = /\[node_([0-9a-f]{32})\]/.exec(await first.locator('.cite').innerText());
    assert.ok(hex, 'a [node_…] citation');
    assert.match(await first.getByTestId('signals').innerText(), /lexical #1 · \d\.\d{3}/);
    await shot('search');
    await page.getByTestId('search-type').selectOption('episodic');
    await page.getByTestId('search-query').press('Enter');
    // Filtered to episodic memories: the backup fact (semantic) is gone, whatever else the dense spaces still rank.
    await page.locator(`[data-testid=hit][data-id="${ids.backup}"]`).waitFor({ state: 'detached' });
    await page.locator('[data-testid=search-results] p.muted', { hasText: / hits? for/ }).waitFor();
    for (const meta of await page.locator('[data-testid=hit] .hit-meta').allInnerTexts()) assert.match(meta, /episodic/);
    await page.getByTestId('search-type').selectOption('');
  });

  test('a memory containing <script> renders as text, and nothing in it runs', async () => {
    await page.getByTestId('search-query').fill('hostile note backup rota');
    await page.getByTestId('search-query').press('Enter');
    const hit = page.locator(`[data-testid=hit][data-id="${ids.hostile}"]`);
    await hit.waitFor();
    assert.equal(await hit.getByTestId('hit-text').innerText(), HOSTILE);
    await hit.getByRole('button', { name: 'Open' }).click();
    await page.getByTestId('detail-content').filter({ hasText: '<script>' }).waitFor();
    assert.equal(await page.getByTestId('detail-content').textContent(), HOSTILE);
    assert.equal(await page.locator('#views script, #detail script, #views img[src=x], #detail img').count(), 0, 'no element was made from the text');
    assert.equal(await page.evaluate(() => (globalThis as any).__pwned), undefined);
    await page.locator('#detail .close').click();
  });

  test('Graph: after a relate made from the page (writes switched on), the memory shows its neighbour', async () => {
    await page.goto(`${server.baseUrl}/ui/#graph/${ids.backup}`);
    await page
      .getByTestId('graph-summary')
      .filter({ hasText: /^0 neighbours/ })
      .waitFor();
    assert.equal(await page.getByTestId('relate-submit').isDisabled(), true, 'read-only until the switch is on');
    await page.getByTestId('writes').check();
    await page.getByTestId('relate-object').fill(ids.restore!);
    await page.getByTestId('relate-predicate').fill('verified_by');
    await page.getByTestId('relate-submit').click();
    const neighbour = page.locator(`[data-testid=graph-node][data-id="${ids.restore}"]`);
    await neighbour.waitFor();
    assert.match(await page.getByTestId('graph-summary').innerText(), /^1 neighbour within 1 hop/);
    const edge = page.getByTestId('graph-edge');
    assert.equal(await edge.getAttribute('data-type'), 'Relational');
    assert.equal(await edge.getAttribute('data-weight'), '0.8');
    assert.equal(await edge.locator('text').textContent(), 'Relational 0.80');
    await neighbour.click();
    assert.match(await page.getByTestId('graph-info').innerText(), /Restores from the database backup/);
    // Two hops: the drill's own neighbours, each edge with its type and weight; the hostile memory's label is text too.
    await page.getByTestId('graph-depth').selectOption('2');
    await page.getByTestId('graph-show').click();
    await page
      .getByTestId('graph-summary')
      .filter({ hasText: /^3 neighbours within 2 hops/ })
      .waitFor();
    assert.deepEqual((await page.getByTestId('graph-edge').evaluateAll((els) => els.map((e) => (e as any).dataset.type))).sort(), ['Hierarchical', 'Relational', 'Temporal']);
    assert.equal(await page.evaluate(() => (globalThis as any).__pwned), undefined);
    await neighbour.click();
    await shot('graph');
    await page.getByTestId('graph-open').click();
    await page.getByTestId('lineage').locator('li', { hasText: 'modified' }).waitFor();
    assert.match(await page.getByTestId('detail-content').innerText(), /rehearsed every quarter/);
    assert.match(await page.getByTestId('lineage').innerText(), /created \(store\)[\s\S]*modified \(update\).*content[\s\S]*the drill moved to quarterly/);
    assert.match(await page.locator('#detail dl.meta').innerText(), /version\s+2/);
    await page.getByTestId('lineage').locator('li', { hasText: 'created' }).getByRole('button', { name: 'view this version' }).click();
    await page.getByTestId('version').filter({ hasText: 'twice a year' }).waitFor();
    await shot('memory');
    await page.locator('#detail .close').click();
  });

  test('Activity: the log as a timeline, live from the change feed; undo (a write) reverts the relate', async () => {
    await page.goto(`${server.baseUrl}/ui/#activity`);
    await page.getByTestId('writes').check();
    await page.getByTestId('live').filter({ hasText: 'live (change feed)' }).waitFor();
    const relateTx = page.locator('[data-testid=tx][data-op=relate]').first();
    await relateTx.waitFor();
    // Written elsewhere while the page is open: it appears without a reload.
    const stored = await tool('store', { content: 'A memory written by another client while the timeline is open.' });
    await page.locator(`[data-testid=tx][data-tx="${stored.body.result.tx_id}"]`).waitFor();
    await relateTx.getByTestId('undo').click();
    await page.locator('[data-testid=tx][data-op=undo]').first().waitFor();
    assert.match(await page.locator('[data-testid=tx][data-op=relate]').first().innerText(), /reverted by tx \d+/);
    await shot('activity');
    const around = await tool('get_neighborhood', { node_id: ids.backup });
    assert.equal(around.body.result.neighbors.length, 0, 'the edge is gone');
  });

  test('Jobs: a dream started from the page streams its phases from /api/jobs/{id}/events', async () => {
    await page.goto(`${server.baseUrl}/ui/#jobs`);
    await page.getByTestId('queue').filter({ hasText: 'Queue (in-process)' }).waitFor();
    await page.getByTestId('writes').check();
    await page.getByTestId('dream-start').click();
    const card = page.getByTestId('job-card').first();
    await card
      .getByTestId('job-state')
      .filter({ hasText: /^completed$/ })
      .waitFor({ timeout: 30_000 });
    const phases = await card.getByTestId('phase').allInnerTexts();
    assert.ok(phases.length >= 2, `at least two phase updates: ${JSON.stringify(phases)}`);
    assert.ok(phases.some((p) => /^nrem: /.test(p)) && phases.some((p) => /^rem: /.test(p)), JSON.stringify(phases));
    const jobId = (await card.getAttribute('data-job'))!;
    const status = await tool('get_dream_status', { dream_id: jobId });
    assert.equal(status.body.result.recent[0]?.status ?? status.body.result.running[0]?.status, 'completed');
    // The gateway recorded the job from its enqueue: followed again after its end, the stream
    // still carries every phase (a job it did not record answers only its outcome).
    const again = await openEventStream(`${server.baseUrl}/api/jobs/${encodeURIComponent(jobId)}/events`, { authorization: `Bearer ${TOKEN}` });
    const replayed: string[] = [];
    for (;;) {
      const e = await again.next();
      if (e.event === 'completed') break;
      if (e.event === 'progress') replayed.push(JSON.parse(e.data).phase);
    }
    assert.deepEqual(replayed, phases);
    await page.getByTestId('jobs-list').locator('[data-testid=job-row]').first().waitFor();
    await shot('jobs');
  });

  test('Prefer: respond-async answers a dream "accepted" at once, with the header saying so', async () => {
    const res = await fetch(`${server.baseUrl}/api/tool`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}`, prefer: 'respond-async' },
      body: JSON.stringify({ tool: 'trigger_dream', arguments: { phase: 'rem' } }),
    });
    const body = (await res.json()) as any;
    assert.equal(res.headers.get('preference-applied'), 'respond-async');
    assert.equal(body.result.status, 'accepted');
    const events = await openEventStream(`${server.baseUrl}/api/jobs/${encodeURIComponent(body.result.job_id)}/events`, { authorization: `Bearer ${TOKEN}` });
    assert.match(JSON.parse((await events.next((e) => e.event === 'progress')).data).phase, /^rem: start/);
    assert.equal(JSON.parse((await events.next((e) => e.event === 'completed')).data).result.status, 'completed');
    const waited = await tool('get_dream_status', { dream_id: body.result.job_id });
    assert.equal(waited.body.result.recent[0].status, 'completed');
  });

  test('Health: dependencies, spaces with their model ids and index sizes, the embedding backlog', async () => {
    await page.goto(`${server.baseUrl}/ui/#health`);
    const e1 = page.getByTestId('spaces').locator('tr', { hasText: 'E1' }).first();
    await e1.waitFor();
    const health = (await (await fetch(`${server.baseUrl}/healthz`)).json()) as any;
    const model = health.spaces.find((s: any) => s.id === 'E1').encoder.model_id;
    assert.match(await e1.innerText(), new RegExp(`E1\\s.*${model.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
    assert.match(await page.getByTestId('dependencies').innerText(), /store\s+up\s+pglite/);
    assert.match(await page.getByTestId('dependencies').innerText(), /embedding backlog/);
    await shot('health');
    assert.deepEqual(cspViolations, [], 'the page never breaks its own Content-Security-Policy');
    assert.deepEqual(pageErrors, []);
  });
});
