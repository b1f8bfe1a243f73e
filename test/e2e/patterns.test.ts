import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toolPayloadSchema } from '../../src/mcp/contract.js';
import { call, type startServe, useEmbeddedServer } from '../helpers/cli.js';
import { api, ok } from '../helpers/rest.js';

/**
 * seed 003's "Testing" section for search_patterns and get_pattern over MCP: the JSON block is
 * found by parsing (not by mimeType), validated with the union of every payload schema, and
 * markdown-only answers carry the markers and no JSON block.
 */

/** seed 003: scan from the end, parse, validate with the discriminated union. */
function extractStructuredPayload(result: CallToolResult): any {
  for (const block of [...result.content].reverse()) {
    if (block.type !== 'text') continue;
    try {
      const validated = toolPayloadSchema.safeParse(JSON.parse(block.text));
      if (validated.success) return validated.data;
    } catch {
      // not JSON
    }
  }
  throw new Error('No structured JSON content block found (or schema mismatch).');
}

function texts(result: CallToolResult): string[] {
  return result.content.flatMap((b) => (b.type === 'text' ? [b.text] : []));
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

const count = (text: string, marker: string) => text.split(marker).length - 1;

describe('seed 003 pattern tools over the project model patterns', () => {
  let server: Awaited<ReturnType<typeof startServe>>;
  let client: Client;
  useEmbeddedServer((f) => ({ server, client } = f));
  let retry: string;

  before(async () => {
    const create = async (args: Record<string, unknown>) => ok(await api(server.baseUrl, 'pattern-create', args)).pattern_id as string;
    retry = await create({
      name: 'Retry with backoff',
      description: 'Retry transient errors with exponential backoff and jitter so a flaky dependency recovers without a thundering herd.',
      category: 'error-handling',
      difficulty: 'intermediate',
      use_when: 'Calls to dependencies that fail transiently',
      avoid_when: 'Errors that are not transient',
      examples: [{ code: 'await retry(fetchUser, { times: 3 })', language: 'typescript', description: 'Three attempts' }],
      tags: ['resilience'],
    });
    await create({
      name: 'Error handling with match',
      description: 'Handle each error case explicitly with a match on its tag.',
      category: 'error-handling',
      difficulty: 'beginner',
    });
    await create({ name: 'Service layer', description: 'Put dependencies behind a service so handlers stay testable.', category: 'service', difficulty: 'advanced' });
    // 21 patterns sharing a word: a search for it without filters is too broad (> 20).
    for (let i = 0; i < 21; i++) {
      await create({
        name: `Widget recipe ${i}`,
        description: `Widget composition recipe number ${i}.`,
        category: i % 3 ? 'ui' : 'layout',
        difficulty: i % 2 ? 'beginner' : 'advanced',
      });
    }
  });

  describe('search_patterns', () => {
    test('format json: one JSON block, patternSearchResults:v1, first-K card ids, markers and distributions agree', async () => {
      const result = await call(client, 'search_patterns', { q: 'error', format: 'json' });
      assert.equal(result.content.length, 1);
      const s = extractStructuredPayload(result);
      assert.equal(s.kind, 'patternSearchResults:v1');
      assert.deepEqual(s.query, { q: 'error', format: 'json' }, 'undefined keys omitted, format echoed');
      assert.ok(s.patterns.some((p: { id: string }) => p.id === retry));
      assert.equal(s.metadata.totalCount, s.patterns.length, 'patterns holds every match');
      assert.deepEqual(
        s.metadata.renderedCardIds,
        s.patterns.slice(0, s.metadata.renderedCards).map((p: { id: string }) => p.id),
      );
      assert.equal(s.metadata.contractMarkers.cards, s.metadata.renderedCardIds.length);
      assert.equal(s.metadata.contractMarkers.index, 1);
      const categories: Record<string, number> = {};
      for (const p of s.patterns) categories[p.category] = (categories[p.category] ?? 0) + 1;
      assert.deepEqual(s.metadata.categories, categories);
      for (const p of s.patterns) assert.deepEqual(Object.keys(p).sort(), ['category', 'description', 'difficulty', 'id', 'tags', 'title'], 'card summary only');
      assert.deepEqual(result.structuredContent, s);
    });

    test('format markdown (default): markers counted as rendered, no JSON block, no narration', async () => {
      const result = await call(client, 'search_patterns', { q: 'error handling', limit: 2 });
      const md = texts(result);
      assert.ok(
        md.every((t) => !isJson(t)),
        'no JSON block in markdown mode',
      );
      const all = md.join('\n');
      const meta = (result.structuredContent as any).metadata;
      assert.equal(count(all, '<!-- kind:pattern-index:v1 -->'), meta.contractMarkers.index);
      assert.equal(count(all, '<!-- kind:pattern-card:v1 -->'), meta.renderedCards);
      assert.equal(meta.renderedCards, Math.min(2, meta.totalCount));
      assert.doesNotMatch(all, /\b(I will|Let me|I'll|calling|tool call)\b/i);
    });

    test('format both: markdown first, the JSON block last', async () => {
      const result = await call(client, 'search_patterns', { q: 'service', format: 'both' });
      const t = texts(result);
      assert.ok(!isJson(t[0]!));
      assert.equal(extractStructuredPayload(result).kind, 'patternSearchResults:v1');
      assert.ok(isJson(t.at(-1)!));
    });

    test('an empty query answers needsInput for q, with suggestions from the stored patterns', async () => {
      for (const args of [{ q: '' }, { q: '   ' }, {}]) {
        const s = extractStructuredPayload(await call(client, 'search_patterns', { ...args, format: 'json' }));
        assert.equal(s.kind, 'needsInput:v1');
        assert.equal(s.type, 'elicitation');
        assert.ok(s.needsInput.fields.includes('q'));
        assert.ok(s.needsInput.suggestions.q.length > 0);
      }
    });

    test('more than 20 matches without filters asks to narrow by category or difficulty, from the actual distribution', async () => {
      const s = extractStructuredPayload(await call(client, 'search_patterns', { q: 'widget', limit: 50, format: 'json' }));
      assert.equal(s.kind, 'needsInput:v1');
      assert.deepEqual(s.needsInput.fields, ['category', 'difficulty']);
      assert.deepEqual(s.needsInput.suggestions.category.sort(), ['layout', 'ui']);
      assert.deepEqual(s.needsInput.suggestions.difficulty.sort(), ['advanced', 'beginner']);
      assert.ok(s.options.every((o: { field: string }) => o.field === 'category' || o.field === 'difficulty'));
      const narrowed = extractStructuredPayload(await call(client, 'search_patterns', { q: 'widget', category: 'layout', format: 'json' }));
      assert.equal(narrowed.kind, 'patternSearchResults:v1');
      assert.equal(narrowed.metadata.totalCount, 7);
      assert.deepEqual(narrowed.metadata.categories, { layout: 7 });
    });
  });

  describe('get_pattern', () => {
    test('format json: patternDetails:v1 with summary, description, guidance, sections, examples and provenance', async () => {
      const d = extractStructuredPayload(await call(client, 'get_pattern', { id: retry, format: 'json' }));
      assert.equal(d.kind, 'patternDetails:v1');
      assert.equal(d.id, retry);
      assert.ok(d.summary.length <= 200 && d.description.startsWith('Retry transient errors'));
      assert.deepEqual(d.useGuidance, { useWhen: 'Calls to dependencies that fail transiently', avoidWhen: 'Errors that are not transient' });
      assert.deepEqual(d.examples, [{ code: 'await retry(fetchUser, { times: 3 })', language: 'typescript', description: 'Three attempts' }]);
      assert.deepEqual(
        d.sections.map((s: { type: string }) => s.type),
        ['description', 'guidance', 'example'],
      );
      assert.match(d.provenance.timestamp, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
      assert.doesNotMatch(JSON.stringify(d.provenance), /\/(tmp|home|work|Users)\//, 'no local paths');
    });

    test('format markdown: one card marker, no JSON block', async () => {
      const t = texts(await call(client, 'get_pattern', { id: retry }));
      assert.ok(t.every((x) => !isJson(x)));
      assert.equal(count(t.join('\n'), '<!-- kind:pattern-card:v1 -->'), 1);
    });

    test('an unknown id answers needsInput with at most 5 close ids; an empty id asks for one', async () => {
      const s = extractStructuredPayload(await call(client, 'get_pattern', { id: 'retry-backof', format: 'json' }));
      assert.equal(s.kind, 'needsInput:v1');
      assert.deepEqual(s.needsInput.fields, ['id']);
      assert.ok(s.needsInput.suggestions.id.length <= 5);
      assert.equal(s.needsInput.suggestions.id[0], retry);
      assert.deepEqual(
        s.options.map((o: { value: string }) => o.value),
        s.needsInput.suggestions.id,
      );
      const empty = extractStructuredPayload(await call(client, 'get_pattern', { id: '', format: 'json' }));
      assert.equal(empty.kind, 'needsInput:v1');
      assert.deepEqual(empty.needsInput.suggestions.id, []);
    });
  });
});
