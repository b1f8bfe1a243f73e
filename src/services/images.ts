/** How an entity changed between two images. */
export type ChangeType = 'create' | 'update' | 'delete' | 'restore';

/** Comparing logged before/after images: what undo's conflict check and the history listing need. */
export type Image = Record<string, unknown>;

export function state(img: Image | null): 'absent' | 'deleted' | 'live' {
  if (img === null) return 'absent';
  return img.deleted_at !== null && img.deleted_at !== undefined ? 'deleted' : 'live';
}

export function changeTypeOf(before: 'absent' | 'deleted' | 'live', after: 'absent' | 'deleted' | 'live'): ChangeType {
  if (before === 'absent' && after !== 'absent') return 'create';
  if (after === 'absent' || (after === 'deleted' && before === 'live')) return 'delete';
  if (before !== 'live' && after === 'live') return 'restore';
  return 'update';
}

function canonical(v: unknown): string {
  if (v === null || typeof v !== 'object') return JSON.stringify(v) ?? 'null';
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  const keys = Object.keys(v).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonical((v as Record<string, unknown>)[k])}`).join(',')}}`;
}

/**
 * Two images of one entity are the same state when they agree on every column both carry
 * (writers may log slightly different column sets; null and absent differ).
 */
export function sameImage(a: Image | null, b: Image | null): boolean {
  if (a === null || b === null) return a === b;
  for (const k of Object.keys(a)) {
    if (!(k in b)) continue;
    if (canonical(a[k]) !== canonical(b[k])) return false;
  }
  return true;
}
