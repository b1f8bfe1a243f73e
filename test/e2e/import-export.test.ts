import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { call, childEnv, CLI, httpClient, startServe, tempDir } from '../helpers/cli.js';

const exec = promisify(execFile);

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the real CLI to completion with stdout and stderr captured (neither is a terminal). */
async function cg(args: string[], env: Record<string, string>, input?: string): Promise<CliRun> {
  const child = execFile(process.execPath, ['--enable-source-maps', CLI, ...args], { env, maxBuffer: 64 * 1024 * 1024 });
  if (input !== undefined) child.stdin!.end(input);
  else child.stdin!.end();
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number>((resolve) => child.once('exit', (c) => resolve(c ?? -1)));
  return { code, stdout, stderr };
}

/** Characters other than newline and tab below space, and DEL. */
function controlCharacters(text: string): number[] {
  return [...text].map((c) => c.charCodeAt(0)).filter((code) => (code < 32 && code !== 10 && code !== 9) || code === 127);
}

const structured = (r: unknown) => (r as { structuredContent: any }).structuredContent;

describe('context-graph export → import → export (embedded and against a running server)', () => {
  test('a store written through MCP exports, imports into an empty store and exports again identically', async () => {
    const source = await tempDir();
    const target = await tempDir();
    const files = await tempDir();
    try {
      const env = childEnv({ CONTEXT_GRAPH_DATA_DIR: source.path });
      const server = await startServe(env);
      const client = await httpClient(server.mcpUrl);
      const a = structured(await call(client, 'store', { content: 'The payments service settles card transactions nightly.', topic: 'payments', tags: ['ops'], importance: 0.8 }));
      const b = structured(await call(client, 'store', { content: 'The API gateway terminates TLS.', project_id: 'edge', memory_type: 'procedural' }));
      const gone = structured(await call(client, 'store', { content: 'A memory deleted before the export.' }));
      // A collection of its own: the same text as a default-collection memory, kept apart (dedupe is per collection).
      await call(client, 'new_collection', { name: 'runbooks', project_id: 'edge' });
      const kept = structured(await call(client, 'store', { content: 'The API gateway terminates TLS.', project_id: 'edge', collection: 'runbooks', memory_type: 'procedural' }));
      await call(client, 'update', { id: a.id, content: 'The payments service settles card transactions every night at 02:00.' });
      await call(client, 'delete', { id: gone.id });
      await call(client, 'relate', { triples: [{ subject: a.id, predicate: 'depends_on', object: 'Postgres', edge_type: 'Causal', weight: 0.9, valid_from: '2024-01-01' }] });
      await call(client, 'push', { text: 'Runbook. Restart the worker first. Then drain the queue.', source_uri: 'file:///runbook.md', chunk_size: 16 });
      await client.close();

      // The data directory is in use: export goes through the running server.
      const fromServer = await cg(['export', '--out', join(files.path, 'a.jsonl')], env);
      assert.equal(fromServer.code, 0, fromServer.stderr);
      await server.stop();
      const first = await readFile(join(files.path, 'a.jsonl'), 'utf8');
      const lines = first
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      assert.ok(lines.some((l) => l.type === 'memory' && l.id === b.id && l.project_id === 'edge' && l.memory_type === 'procedural'));
      assert.ok(lines.some((l) => l.type === 'memory' && l.id === a.id && l.version === 2 && l.importance > 0.79));
      assert.ok(lines.some((l) => l.type === 'memory' && l.kind === 'entity' && l.topic === 'Postgres'));
      assert.ok(lines.some((l) => l.type === 'edge' && l.predicate === 'depends_on' && l.edge_type === 'Causal' && l.valid_from === '2024-01-01T00:00:00.000Z'));
      assert.ok(!lines.some((l) => l.id === gone.id), 'a deleted memory is not exported');
      assert.ok(
        lines.some((l) => l.type === 'memory' && l.id === kept.id && l.collection === 'runbooks'),
        'the collection is exported',
      );

      // Stopped: export embedded (live tables), the same bytes as the server's (the log as of a transaction).
      const embedded = await cg(['export'], env);
      assert.equal(embedded.code, 0, embedded.stderr);
      assert.equal(embedded.stdout, first);

      const targetEnv = childEnv({ CONTEXT_GRAPH_DATA_DIR: target.path });
      const imported = await cg(['import', join(files.path, 'a.jsonl')], targetEnv);
      assert.equal(imported.code, 0, imported.stderr);
      assert.match(imported.stdout, new RegExp(`inserted ${lines.length}, updated 0, skipped 0, rejected 0`));
      const again = await cg(['export'], targetEnv);
      assert.equal(again.stdout, first);
      // Without ids (another system's file), the same text in another collection is not a duplicate.
      const idless = lines.filter((l) => l.type === 'memory' && l.project_id === 'edge' && l.kind === 'memory').map(({ id: _id, ...rest }) => JSON.stringify(rest));
      await writeFile(join(files.path, 'idless.jsonl'), idless.join('\n') + '\n');
      const fresh = await tempDir();
      try {
        const into = await cg(['import', join(files.path, 'idless.jsonl')], childEnv({ CONTEXT_GRAPH_DATA_DIR: fresh.path }));
        assert.equal(into.code, 0, into.stderr);
        assert.match(into.stdout, /inserted 2, updated 0, skipped 0/);
      } finally {
        await fresh.remove();
      }
    } finally {
      await Promise.all([source.remove(), target.remove(), files.remove()]);
    }
  });
});

