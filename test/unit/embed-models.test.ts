import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileUrl, findModel, KNOWN_MODELS, listModels, modelStatus, pullModel, type ModelSpec, type PullProgress } from '../../src/embed/models.js';

const sha = (b: Uint8Array | string) => createHash('sha256').update(b).digest('hex');

// Served files, by URL path; tests swap contents to simulate a changed or corrupt upstream.
const served = new Map<string, Buffer>();
const requests: string[] = [];
let server: Server;
let baseUrl: string;
let root: string;

const REV = 'a'.repeat(40);
const modelBytes = Buffer.from(Array.from({ length: 3 * 1024 * 1024 + 17 }, (_, i) => (i * 31 + 7) & 0xff));
const tokenizerBytes = Buffer.from(JSON.stringify({ model: { type: 'WordPiece', vocab: { '[PAD]': 0 } } }));

function spec(name: string, overrides: Partial<Record<'model' | 'tokenizer', { sha256: string | null; size: number | null }>> = {}): ModelSpec {
  return {
    name,
    description: 'fixture',
    repo: 'fixture-org/' + name,
    revision: REV,
    dim: 32,
    license: 'MIT',
    files: [
      { remotePath: 'onnx/model.onnx', localName: 'model.onnx', sha256: sha(modelBytes), size: modelBytes.length, ...overrides.model },
      { remotePath: 'tokenizer.json', localName: 'tokenizer.json', sha256: sha(tokenizerBytes), size: tokenizerBytes.length, ...overrides.tokenizer },
    ],
  };
}

function serve(s: ModelSpec, model: Buffer = modelBytes, tokenizer: Buffer = tokenizerBytes) {
  served.set(`/${s.repo}/resolve/${REV}/onnx/model.onnx`, model);
  served.set(`/${s.repo}/resolve/${REV}/tokenizer.json`, tokenizer);
}

