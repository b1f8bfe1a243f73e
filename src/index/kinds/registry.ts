import type { IndexKind } from '../../embed/types.js';
import type { BuiltIndexKind, IndexKindImpl } from '../space-index.js';
import { denseKind } from './dense.js';
import { multiKind } from './multi.js';
import { sparseKind } from './sparse.js';

/**
 * Every index kind the index thread can hold, one file each. A space declares its kind
 * (src/embed/spaces/); a new kind is one file here plus one line below.
 */
export const INDEX_KINDS: Readonly<Record<BuiltIndexKind, IndexKindImpl>> = Object.freeze({
  dense: denseKind,
  sparse: sparseKind,
  multi: multiKind,
});

export function indexKind(kind: IndexKind): IndexKindImpl {
  const impl = (INDEX_KINDS as Partial<Record<IndexKind, IndexKindImpl>>)[kind];
  if (!impl) throw new Error(`index kind ${JSON.stringify(kind)} has no implementation (known: ${Object.keys(INDEX_KINDS).join(', ')})`);
  return impl;
}
