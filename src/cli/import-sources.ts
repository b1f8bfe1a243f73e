import { createReadStream } from 'node:fs';
import { open, readdir, readFile, stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { pathToFileURL } from 'node:url';

/**
 * The input formats of `context-graph import`, each read as a stream of records for the import
 * service (src/services/import-records.ts), with where each came from for error messages.
 */
export const IMPORT_FORMATS = ['jsonl', 'memory-jsonl', 'folder', 'text'] as const;
export type ImportFormat = (typeof IMPORT_FORMATS)[number];

export type SourceItem = { where: string; record: Record<string, unknown> } | { where: string; error: string };

export interface SourceReader {
  /** Bytes (or files, for a folder) in all, when known. */
  total: number | null;
  /** Bytes (or files) read so far. */
  done(): number;
  items: AsyncIterable<SourceItem>;
}

const TEXT_EXTENSIONS = new Set(['.md', '.markdown', '.mdx', '.txt', '.text', '.rst', '.org']);
// A stdin text is cut into documents of about this size (at a paragraph) so one huge paste
// never becomes one record bigger than a batch.
const STDIN_DOCUMENT_CHARS = 200_000;

/** Guesses the format from the path and, for a file, its first non-blank line. */
export async function detectFormat(path: string): Promise<ImportFormat> {
  if (path === '-') return 'text';
  if ((await stat(path)).isDirectory()) return 'folder';
  const handle = await open(path, 'r');
  try {
    const { buffer, bytesRead } = await handle.read(Buffer.alloc(64 * 1024), 0, 64 * 1024, 0);
    const first = buffer
      .subarray(0, bytesRead)
      .toString('utf8')
      .split('\n')
      .find((l) => l.trim().length > 0);
    if (!first) return 'text';
    try {
      const v = JSON.parse(first) as Record<string, unknown>;
      if ((v.type === 'entity' && 'entityType' in v) || (v.type === 'relation' && 'relationType' in v)) return 'memory-jsonl';
      if (typeof v.type === 'string') return 'jsonl';
    } catch {
      // not JSON: a text document
    }
    return TEXT_EXTENSIONS.has(extname(path).toLowerCase()) || !path.endsWith('.jsonl') ? 'text' : 'jsonl';
  } finally {
    await handle.close();
  }
}

export async function openSource(path: string, format: ImportFormat): Promise<SourceReader> {
  if (format === 'folder') return folderSource(path);
  if (format === 'text') return textSource(path);
  const input = path === '-' ? process.stdin : createReadStream(path);
  if (path === '-') process.stdin.setEncoding('utf8');
  const total = path === '-' ? null : (await stat(path)).size;
  const name = path === '-' ? 'stdin' : path;
  const counter = { read: 0 };
  return { total, done: () => counter.read, items: jsonLines(input, name, counter, format === 'memory-jsonl' ? fromServerMemory : (v) => [v]) };
}

async function* jsonLines(
  input: NodeJS.ReadableStream,
  name: string,
  counter: { read: number },
  convert: (v: Record<string, unknown>) => Array<Record<string, unknown>> | string,
): AsyncIterable<SourceItem> {
  let lineNo = 0;
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    lineNo++;
    // Counted from the lines: a 'data' listener of our own would start the stream before readline reads it.
    counter.read += Buffer.byteLength(line) + 1;
    if (line.trim().length === 0) continue;
    const where = `${name}:${lineNo}`;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (err) {
      yield { where, error: `not JSON (${(err as Error).message})` };
      continue;
    }
    if (!value || typeof value !== 'object' || Array.isArray(value)) {
      yield { where, error: 'not a JSON object' };
      continue;
    }
    const records = convert(value as Record<string, unknown>);
    if (typeof records === 'string') yield { where, error: records };
    else for (const record of records) yield { where, record };
  }
}

/**
 * The MCP memory server's memory.jsonl: an entity line becomes the entity and one memory per
 * observation (linked to it), a relation line a Relational edge named by its relationType.
 */
export function fromServerMemory(v: Record<string, unknown>): Array<Record<string, unknown>> | string {
  if (v.type === 'entity') {
    if (typeof v.name !== 'string') return 'entity without a name';
    const observations: unknown[] = Array.isArray(v.observations) ? (v.observations as unknown[]) : [];
    const entityType = typeof v.entityType === 'string' && v.entityType.trim() ? v.entityType : undefined;
    return [
      { type: 'entity', name: v.name, ...(entityType ? { entity_type: entityType } : {}) },
      ...observations.map((o) => ({ type: 'memory', content: o, observation_of: v.name, ...(entityType ? { tags: [entityType] } : {}) })),
    ];
  }
  if (v.type === 'relation') return [{ type: 'relation', from: v.from, to: v.to, relation_type: v.relationType }];
  return `unknown line type ${JSON.stringify(v.type)} (expected "entity" or "relation")`;
}

