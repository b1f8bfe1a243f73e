import type { TagRow } from '../../services/resource-reads.js';
import { defineResource, isEntry } from './define.js';
import { PAGING, readPaged } from './paging.js';

const tagsUri = (projectId: string) => `knowledge://projects/${encodeURIComponent(projectId)}/tags`;

export const projectTags = defineResource({
  name: 'project-tags',
  title: 'Tags of a project',
  template: 'knowledge://projects/{project_id}/tags',
  description: `Distinct tags of a project's live entries (tag, entries), by tag; items plus project_id and a tags list. Percent-encode a '/' in project_id. ${PAGING}`,
  version: 1,
  params: (vars): { projectId: string } => ({ projectId: vars.project_id! }),
  canonical: ({ projectId }) => tagsUri(projectId),
  async read(params, ctx) {
    const page = await readPaged(ctx, tagsUri(params.projectId), {
      fetch: (p) => ctx.services.resourceReads.projectTags(params.projectId, p),
      keyOf: (row: TagRow) => row.tag,
      itemOf: (row) => row,
    });
    return { ...page, project_id: params.projectId, tags: page.items.map((t) => (t as { tag: string }).tag) };
  },
  covers: ({ projectId }, change) => isEntry(change) && change.project_id === projectId,
  complete: { project_id: (value, { services }) => services.resourceReads.projectIdsWithPrefix(value, 100) },
});
