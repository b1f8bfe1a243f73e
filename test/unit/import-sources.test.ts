import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { detectFormat, documentRecord, fromServerMemory, frontMatter } from '../../src/cli/import-sources.js';
import { formatDuration, Progress } from '../../src/cli/progress.js';

test('front matter: scalars, inline and block lists; the body is what follows', () => {
  const { fields, body } = frontMatter('---\ntitle: "Deploys"\ntags: [ops, runbook]\nkeywords:\n  - a\n  - b\nproject: infra\n---\nBody text.\n');
  assert.deepEqual(fields, { title: 'Deploys', tags: ['ops', 'runbook'], keywords: ['a', 'b'], project: 'infra' });
  assert.equal(body, 'Body text.\n');
  assert.deepEqual(frontMatter('No front matter.'), { fields: {}, body: 'No front matter.' });
});

test('a document record maps front matter to topic, tags, project and memory type', () => {
  assert.deepEqual(documentRecord('---\ntitle: T\ntags: x, y\nproject_id: p\nmemory_type: procedural\n---\nText', 'file:///a.md'), {
    type: 'document',
    text: 'Text',
    source_uri: 'file:///a.md',
    topic: 'T',
    tags: ['x', 'y'],
    project_id: 'p',
    memory_type: 'procedural',
  });
});

test('MCP memory server lines: an entity with its observations, a relation, anything else refused', () => {
  assert.deepEqual(fromServerMemory({ type: 'entity', name: 'Ada', entityType: 'person', observations: ['Likes tea'] }), [
    { type: 'entity', name: 'Ada', entity_type: 'person' },
    { type: 'memory', content: 'Likes tea', observation_of: 'Ada', tags: ['person'] },
  ]);
  assert.deepEqual(fromServerMemory({ type: 'relation', from: 'Ada', to: 'Engine', relationType: 'works_on' }), [
    { type: 'relation', from: 'Ada', to: 'Engine', relation_type: 'works_on' },
  ]);
  assert.match(fromServerMemory({ type: 'other' }) as string, /unknown line type/);
});

test('formats are detected from the first line, the extension or the folder', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'cg-detect-'));
  try {
    const write = async (name: string, text: string) => (await writeFile(join(dir, name), text), join(dir, name));
    assert.equal(await detectFormat(await write('a.jsonl', '\n{"type":"memory","content":"x"}\n')), 'jsonl');
    assert.equal(await detectFormat(await write('memory.json', '{"type":"entity","name":"A","entityType":"t","observations":[]}\n')), 'memory-jsonl');
    assert.equal(await detectFormat(await write('notes.md', '# Title\n')), 'text');
    assert.equal(await detectFormat(dir), 'folder');
    assert.equal(await detectFormat('-'), 'text');
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

function sink(isTTY: boolean): { isTTY: boolean; columns: number; text: string; write(s: string): boolean } {
  return {
    isTTY,
    columns: 120,
    text: '',
    write(s: string) {
      this.text += s;
      return true;
    },
  };
}

test('progress off a terminal: plain lines, no control characters; on a terminal: a bar redrawn in place', () => {
  const counts = { inserted: 5, updated: 0, skipped: 1, rejected: 2 };
  const plain = sink(false);
  const p = new Progress(plain, 'import');
  p.update({ done: 50, total: 100, records: 8, counts });
  p.note('rejected x:3: not JSON');
  p.finish();
  assert.match(plain.text, /^import 50% ETA \d+:\d\d 8 records .*inserted 5, updated 0, skipped 1, rejected 2\n/);
  assert.deepEqual(
    [...plain.text].filter((c) => c.charCodeAt(0) < 32 && c !== '\n'),
    [],
  );

  const tty = sink(true);
  const bar = new Progress(tty, 'import');
  bar.update({ done: 50, total: 100, records: 8, counts });
  bar.finish();
  assert.ok(tty.text.startsWith('\r\u001b[2Kimport [############------------] 50%'), JSON.stringify(tty.text));
  assert.equal(formatDuration(3725), '1:02:05');
  assert.equal(formatDuration(Number.NaN), '--:--');
});
