import type { ProjectRow } from '../../services/resource-reads.js';
import { defineResource, isEntry } from './define.js';
import { PAGING, readPaged } from './paging.js';

const URI = 'knowledge://projects';

export const projects = defineResource({
  name: 'projects',
  title: 'Projects',
  uri: URI,
  description: `Projects that hold live entries (project_id, entries, last_updated), by project_id; items plus a projects list. ${PAGING}`,
  version: 1,
  params: () => ({}),
  canonical: () => URI,
  async read(_params, ctx) {
    const page = await readPaged(ctx, URI, { fetch: (p) => ctx.services.resourceReads.projects(p), keyOf: (row: ProjectRow) => row.project_id, itemOf: (row) => row });
    return { ...page, projects: page.items.map((p) => (p as { project_id: string }).project_id) };
  },
  covers: (_params, change) => isEntry(change),
});
