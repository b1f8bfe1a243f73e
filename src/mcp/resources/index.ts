import type { ResourceDef } from './define.js';
import { entries } from './entries.js';
import { entry } from './entry.js';
import { graphTriples } from './graph-triples.js';
import { health } from './health.js';
import { historyTransactions } from './history-transactions.js';
import { memoryTypes } from './memory-types.js';
import { payloadSchema, payloadSchemaIndex } from './payload-schemas.js';
import { projectTags } from './project-tags.js';
import { projects } from './projects.js';
import { job, jobs } from './jobs.js';

/**
 * Every resource, in listing order. A URI is read by the first resource whose path matches, so
 * a fixed path comes before a template that could also match it. A new resource is one file
 * here plus one line in this list.
 */
export const RESOURCES: readonly ResourceDef[] = [
  entries,
  graphTriples,
  historyTransactions,
  memoryTypes,
  projects,
  health,
  payloadSchemaIndex,
  entry,
  projectTags,
  payloadSchema,
  jobs,
  job,
];
