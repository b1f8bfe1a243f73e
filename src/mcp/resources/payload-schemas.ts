import { JsonRpcError } from '../../errors.js';
import { jsonSchemaOf } from '../../tools/kit/schema.js';
import { PAYLOAD_SCHEMAS, schemaUri } from '../contract.js';
import { defineResource } from './define.js';
import { singlePage } from './paging.js';

const INDEX_URI = 'knowledge://schemas';

/** The index of payload kinds; the schemas themselves are not listed one by one, so resources/list stays short as tools grow. */
export const payloadSchemaIndex = defineResource({
  name: 'schemas',
  title: 'Payload schemas',
  uri: INDEX_URI,
  description:
    'Every structured payload kind a tool answers with (kind, uri): items plus a kinds list. Each uri, knowledge://schemas/{kind}, reads the full JSON Schema that tools/list outputSchema refers to.',
  version: 1,
  params: () => ({}),
  canonical: () => INDEX_URI,
  read(_params, ctx) {
    const kinds = [...PAYLOAD_SCHEMAS.keys()];
    return singlePage(
      ctx,
      INDEX_URI,
      kinds.map((kind) => ({ kind, uri: schemaUri(kind) })),
      { kinds },
    );
  },
});

const published = new Map<string, Record<string, unknown>>();

/**
 * The JSON Schema of one payload kind, as tools/list refers to it (outputSchema description).
 * `$id` is the URI it was read from, so a validator caches it under that name.
 */
function payloadJsonSchema(kind: string): Record<string, unknown> {
  const schema = PAYLOAD_SCHEMAS.get(kind);
  if (!schema) throw JsonRpcError.of('RESOURCE_NOT_FOUND', `Resource not found: no payload kind "${kind}". ${INDEX_URI} lists the kinds.`, { uri: schemaUri(kind) });
  let json = published.get(kind);
  if (!json) {
    json = { $id: schemaUri(kind), title: kind, ...jsonSchemaOf(schema, 'output') };
    published.set(kind, json);
  }
  return json;
}

/** Answers the JSON Schema itself, not a page, so that a client hands it to a validator as it comes. */
export const payloadSchema = defineResource({
  name: 'payload-schema',
  title: 'Schema of a payload kind',
  template: 'knowledge://schemas/{kind}',
  description:
    'The full JSON Schema of one payload kind (e.g. entries:v1), as the outputSchema of tools/list refers to it; the answer is the schema itself, not a page. kind completes from the known kinds.',
  version: 1,
  params: (vars) => ({ kind: vars.kind! }),
  canonical: ({ kind }) => schemaUri(kind),
  read: async ({ kind }) => payloadJsonSchema(kind),
  complete: { kind: async (value) => [...PAYLOAD_SCHEMAS.keys()].filter((k) => k.toLowerCase().startsWith(value.toLowerCase())) },
});
