import { ERROR_REGISTRY, type ToolErrorCode, type ToolErrorPayload } from './errors.js';

/**
 * The REST gateway's codes (seed 002 §5), derived from the registry in errors.ts: the registry
 * stays the one list of failures, and this is its REST spelling. The MCP code travels on in the
 * envelope's `details`, so nothing is lost in the mapping.
 */
export const REST_ERROR_CODES = [
  'REQUIRED_FIELD_MISSING',
  'INVALID_FIELD_FORMAT',
  'ENTITY_NOT_FOUND',
  'DUPLICATE_ID',
  'PARENT_NOT_FOUND',
  'DATABASE_ERROR',
  'VALIDATION_FAILED',
  // Not in seed 002 §5, which leaves codes open ("OPTIONAL_ERROR_CODE"): failures of the envelope
  // itself and of the server, named as the seed's own v8 gateway named them.
  'TOOL_NOT_FOUND',
  'INVALID_REQUEST',
  'INTERNAL_ERROR',
] as const;
export type RestErrorCode = (typeof REST_ERROR_CODES)[number];

/** Registry code → REST code, where the HTTP status alone would not say it. */
const EXPLICIT: Partial<Record<ToolErrorCode, RestErrorCode>> = {
  MISSING_RATIONALE: 'REQUIRED_FIELD_MISSING',
  UNKNOWN_TOOL: 'TOOL_NOT_FOUND',
  PARENT_NOT_FOUND: 'PARENT_NOT_FOUND',
  CONFLICT: 'DUPLICATE_ID',
  DB_UNAVAILABLE: 'DATABASE_ERROR',
  BUSY: 'DATABASE_ERROR',
  INTERNAL: 'INTERNAL_ERROR',
  JOB_FAILED: 'INTERNAL_ERROR',
};

/** What a registry code is called on the REST gateway, and the HTTP status it answers with. */
export function restErrorOf(payload: Pick<ToolErrorPayload, 'code' | 'details'>): { code: RestErrorCode; status: number } {
  const status = ERROR_REGISTRY[payload.code].httpStatus;
  if (payload.code === 'INVALID_PARAMS') return { code: onlyMissingFields(payload.details) ? 'REQUIRED_FIELD_MISSING' : 'INVALID_FIELD_FORMAT', status };
  const explicit = EXPLICIT[payload.code];
  if (explicit) return { code: explicit, status };
  if (status === 404 || status === 410) return { code: 'ENTITY_NOT_FOUND', status };
  if (status >= 500) return { code: status === 503 ? 'DATABASE_ERROR' : 'INTERNAL_ERROR', status };
  return { code: 'VALIDATION_FAILED', status };
}

/** True when every validation issue is a field that was not given (invoke marks them `missing`). */
function onlyMissingFields(details: Record<string, unknown> | undefined): boolean {
  const issues = Array.isArray(details?.issues) ? (details.issues as Array<{ missing?: unknown }>) : [];
  return issues.length > 0 && issues.every((i) => i.missing === true);
}
