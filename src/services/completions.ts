import type { Db } from '../store/db.js';
import { entryIdsWithPrefix, projectIdsWithPrefix } from '../store/resource-repo.js';

/** Argument completions for prompts and resource templates: live values that start with what was typed. */
export class CompletionService {
  constructor(private readonly db: Db) {}

  entryIds(prefix: string, limit = 100): Promise<string[]> {
    return entryIdsWithPrefix(this.db, prefix, limit);
  }

  projectIds(prefix: string, limit = 100): Promise<string[]> {
    return projectIdsWithPrefix(this.db, prefix, limit);
  }
}
