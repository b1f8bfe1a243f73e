import { setTimeout as sleep } from 'node:timers/promises';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createApp, type App } from '../app.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { ExportPage, ExportPageQuery, ExportSection } from '../services/export.js';
import type { ImportBatchOptions, ImportBatchResult } from '../services/import.js';
import { acquireDirLock, describeHolder, type DirLock } from '../store/dir-lock.js';
import { VERSION } from '../version.js';

/**
 * Where `import` / `export` read and write. The same service does the work either way:
 * - embedded: this process opens the store itself, holding the data directory's lock (or, with
 *   DATABASE_URL, beside other writers, which Postgres serialises);
 * - remote: a server already owns the data (its URL from the lock file, or `--url`), and the
 *   batches go to it as MCP calls (`import_records`, `export_page` of the `bulk` toolset), so
 *   there is never a second writer on a PGlite directory.
 */
export interface BulkTarget {
  readonly description: string;
  /** True when no other process can write meanwhile (this one holds the data directory). */
  readonly soleWriter: boolean;
  importBatch(records: readonly unknown[], opts: ImportBatchOptions): Promise<ImportBatchResult>;
  exportPage(section: ExportSection, q: ExportPageQuery): Promise<ExportPage>;
  latestTxId(): Promise<number>;
  /**
   * Resolves once default search finds every imported memory (the embed jobs' first pass is
   * written and in the indexes); false when this process cannot tell.
   */
  waitSearchable(): Promise<boolean>;
  /** Resolves once every space holds every imported memory (the second pass); false when this process cannot tell. */
  waitEmbedded(): Promise<boolean>;
  /**
   * Queues the fingerprint (UTL) jobs the import deferred, and resolves once they and every other
   * job of this process are done (so closing loses none); false when a server computes them.
   */
  waitFingerprints(onWaiting?: (jobsLeft: number) => void): Promise<boolean>;
  close(): Promise<void>;
}

export async function openBulkTarget(config: Config, logger: Logger, opts: { url?: string | undefined; mode: 'import' | 'export' }): Promise<BulkTarget> {
  if (opts.url) return connectRemote(opts.url);
  let lock: DirLock | null = null;
  if (!config.databaseUrl) {
    const result = await acquireDirLock(config.dataDir, { mode: opts.mode });
    if ('heldBy' in result) {
      if (result.heldBy.url) return connectRemote(result.heldBy.url);
      throw new Error(`${describeHolder(result)}; stop it or point --url at a server`);
    }
    lock = result;
    // A short-lived process bound by PGlite's throughput: V8's optimised WebAssembly pays here
    // (a pipelined 10k import: main thread 8.3-8.6 -> 7.1-7.5 s of CPU), and the ~57 MiB it
    // keeps resident, which `serve` saves by default, is gone when the command ends.
    process.env.CONTEXT_GRAPH_PGLITE_TIER_UP ??= 'on';
  }
  try {
    return embedded(await createApp(config, logger), lock);
  } catch (err) {
    await lock?.release();
    throw err;
  }
}

function embedded(app: App, lock: DirLock | null): BulkTarget {
  return {
    description: lock ? `data directory ${lock.dataDir}` : `database ${app.db.driver}`,
    soleWriter: lock !== null,
    // Pipelined: this process runs the embed jobs, so the import is searchable once they are done.
    importBatch: (records, opts) => app.services.bulkImport.importBatch(records, { actor: 'cli-import', pipelined: app.consumesJobs, searchFirst: true, ...opts }),
    exportPage: (section, q) => app.services.bulkExport.page(section, q),
    latestTxId: () => app.services.bulkExport.latestTxId(),
    async waitSearchable() {
      if (!app.consumesJobs) return false;
      await app.services.bulkImport.searchable();
      await app.indexSync.pull();
      return true;
    },
    async waitEmbedded() {
      if (!app.consumesJobs) return false;
      // The second pass of every batch. A failed job leaves its nodes owed in the outbox, which
      // embeds them again (here, or at the next start); entities that automatic edges name later
      // owe theirs too, and are waited for with the other background jobs.
      await app.services.bulkImport.embedRest();
      await app.indexSync.pull();
      return true;
    },
    async waitFingerprints(onWaiting) {
      if (!app.consumesJobs) return false;
      await app.services.bulkImport.scheduleDeferredFingerprints();
      for (;;) {
        const c = await app.queue.counts();
        if (c.waiting + c.active === 0) break;
        onWaiting?.(c.waiting + c.active);
        await sleep(50);
      }
      return true;
    },
    async close() {
      await app.close();
      await lock?.release();
    },
  };
}

// A large batch on a busy server may take a while; the SDK's default of 60 s is for chat calls.
const CALL_TIMEOUT_MS = 10 * 60_000;

async function connectRemote(url: string): Promise<BulkTarget> {
  const client = new Client({ name: 'context-graph-cli', version: VERSION });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  const call = async <T>(name: string, args: Record<string, unknown>): Promise<T> => {
    const r = await client.callTool({ name, arguments: { ...args, format: 'markdown' } }, undefined, { timeout: CALL_TIMEOUT_MS });
    if (r.isError) {
      const text = (r.content as Array<{ type: string; text?: string }>).find((b) => b.type === 'text')?.text ?? 'unknown error';
      throw new Error(`${name} failed on ${url}: ${text}`);
    }
    return r.structuredContent as T;
  };
  await call('toolsets', { enable: ['bulk'] });
  return {
    description: `server ${url}`,
    soleWriter: false,
    async importBatch(records, opts) {
      const r = await call<{
        tx_id: number;
        inserted: number;
        updated: number;
        skipped: number;
        rejected: number;
        rejections: ImportBatchResult['rejections'];
        embedding: { job_ids: string[] };
      }>('import_records', {
        records,
        ...(opts.projectId ? { project_id: opts.projectId } : {}),
        ...(opts.tags?.length ? { tags: opts.tags } : {}),
        dry_run: opts.dryRun ?? false,
      });
      return { txId: r.tx_id, inserted: r.inserted, updated: r.updated, skipped: r.skipped, rejected: r.rejected, rejections: r.rejections, jobIds: r.embedding.job_ids };
    },
    async exportPage(section, q) {
      const r = await call<{ lines: ExportPage['lines']; next: string | null }>('export_page', {
        section,
        after: q.after,
        limit: q.limit,
        ...(q.projectId ? { project_id: q.projectId } : {}),
        ...(q.asOfTxId ? { as_of_tx_id: q.asOfTxId } : {}),
      });
      return { lines: r.lines, next: r.next };
    },
    async latestTxId() {
      return (await call<{ latest_tx_id: number }>('export_page', { section: 'memories', limit: 1 })).latest_tx_id;
    },
    waitSearchable: () => Promise.resolve(false),
    waitEmbedded: () => Promise.resolve(false),
    waitFingerprints: () => Promise.resolve(false),
    async close() {
      await client.close();
    },
  };
}
