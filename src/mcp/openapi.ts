import { ERROR_REGISTRY, TOOL_ERROR_CODES } from '../errors.js';
import { REST_ERROR_CODES, restErrorOf } from '../errors-rest.js';
import { TOOLSET_OF } from '../tools/index.js';
import { outputJsonSchema } from '../tools/kit/invoke.js';
import { VERSION } from '../version.js';
import { compiledTools } from './toolsets.js';

/**
 * The OpenAPI 3.1 document of the REST gateway (`GET /api/openapi.json`), generated from the
 * same zod schemas that validate the calls: one request schema per tool (its name, seed 002's
 * hyphenated name, and its published input schema) and one payload schema per tool.
 */

type Json = Record<string, unknown>;

/** seed 002's spelling of an MCP tool name: `phase_create` → `phase-create`. */
export function restName(name: string): string {
  return name.replace(/_/g, '-');
}

/** Registry code → REST code and HTTP status, as the gateway answers them (docs and tests read it). */
export function restErrorTable(): Array<{ code: string; rest_code: string; status: number }> {
  return TOOL_ERROR_CODES.map((code) => {
    const r = restErrorOf({ code, details: code === 'INVALID_PARAMS' ? { issues: [{ missing: false }] } : undefined });
    return { code, rest_code: code === 'INVALID_PARAMS' ? 'INVALID_FIELD_FORMAT / REQUIRED_FIELD_MISSING' : r.code, status: r.status };
  });
}

let cached: Json | null = null;

export function openApiDocument(): Json {
  if (cached) return cached;
  const schemas: Json = {};
  const requests: Json[] = [];
  for (const tool of compiledTools().values()) {
    const name = tool.def.name;
    const names = name === restName(name) ? [name] : [name, restName(name)];
    const { $defs: _inputDefs, ...input } = tool.inputSchema as Json & { $defs?: unknown };
    schemas[`${name}.request`] = {
      type: 'object',
      title: tool.def.title,
      description: tool.def.description,
      required: ['tool'],
      additionalProperties: false,
      properties: { tool: { type: 'string', enum: names }, arguments: { ...input, ...(_inputDefs ? { $defs: _inputDefs } : {}) } },
      'x-toolset': TOOLSET_OF.get(name),
    };
    schemas[`${name}.result`] = outputJsonSchema(tool.def);
    requests.push({ $ref: `#/components/schemas/${name}.request` });
  }
  schemas['Success'] = {
    type: 'object',
    required: ['success', 'result'],
    properties: {
      success: { const: true },
      result: {
        type: 'object',
        required: ['content', 'kind'],
        description: "The tool's structured payload (its `<tool>.result` schema, or needsInput:v1) with `content` beside it.",
        properties: {
          content: { type: 'array', items: { type: 'object', required: ['type', 'text'], properties: { type: { const: 'text' }, text: { type: 'string' } } } },
          kind: { type: 'string' },
        },
      },
    },
  };
  schemas['Error'] = {
    type: 'object',
    required: ['success', 'error', 'error_code'],
    properties: {
      success: { const: false },
      error: { type: 'string', description: 'A message meant for people, naming the field or entity.' },
      error_code: { type: 'string', enum: [...REST_ERROR_CODES] },
      details: {
        type: 'object',
        description: 'The MCP error: registry `code`, `rpc_code`, `retryable`, `hint`, and what the failure names (issues, ids, suggestions).',
        properties: { code: { type: 'string', enum: [...TOOL_ERROR_CODES] }, rpc_code: { type: 'integer' }, retryable: { type: 'boolean' }, hint: { type: 'string' } },
      },
    },
  };
  const statuses = [...new Set([400, 404, 405, 413, 415, ...Object.values(ERROR_REGISTRY).map((e) => e.httpStatus)])].sort((a, b) => a - b);
  const errorResponse = { description: 'Failure envelope', content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } } };
  cached = {
    openapi: '3.1.0',
    info: {
      title: 'context-graph REST gateway',
      version: VERSION,
      description:
        'Every MCP tool of context-graph through one endpoint (seed 002). Send {"tool": name, "arguments": {...}}; tool names are the MCP ones or their hyphenated form.',
    },
    paths: {
      '/api/tool': {
        post: {
          operationId: 'callTool',
          summary: 'Call one tool',
          requestBody: { required: true, content: { 'application/json': { schema: { oneOf: requests } } } },
          responses: {
            200: { description: 'Success envelope', content: { 'application/json': { schema: { $ref: '#/components/schemas/Success' } } } },
            ...Object.fromEntries(statuses.map((s) => [String(s), errorResponse])),
          },
        },
      },
    },
    components: { schemas, securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'Required when the server is started with a token.' } } },
    'x-error-codes': restErrorTable(),
  };
  return cached;
}