describe('context-graph import of an MCP memory server file, into a running server', () => {
  test('every entity, observation and relation written by @modelcontextprotocol/server-memory is searchable', async () => {
    const dir = await tempDir();
    try {
      const memoryFile = join(dir.path, 'memory.jsonl');
      const memory = new Client({ name: 'test', version: '1.0.0' });
      await memory.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [join(process.cwd(), 'node_modules/@modelcontextprotocol/server-memory/dist/index.js')],
          env: { ...childEnv(), MEMORY_FILE_PATH: memoryFile },
          stderr: 'pipe',
        }),
      );
      await memory.callTool({
        name: 'create_entities',
        arguments: {
          entities: [
            { name: 'Ada Lovelace', entityType: 'person', observations: ['Wrote the first published algorithm', 'Prefers mathematics to poetry'] },
            { name: 'Analytical Engine', entityType: 'machine', observations: ['Designed by Charles Babbage'] },
          ],
        },
      });
      await memory.callTool({ name: 'create_relations', arguments: { relations: [{ from: 'Ada Lovelace', to: 'Analytical Engine', relationType: 'wrote_programs_for' }] } });
      await memory.callTool({
        name: 'add_observations',
        arguments: { observations: [{ entityName: 'Analytical Engine', contents: ['Never completed during its designers lifetime'] }] },
      });
      await memory.close();

      const env = childEnv({ CONTEXT_GRAPH_DATA_DIR: join(dir.path, 'data') });
      const server = await startServe(env);
      try {
        const run = await cg(['import', memoryFile, '--project', 'history'], env);
        assert.equal(run.code, 0, run.stderr);
        assert.match(run.stderr, /as memory-jsonl into server http/);
        // 2 entities + 4 observations + 1 relation.
        assert.match(run.stdout, /inserted 7, updated 0, skipped 0, rejected 0/);

        const client = await httpClient(server.mcpUrl);
        for (const text of [
          'Wrote the first published algorithm',
          'Prefers mathematics to poetry',
          'Designed by Charles Babbage',
          'Never completed during its designers lifetime',
        ]) {
          const r = structured(await call(client, 'search', { query: text, project_id: 'history', limit: 1 }));
          // A hit reads "topic: content", and an observation's topic is its entity.
          assert.ok(
            r.hits.some((h: { text: string }) => h.text.endsWith(`: ${text}`)),
            `${text} is searchable: ${JSON.stringify(r.hits.map((h: { text: string }) => h.text))}`,
          );
        }
        const graph = structured(await call(client, 'query_graph', { node: 'Ada Lovelace', project_id: 'history' }));
        assert.ok(graph.triples.some((t: { predicate: string; edge_type: string }) => t.predicate === 'wrote_programs_for' && t.edge_type === 'Relational'));
        assert.equal(graph.triples.filter((t: { predicate: string }) => t.predicate === 'has_observation').length, 2);
        assert.ok(graph.nodes.some((n: { kind: string; name: string }) => n.kind === 'entity' && n.name === 'Analytical Engine'));
        await client.close();

        // Importing the same file again changes nothing.
        const rerun = await cg(['import', memoryFile, '--project', 'history'], env);
        assert.match(rerun.stdout, /inserted 0, updated 0, skipped 7, rejected 0/);
      } finally {
        await server.stop();
      }
    } finally {
      await dir.remove();
    }
  });
});

