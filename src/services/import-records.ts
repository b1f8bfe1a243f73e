import { z } from 'zod';
import { EDGE_TYPES } from '../store/edges-repo.js';
import { COLLECTION_NAME, DEFAULT_COLLECTION } from './collections.js';

/**
 * What `import` takes, one record at a time, whatever the file format was: every parser (our
 * JSONL, the MCP memory server's memory.jsonl, a folder of documents, stdin) turns its input into
 * these, so the service validates, deduplicates and writes one shape.
 */

const ULID = /^[0-9A-HJKMNP-TV-Z]{26}$/;
const nodeId = z.string().regex(ULID, 'must be a ULID');
const instant = z.iso.datetime({ offset: true }).nullable().optional();
const project = z.string().trim().min(1).max(128);
const tags = z.array(z.string().trim().min(1).max(64)).max(32);
const unit = z.number().min(0).max(1);
const metadata = z.record(z.string(), z.unknown());
const entityName = z.string().trim().min(1).max(256);

/** One node: a memory, a chunk or an entity, as `export` writes it (id and times optional). */
export const memoryRecord = z.object({
  type: z.literal('memory'),
  id: nodeId.optional(),
  kind: z.enum(['memory', 'chunk', 'entity']).default('memory'),
  project_id: project.default('default'),
  /** The project's namespace (seed 004); a name not declared in the target project exists through its memories. */
  collection: z.string().trim().min(1).max(COLLECTION_NAME.max).regex(COLLECTION_NAME.pattern, COLLECTION_NAME.rule).default(DEFAULT_COLLECTION),
  memory_type: z.enum(['episodic', 'semantic', 'procedural']).default('semantic'),
  topic: z.string().trim().min(1).max(256).nullable().optional(),
  content: z
    .string()
    .min(1)
    .max(2_000_000)
    .refine((s) => s.trim().length > 0, 'must not be blank'),
  tags: tags.default([]),
  source_uri: z.string().min(1).max(2_048).nullable().optional(),
  importance: unit.default(0.5),
  confidence: unit.default(1),
  metadata: metadata.default({}),
  valid_from: instant,
  valid_to: instant,
  created_at: instant,
  updated_at: instant,
  version: z.number().int().positive().optional(),
  /** The MCP memory server's observations: the entity (by name) this memory is about. */
  observation_of: entityName.optional(),
});

/** One edge between node ids, as `export` writes it. */
export const edgeRecord = z.object({
  type: z.literal('edge'),
  id: nodeId.optional(),
  src: nodeId,
  dst: nodeId,
  edge_type: z.enum(EDGE_TYPES).default('Relational'),
  predicate: z.string().trim().min(1).max(128),
  weight: unit.default(1),
  confidence: unit.default(1),
  metadata: metadata.default({}),
  valid_from: instant,
  valid_to: instant,
  created_at: instant,
});

/** A named entity (found case-insensitively in its project, as `relate` does, or created). */
export const entityRecord = z.object({
  type: z.literal('entity'),
  name: entityName,
  entity_type: z.string().trim().min(1).max(128).optional(),
  project_id: project.default('default'),
});

/** A relation between two named entities: a Relational edge whose predicate is the relation. */
export const relationRecord = z.object({
  type: z.literal('relation'),
  from: entityName,
  to: entityName,
  relation_type: z.string().trim().min(1).max(128),
  project_id: project.default('default'),
});

/** A document, chunked like `push`; with a source_uri, a changed chunk replaces the old one in place. */
export const documentRecord = z.object({
  type: z.literal('document'),
  text: z.string().min(1).max(2_000_000),
  source_uri: z.string().min(1).max(2_048).optional(),
  topic: z.string().trim().min(1).max(256).optional(),
  tags: tags.default([]),
  project_id: project.default('default'),
  memory_type: z.enum(['episodic', 'semantic', 'procedural']).default('semantic'),
  chunk_size: z.number().int().min(16).max(2_048).default(256),
});

/** A transaction of an `export --history`: read back for reference, never replayed. */
export const transactionRecord = z.object({ type: z.literal('transaction') }).passthrough();

export const importRecord = z.discriminatedUnion('type', [memoryRecord, edgeRecord, entityRecord, relationRecord, documentRecord, transactionRecord]);

export type ImportRecord = z.output<typeof importRecord>;
export type MemoryRecord = z.output<typeof memoryRecord>;
export type EdgeRecordIn = z.output<typeof edgeRecord>;
export type EntityRecord = z.output<typeof entityRecord>;
export type RelationRecord = z.output<typeof relationRecord>;
export type DocumentRecord = z.output<typeof documentRecord>;

/** Overrides applied to every record of an import (`--project`, `--tags`). */
export interface ImportOverrides {
  projectId?: string | undefined;
  tags?: readonly string[] | undefined;
}

/** Validates one raw record and applies the overrides; a reason on failure. */
export function parseRecord(raw: unknown, overrides: ImportOverrides): { record: ImportRecord } | { reason: string } {
  const parsed = importRecord.safeParse(raw);
  if (!parsed.success) {
    return { reason: parsed.error.issues.map((i) => `${i.path.length ? i.path.map(String).join('.') : 'record'}: ${i.message}`).join('; ') };
  }
  const record = parsed.data;
  if (record.type === 'transaction' || record.type === 'edge') return { record };
  if (overrides.projectId) record.project_id = overrides.projectId;
  if (overrides.tags?.length && (record.type === 'memory' || record.type === 'document')) {
    record.tags = [...new Set([...record.tags, ...overrides.tags])].slice(0, 32);
  }
  return { record };
}

/** A record refused, by its index in the batch. */
export interface Rejection {
  index: number;
  reason: string;
}

/** Names of the parts of a count, as the progress line and the summary show them. */
export interface ImportCounts {
  inserted: number;
  updated: number;
  skipped: number;
  rejected: number;
}

export const ZERO_COUNTS: ImportCounts = { inserted: 0, updated: 0, skipped: 0, rejected: 0 };

export function addCounts(a: ImportCounts, b: ImportCounts): ImportCounts {
  return { inserted: a.inserted + b.inserted, updated: a.updated + b.updated, skipped: a.skipped + b.skipped, rejected: a.rejected + b.rejected };
}
