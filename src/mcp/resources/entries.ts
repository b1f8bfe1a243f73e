import type { NodeRecord } from '../../services/reads.js';
import { entrySchema, toEntry } from '../../tools/kit/entry.js';
import { defineResource, isEntry } from './define.js';
import { PAGING, readPaged } from './paging.js';
import { filterParam } from './uri.js';

interface EntriesFilter {
  projectId: string | null;
  topic: string | null;
}

/** The resource with its filters, without paging: the `resource_uri` of its pages. */
function entriesUri({ projectId, topic }: EntriesFilter): string {
  const q = new URLSearchParams();
  if (projectId) q.set('project_id', projectId);
  if (topic) q.set('topic', topic);
  const qs = q.toString();
  return `knowledge://entries${qs ? `?${qs}` : ''}`;
}

export const entries = defineResource({
  name: 'entries',
  title: 'Memory entries',
  uri: 'knowledge://entries',
  template: 'knowledge://entries{?project_id,topic,limit,cursor}',
  description: `Every live memory entry (as query shows them: id, topic, content, project_id, memory_type, tags, confidence, importance, valid_from, valid_to, recorded_at, updated_at, version), by id. Filters: project_id, topic (the whole topic in any case, as query's topic filter). ${PAGING} Subscribe for change notifications; knowledge://entries?project_id=x narrows them to one project. project_id completes from the known projects.`,
  version: 1,
  item: entrySchema,
  params: (_vars, query): EntriesFilter => ({ projectId: filterParam(query, 'project_id'), topic: filterParam(query, 'topic') }),
  canonical: entriesUri,
  read(filter, ctx) {
    return readPaged(ctx, entriesUri(filter), {
      fetch: (page) => ctx.services.resourceReads.entries(page, filter),
      keyOf: (node: NodeRecord) => node.id,
      itemOf: toEntry,
    });
  },
  // Change events carry no topic: a topic-filtered subscription hears of every entry change (of
  // its project, when it has one) and the client re-reads.
  covers: ({ projectId }, change) => isEntry(change) && (projectId === null || change.project_id === projectId),
  complete: { project_id: (value, { services }) => services.resourceReads.projectIdsWithPrefix(value, 100) },
});