before(async () => {
  root = await mkdtemp(join(tmpdir(), 'cg-embed-models-'));
  server = createServer((req, res) => {
    requests.push(req.url!);
    const body = served.get(req.url!);
    if (!body) return void res.writeHead(404).end('not found');
    res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': body.length });
    // Several writes so the client sees a real stream of chunks.
    for (let i = 0; i < body.length; i += 256 * 1024) res.write(body.subarray(i, i + 256 * 1024));
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

after(async () => {
  await new Promise((resolve) => server.close(resolve));
  await rm(root, { recursive: true, force: true });
});

test('the table pins all-MiniLM-L6-v2 to a commit with a sha256 and size per file', () => {
  const m = findModel('all-MiniLM-L6-v2');
  assert.ok(m);
  assert.equal(findModel('sentence-transformers/all-minilm-l6-v2'), m);
  assert.deepEqual(
    listModels().map((x) => x.name),
    KNOWN_MODELS.map((x) => x.name),
  );
  assert.match(m.revision, /^[0-9a-f]{40}$/);
  assert.equal(m.dim, 384);
  assert.deepEqual(m.files.map((f) => f.localName).slice(0, 2), ['model.onnx', 'tokenizer.json']);
  for (const f of m.files) {
    assert.ok(f.sha256 === null || /^[0-9a-f]{64}$/.test(f.sha256), f.localName);
    assert.ok(f.size === null || f.size > 0);
  }
  assert.equal(fileUrl(m, m.files[0]!), 'https://huggingface.co/sentence-transformers/all-MiniLM-L6-v2/resolve/c9745ed1d9f207416be6d2e6f8de32d1f16199bf/onnx/model.onnx');
});

test('pull: verified files land in <root>/<name>, with a manifest, no .part files, and progress reports', async () => {
  const s = spec('good');
  serve(s);
  const progress: PullProgress[] = [];
  const result = await pullModel(s, root, { baseUrl, onProgress: (p) => progress.push(p) });
  assert.equal(result.dir, join(root, 'good'));
  assert.deepEqual(
    result.files.map((f) => [f.name, f.status, f.verified]),
    [
      ['model.onnx', 'downloaded', true],
      ['tokenizer.json', 'downloaded', true],
    ],
  );
  assert.deepEqual(await readFile(join(result.dir, 'model.onnx')), modelBytes);
  assert.deepEqual(await readFile(join(result.dir, 'tokenizer.json')), tokenizerBytes);
  assert.deepEqual((await readdir(result.dir)).sort(), ['manifest.json', 'model.onnx', 'tokenizer.json']);
  const manifest = JSON.parse(await readFile(join(result.dir, 'manifest.json'), 'utf8'));
  assert.equal(manifest.revision, REV);
  assert.equal(manifest.files['model.onnx'].sha256, sha(modelBytes));
  assert.ok(progress.some((p) => p.phase === 'downloading' && p.file === 'model.onnx' && p.total === modelBytes.length));
  assert.deepEqual(
    progress.filter((p) => p.phase === 'done').map((p) => p.file),
    ['model.onnx', 'tokenizer.json'],
  );

  const status = await modelStatus(result.dir);
  assert.equal(status.ready, true);
  assert.deepEqual(status.missing, []);
  assert.equal(status.model, 'good');
  assert.equal(status.revision, REV);
});

test('re-pull skips files already present with the right hash (no requests)', async () => {
  const s = spec('good');
  serve(s);
  const before = requests.length;
  const result = await pullModel(s, root, { baseUrl });
  assert.deepEqual(
    result.files.map((f) => f.status),
    ['skipped', 'skipped'],
  );
  assert.equal(requests.length, before);
});

test('a hash mismatch is rejected and leaves nothing behind', async () => {
  const s = spec('bad', { model: { sha256: 'f'.repeat(64), size: modelBytes.length } });
  serve(s);
  await assert.rejects(pullModel(s, root, { baseUrl }), (err: Error) => {
    assert.equal(err.name, 'ModelDownloadError');
    assert.match(err.message, /sha256 mismatch for model\.onnx/);
    assert.match(err.message, /expected f{64}, got [0-9a-f]{64}/);
    assert.match(err.message, /partial file was deleted/);
    return true;
  });
  assert.deepEqual(await readdir(join(root, 'bad')), []);
});

test('a size mismatch and an HTTP error are rejected and leave nothing behind', async () => {
  const s = spec('short', { model: { sha256: null, size: modelBytes.length + 1 } });
  serve(s);
  await assert.rejects(pullModel(s, root, { baseUrl }), /model\.onnx .* has \d+ bytes, expected \d+/);
  assert.deepEqual(await readdir(join(root, 'short')), []);

  const missing = spec('missing');
  await assert.rejects(pullModel(missing, root, { baseUrl }), /HTTP 404/);
  assert.deepEqual(await readdir(join(root, 'missing')), []);
  await assert.rejects(pullModel('no-such-model', root, { baseUrl }), /unknown model "no-such-model"; known models: all-MiniLM-L6-v2/);
});

test('without a pinned sha256: checked by size, the computed hash is recorded and enforced later', async () => {
  const s = spec('unpinned', { tokenizer: { sha256: null, size: tokenizerBytes.length } });
  serve(s);
  const first = await pullModel(s, root, { baseUrl });
  assert.deepEqual(
    first.files.map((f) => [f.name, f.status, f.verified]),
    [
      ['model.onnx', 'downloaded', true],
      ['tokenizer.json', 'downloaded', false],
    ],
  );
  const manifest = JSON.parse(await readFile(join(first.dir, 'manifest.json'), 'utf8'));
  assert.equal(manifest.files['tokenizer.json'].sha256, sha(tokenizerBytes));
  assert.equal(manifest.files['tokenizer.json'].verified, false);

  const again = await pullModel(s, root, { baseUrl });
  assert.deepEqual(
    again.files.map((f) => f.status),
    ['skipped', 'skipped'],
  );

  // Upstream changes under the same revision (same size): the recorded hash catches it.
  await rm(join(first.dir, 'tokenizer.json'));
  const changed = Buffer.from(tokenizerBytes);
  changed[changed.length - 2] = changed[changed.length - 2]! ^ 1;
  serve(s, modelBytes, changed);
  await assert.rejects(pullModel(s, root, { baseUrl }), /sha256 mismatch for tokenizer\.json.*recorded in .*manifest\.json/);
  assert.ok(!(await readdir(first.dir)).some((f) => f.endsWith('.part')));
});

test('modelStatus lists what is missing', async () => {
  const status = await modelStatus(join(root, 'nothing-here'));
  assert.equal(status.ready, false);
  assert.deepEqual(status.missing, ['model.onnx', 'tokenizer.json']);
  assert.deepEqual(status.present, []);
  assert.equal(status.model, null);
});
