import * as z from 'zod';
import type { EntityView, Patch } from '../../services/projects.js';
import { KIND_SPECS, textOf, type ProjectKind } from '../../services/project-kinds.js';
import { defineTool, DESTRUCTIVE, READ_ONLY, WRITE, type AnyTool } from '../kit/define.js';
import { quoteMemory, renderCards } from '../kit/markdown.js';
import { afterField, ENTITY_SCHEMAS, entityIdField, expectedVersionField, listLimitField } from './schemas.js';

/**
 * The create/list/get/update/delete tools of one family of seed 002's model, from one
 * declaration: the five families differ only in their fields, filters and examples. MCP names
 * are snake_case (`phase_create`); the REST gateway also answers seed 002's `phase-create`.
 */
export interface Family {
  kind: ProjectKind;
  plural: string;
  /** One line: what an entity of this family is. */
  about: string;
  createFields: z.ZodRawShape;
  /** Fields update may replace (all optional); absent: no update tool. */
  updateFields?: z.ZodRawShape;
  /** A list filter on one field (the parent, or a category). */
  listFilter?: { field: string; schema: z.ZodType };
  examples: { create: string; createAdvanced: string; updateField?: string };
  hasDelete: boolean;
}

const idKey = (kind: ProjectKind) => `${kind}_id`;
const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);

export function entityOutput(f: Family, suffix: string, extra: z.ZodRawShape) {
  return z.object({ kind: z.literal(`${f.kind}${suffix}:v1`), ...extra });
}

/** A compact card of an entity: its id, version, title and the fields it holds. */
export function entityCard(kind: ProjectKind, e: EntityView): string {
  const spec = KIND_SPECS[kind];
  const skip = new Set(['id', idKey(kind), spec.titleField, 'created_at', 'updated_at', 'version', 'tags']);
  const lines = [`### ${e.id} (version ${e.version})`, quoteMemory(textOf(e[spec.titleField]), 400)];
  for (const [k, v] of Object.entries(e)) {
    if (skip.has(k) || v === undefined || v === null) continue;
    lines.push(`- **${k}**: ${typeof v === 'string' ? v.slice(0, 300) : JSON.stringify(v).slice(0, 300)}`);
  }
  if (e.tags.length) lines.push(`- **tags**: ${e.tags.join(', ')}`);
  return lines.join('\n');
}

export function familyTools(f: Family): AnyTool[] {
  const label = KIND_SPECS[f.kind].label;
  const entity = ENTITY_SCHEMAS[f.kind];
  const key = idKey(f.kind);
  const idArg = { [key]: entityIdField.describe(`Id of the ${f.kind} (server-generated, e.g. from ${f.kind}_create or ${f.kind}_list).`) };
  const example = `{"${key}": "${f.kind}_1_${f.kind === 'work' ? 'setup_postgresql_database' : 'build_mvp_for_kg4epic'}"}`;
  const tools: AnyTool[] = [];

  tools.push(
    defineTool({
      name: `${f.kind}_create`,
      title: `Create a ${f.kind}`,
      description: `Create a ${f.kind} (${f.about}); the server assigns its readable id, timestamps and version 1. Text fields are searchable; structured fields are stored as JSON and returned intact. REST: \`${f.kind}-create\`.
When to use: recording a new ${f.kind} of the project-knowledge model; every create is an undoable transaction.
Example: ${f.examples.create}
Advanced: ${f.examples.createAdvanced}`,
      annotations: WRITE,
      input: z.strictObject(f.createFields),
      output: entityOutput(f, 'Created', { [key]: z.string(), tx_id: z.number().int(), [f.kind]: entity }),
      async handler(args, ctx) {
        const { entity: e, txId } = await ctx.services.projects.create(f.kind, args, ctx.actor);
        return { kind: `${f.kind}Created:v1`, [key]: e.id, tx_id: txId, [f.kind]: e } as never;
      },
      render: (r: Record<string, unknown>) => `${label} created successfully with ID: ${String(r[key])} (version 1, transaction ${String(r.tx_id)}).`,
    }),
  );

  const filter = f.listFilter ? { [f.listFilter.field]: f.listFilter.schema } : {};
  tools.push(
    defineTool({
      name: `${f.kind}_list`,
      title: `List ${f.plural}`,
      description: `List live ${f.plural}, oldest first${f.listFilter ? `, optionally only those with a given \`${f.listFilter.field}\`` : ''}; page with \`after\` (the last id). REST: \`${f.kind}-list\`.
When to use: to see what ${f.plural} exist before getting, updating or linking one.
Example: {"limit": 10}
Advanced: ${f.listFilter ? `{"${f.listFilter.field}": "${f.listFilter.field === 'category' ? 'error-handling' : `${f.listFilter.field.replace('_id', '')}_1_build_mvp_for_kg4epic`}", "limit": 20}` : `{"limit": 20, "after": "${f.kind}_3_add_tests"}`}`,
      annotations: READ_ONLY,
      input: z.strictObject({ ...filter, limit: listLimitField, after: afterField }),
      output: entityOutput(f, 's', { count: z.number().int(), [f.plural]: z.array(entity), next_cursor: z.string().nullable() }),
      async handler(args, ctx) {
        const a = args as Record<string, unknown> & { limit: number; after?: string };
        const parentId = f.listFilter ? (a[f.listFilter.field] as string | undefined) : undefined;
        const items = await ctx.services.projects.list(f.kind, { limit: a.limit, afterId: a.after, parentId, filterKey: f.listFilter?.field });
        return { kind: `${f.kind}s:v1`, count: items.length, [f.plural]: items, next_cursor: items.length === a.limit ? items.at(-1)!.id : null } as never;
      },
      render: (r: Record<string, unknown>) => {
        const items = r[f.plural] as EntityView[];
        return renderCards(f.kind, `Found ${items.length} ${f.plural}:`, items, (e, i) => `${i + 1}. ${e.id}: ${textOf(e[KIND_SPECS[f.kind].titleField]).slice(0, 200)}`);
      },
    }),
  );

  tools.push(
    defineTool({
      name: `${f.kind}_get`,
      title: `Get a ${f.kind}`,
      description: `One ${f.kind} with every field${f.kind === 'path' ? ' and its works in order' : ''}. An unknown id is NODE_NOT_FOUND (REST ENTITY_NOT_FOUND) naming the closest ids. REST: \`${f.kind}-get\`.
When to use: before updating (read \`version\` for expected_version) or to show a ${f.kind} in full.
Example: ${example}
Advanced: {"${key}": "${f.kind}_2_add_search", "format": "json"}`,
      annotations: READ_ONLY,
      input: z.strictObject(idArg),
      output: entityOutput(f, '', { [f.kind]: entity }),
      async handler(args, ctx) {
        return { kind: `${f.kind}:v1`, [f.kind]: await ctx.services.projects.get(f.kind, (args as Record<string, string>)[key]!) } as never;
      },
      render: (r: Record<string, unknown>) => renderCards(f.kind, `${label}:`, [r[f.kind] as EntityView], (e) => entityCard(f.kind, e)),
    }),
  );

  if (f.updateFields) tools.push(updateTool(f, { ...idArg, ...f.updateFields, expected_version: expectedVersionField }, example));

  if (f.hasDelete) {
    tools.push(
      defineTool({
        name: `${f.kind}_delete`,
        title: `Delete a ${f.kind}`,
        description: `Soft-delete a ${f.kind} and its links in one transaction (\`undo\` brings it back). Refused (VALIDATION_FAILED) while ${f.kind === 'work' ? 'a path includes it' : `other entities belong to it`}. REST: \`${f.kind}-delete\`.
When to use: the ${f.kind} was created by mistake or is abandoned.
Example: ${example}
Advanced: {"${key}": "${f.kind}_4_old_attempt", "format": "json"}`,
        annotations: DESTRUCTIVE,
        input: z.strictObject(idArg),
        output: entityOutput(f, 'Deleted', { [key]: z.string(), tx_id: z.number().int(), deleted: z.literal(true) }),
        async handler(args, ctx) {
          const r = await ctx.services.projects.remove(f.kind, (args as Record<string, string>)[key]!, ctx.actor);
          return { kind: `${f.kind}Deleted:v1`, [key]: r.id, tx_id: r.txId, deleted: true } as never;
        },
        render: (r: Record<string, unknown>) => `${label} ${String(r[key])} deleted (transaction ${String(r.tx_id)}; \`undo\` restores it).`,
      }),
    );
  }
  return tools;
}