describe('context-graph import (embedded, stopped data directory)', () => {
  test('bad lines are reported by line number and skipped; dry run writes nothing; a re-run resumes', async () => {
    const dir = await tempDir();
    try {
      const env = childEnv({ CONTEXT_GRAPH_DATA_DIR: join(dir.path, 'data') });
      const good = Array.from({ length: 6 }, (_, i) => JSON.stringify({ type: 'memory', content: `Fact number ${i} about the import command.` }));
      const lines = [good[0], good[1], '{not json', good[2], JSON.stringify({ type: 'memory', content: '' }), good[3], good[4], good[5]];
      const file = join(dir.path, 'in.jsonl');
      await writeFile(file, lines.join('\n') + '\n');
      await writeFile(join(dir.path, 'half.jsonl'), good.slice(0, 3).join('\n') + '\n');

      const dry = await cg(['import', file, '--dry-run'], env);
      assert.equal(dry.code, 3, 'some lines were rejected');
      assert.match(dry.stdout, /dry run: would have inserted 6, updated 0, skipped 0, rejected 2/);
      assert.match(dry.stderr, /in\.jsonl:3: not JSON/);
      assert.match(dry.stderr, /in\.jsonl:5: content/);
      assert.deepEqual(controlCharacters(dry.stderr + dry.stdout), [], 'no control characters off a terminal');
      assert.equal((await cg(['export'], env)).stdout, '', 'a dry run writes nothing');

      // An import that stopped half way, then the whole file: what is in already is skipped.
      assert.match((await cg(['import', join(dir.path, 'half.jsonl')], env)).stdout, /inserted 3, updated 0, skipped 0, rejected 0/);
      const resumed = await cg(['import', file], env);
      assert.match(resumed.stdout, /inserted 3, updated 0, skipped 3, rejected 2/);
      assert.equal((await cg(['export'], env)).stdout.trim().split('\n').length, 6);
    } finally {
      await dir.remove();
    }
  });

  test('a folder of markdown with front matter, and text from stdin, become chunks with their fields', async () => {
    const dir = await tempDir();
    try {
      const env = childEnv({ CONTEXT_GRAPH_DATA_DIR: join(dir.path, 'data') });
      const notes = join(dir.path, 'notes');
      await mkdir(join(notes, 'sub'), { recursive: true });
      await writeFile(
        join(notes, 'deploy.md'),
        '---\ntitle: Deploys\ntags: [ops, runbook]\nproject: infra\n---\n# Deploys\n\nDeploys run at nine. Roll back with the previous tag.\n',
      );
      await writeFile(join(notes, 'sub', 'people.txt'), '---\ntopic: team\ntags:\n  - people\n---\nGrace owns the scheduler.\n');
      await writeFile(join(notes, 'image.png'), 'not text');
      const run = await cg(['import', notes, '--tags', 'imported'], env);
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, /as folder into data directory/);
      const piped = await cg(['import', '-', '--project', 'stdin'], env, 'Piped text is a document too.\n');
      assert.match(piped.stdout, /inserted 1, updated 0, skipped 0, rejected 0/);

      const rows = (await cg(['export'], env)).stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l));
      const deploy = rows.find((r) => String(r.content).includes('Deploys run at nine'));
      assert.equal(deploy.kind, 'chunk');
      assert.equal(deploy.project_id, 'infra');
      assert.equal(deploy.topic, 'Deploys');
      assert.deepEqual(deploy.tags, ['ops', 'runbook', 'imported']);
      assert.match(deploy.source_uri, /^file:\/\/.*notes\/deploy\.md$/);
      assert.ok(!String(deploy.content).includes('title:'), 'front matter is not content');
      const people = rows.find((r) => String(r.content).includes('Grace'));
      assert.equal(people.topic, 'team');
      assert.deepEqual(people.tags, ['people', 'imported']);
      assert.equal(rows.find((r) => String(r.content).includes('Piped'))?.project_id, 'stdin');
      assert.equal(rows.length, 3, 'the png is not imported');
    } finally {
      await dir.remove();
    }
  });

  test('on a terminal (under script(1)) the progress bar is drawn in place', async (t) => {
    const script = await exec('sh', ['-c', 'command -v script']).catch(() => null);
    if (!script) return t.skip('script(1) is not installed');
    const dir = await tempDir();
    try {
      const file = join(dir.path, 'in.jsonl');
      await writeFile(file, Array.from({ length: 50 }, (_, i) => JSON.stringify({ type: 'memory', content: `Terminal fact ${i}.` })).join('\n'));
      const env = childEnv({ CONTEXT_GRAPH_DATA_DIR: join(dir.path, 'data') });
      const command = [process.execPath, CLI, 'import', file, '--batch', '10'].map((a) => `'${a}'`).join(' ');
      const { stdout } = await exec('script', ['-qec', command, '/dev/null'], { env, maxBuffer: 16 * 1024 * 1024 });
      assert.ok(stdout.includes('\r\u001b[2Kimport ['), 'the line is redrawn with carriage return and erase-line');
      assert.match(stdout, /import \[#+-*\] \d+% ETA \d+:\d\d/, 'a bar with percentage and ETA');
      assert.match(stdout, /inserted 50, updated 0, skipped 0, rejected 0/);
    } finally {
      await dir.remove();
    }
  });
});
