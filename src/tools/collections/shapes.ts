import * as z from 'zod';
import type { CollectionFigures } from '../../services/collections.js';
import { inlineText } from '../kit/markdown.js';

/** One collection as the collection tools show it: what it is and what it holds, from its live entries. */
export const collectionSchema = z.object({
  project_id: z.string(),
  name: z.string(),
  declared: z.boolean().describe("true: made by new_collection; false: the project's implicit 'default', or a collection only its entries keep."),
  id: z.string().nullable().describe('The declaration id (history lists it); null when not declared.'),
  description: z.string().nullable(),
  created_at: z.string().nullable(),
  memories: z.number().int().describe('Live entries other than chunks.'),
  chunks: z.number().int().describe('Live chunks written by push.'),
  documents: z.number().int().describe('Distinct pushed documents (by source_uri, else by the text).'),
  bytes: z.number().int().describe('UTF-8 bytes of the live entries.'),
  last_write_at: z.string().nullable(),
});
export type CollectionView = z.output<typeof collectionSchema>;

export function toCollectionView(c: CollectionFigures): CollectionView {
  return {
    project_id: c.project_id,
    name: c.name,
    declared: c.id !== null,
    id: c.id,
    description: c.description,
    created_at: c.created_at ? new Date(c.created_at).toISOString() : null,
    memories: c.memories,
    chunks: c.chunks,
    documents: c.documents,
    bytes: c.bytes,
    last_write_at: c.last_write_at ? new Date(c.last_write_at).toISOString() : null,
  };
}

export function collectionLine(c: CollectionView): string {
  const what = `${c.memories} memor${c.memories === 1 ? 'y' : 'ies'}, ${c.chunks} chunk${c.chunks === 1 ? '' : 's'} from ${c.documents} document${c.documents === 1 ? '' : 's'}, ${c.bytes} bytes`;
  return `\`${c.project_id}\`/\`${c.name}\`: ${what}${c.description ? ` · ${inlineText(c.description)}` : ''}${c.declared ? '' : ' (not declared)'}`;
}