/** Splits `---` YAML front matter (a flat subset: scalars and lists) from the body. */
export function frontMatter(text: string): { fields: Record<string, string | string[]>; body: string } {
  const m = /^---\r?\n([\s\S]*?)\r?\n---\r?\n?/.exec(text);
  if (!m) return { fields: {}, body: text };
  const fields: Record<string, string | string[]> = {};
  let listKey: string | null = null;
  const unquote = (s: string) => s.trim().replace(/^(["'])(.*)\1$/, '$2');
  for (const line of m[1]!.split(/\r?\n/)) {
    const item = /^\s*-\s+(.*)$/.exec(line);
    if (item && listKey) {
      (fields[listKey] as string[]).push(unquote(item[1]!));
      continue;
    }
    const kv = /^([A-Za-z_][\w-]*)\s*:\s*(.*)$/.exec(line);
    if (!kv) continue;
    const [, key, value] = kv as unknown as [string, string, string];
    listKey = null;
    if (value.trim() === '') {
      fields[key] = [];
      listKey = key;
    } else if (/^\[.*\]$/.test(value.trim())) {
      fields[key] = value.trim().slice(1, -1).split(',').map(unquote).filter(Boolean);
    } else fields[key] = unquote(value);
  }
  return { fields, body: text.slice(m[0].length) };
}

/** A document record from a text and its front matter: tags, topic (or title), project, memory type. */
export function documentRecord(text: string, sourceUri: string | undefined): Record<string, unknown> {
  const { fields, body } = frontMatter(text);
  const one = (...keys: string[]) => keys.map((k) => fields[k]).find((v): v is string => typeof v === 'string' && v.length > 0);
  const tags = fields.tags ?? fields.keywords;
  return {
    type: 'document',
    text: body,
    ...(sourceUri ? { source_uri: sourceUri } : {}),
    ...(one('topic', 'title') ? { topic: one('topic', 'title') } : {}),
    ...(tags
      ? {
          tags: Array.isArray(tags)
            ? tags
            : tags
                .split(',')
                .map((t) => t.trim())
                .filter(Boolean),
        }
      : {}),
    ...(one('project', 'project_id') ? { project_id: one('project', 'project_id') } : {}),
    ...(one('memory_type', 'type') ? { memory_type: one('memory_type', 'type') } : {}),
  };
}

async function listTextFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of (await readdir(dir, { withFileTypes: true })).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (entry.name.startsWith('.')) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listTextFiles(path)));
    else if (entry.isFile() && TEXT_EXTENSIONS.has(extname(entry.name).toLowerCase())) out.push(path);
  }
  return out;
}

async function folderSource(dir: string): Promise<SourceReader> {
  const files = await listTextFiles(resolve(dir));
  let done = 0;
  async function* items(): AsyncIterable<SourceItem> {
    for (const file of files) {
      const text = await readFile(file, 'utf8');
      done++;
      if (text.trim().length === 0) yield { where: file, error: 'empty file' };
      else yield { where: file, record: documentRecord(text, pathToFileURL(file).href) };
    }
  }
  return { total: files.length, done: () => done, items: items() };
}

async function textSource(path: string): Promise<SourceReader> {
  if (path !== '-') {
    const file = resolve(path);
    const size = (await stat(file)).size;
    let done = 0;
    async function* one(): AsyncIterable<SourceItem> {
      const text = await readFile(file, 'utf8');
      done = size;
      yield text.trim() ? { where: file, record: documentRecord(text, pathToFileURL(file).href) } : { where: file, error: 'empty file' };
    }
    return { total: size, done: () => done, items: one() };
  }
  let read = 0;
  async function* stdin(): AsyncIterable<SourceItem> {
    let buffer = '';
    let part = 0;
    // Decoded by the stream, so a character split across two chunks is not mangled.
    process.stdin.setEncoding('utf8');
    const flush = function* (text: string): Iterable<SourceItem> {
      if (text.trim()) yield { where: `stdin part ${++part}`, record: { type: 'document', text } };
    };
    for await (const chunk of process.stdin) {
      const s = typeof chunk === 'string' ? chunk : (chunk as Buffer).toString('utf8');
      read += Buffer.byteLength(s);
      buffer += s;
      while (buffer.length > STDIN_DOCUMENT_CHARS) {
        const cut = buffer.lastIndexOf('\n\n', STDIN_DOCUMENT_CHARS);
        const at = cut > 0 ? cut + 2 : STDIN_DOCUMENT_CHARS;
        yield* flush(buffer.slice(0, at));
        buffer = buffer.slice(at);
      }
    }
    yield* flush(buffer);
  }
  return { total: null, done: () => read, items: stdin() };
}