/** Output of every tool that changes an existing entity: its id, new version and full state. */
export function updatedOutput(f: Pick<Family, 'kind'>, suffix = 'Updated') {
  const key = idKey(f.kind);
  return z.object({ kind: z.literal(`${f.kind}${suffix}:v1`), [key]: z.string(), tx_id: z.number().int(), version: z.number().int(), [f.kind]: ENTITY_SCHEMAS[f.kind] });
}

export function updatedPayload(kind: ProjectKind, suffix: string, r: { entity: EntityView; txId: number }): never {
  return { kind: `${kind}${suffix}:v1`, [idKey(kind)]: r.entity.id, tx_id: r.txId, version: r.entity.version, [kind]: r.entity } as never;
}

export function renderUpdated(kind: ProjectKind, what: string) {
  return (r: Record<string, unknown>) => `${cap(kind)} ${String(r[idKey(kind)])} ${what}: now version ${String(r.version)} (transaction ${String(r.tx_id)}).`;
}

function updateTool(f: Family, shape: z.ZodRawShape, example: string): AnyTool {
  const key = idKey(f.kind);
  return defineTool({
    name: `${f.kind}_update`,
    title: `Update a ${f.kind}`,
    description: `Replace fields of a ${f.kind}; fields not given stay, \`null\` removes an optional one; version + 1. With \`expected_version\`, a concurrent change is refused. REST: \`${f.kind}-update\`.
When to use: the ${f.kind} changed (scope, metrics, status…); \`undo\` reverts it.
Example: ${example.slice(0, -1)}, "${f.examples.updateField ?? 'what'}": "Revised: build the MVP with search first"}
Advanced: ${example.slice(0, -1)}, "tags": ["reviewed"], "expected_version": 2}`,
    annotations: WRITE,
    input: z.strictObject(shape),
    output: updatedOutput(f),
    async handler(args, ctx) {
      const { [key]: id, expected_version, ...changes } = args as Record<string, unknown> & { expected_version?: number };
      const patch: Patch = (fields) => {
        const next = { ...fields };
        for (const [k, v] of Object.entries(changes)) {
          if (v === undefined) continue;
          if (v === null) delete next[k];
          else next[k] = v;
        }
        return next;
      };
      return updatedPayload(f.kind, 'Updated', await ctx.services.projects.update(f.kind, id as string, patch, { expectedVersion: expected_version, actor: ctx.actor }));
    },
    render: renderUpdated(f.kind, 'updated'),
  });
}
