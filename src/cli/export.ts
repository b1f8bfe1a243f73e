import { createWriteStream } from 'node:fs';
import { rename } from 'node:fs/promises';
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { UsageError, type FlagSpec, type ParsedArgs } from '../cli-flags.js';
import type { Config } from '../config.js';
import type { Logger } from '../log.js';
import type { ExportSection } from '../services/export.js';
import { openBulkTarget, type BulkTarget } from './bulk-target.js';
import { BULK_SETTINGS, quietLogger, URL_FLAG } from './import.js';
import { formatDuration, Progress } from './progress.js';

const PAGE = 1_000;

export const exportCommand = {
  summary: 'write memories and edges (and with --history the transaction log) as JSONL, streaming',
  usage: 'context-graph export [--project P] [--as-of TX] [--history] [--out FILE] [--url URL] [options]',
  flags: [
    { flag: '--project', value: 'P', help: 'only this project (edges: those whose source is in it)' },
    { flag: '--as-of', value: 'TX', help: 'the store as it stood after transaction TX (default: now)', wholeNumber: true },
    { flag: '--history', value: '', help: 'append the transaction log (before/after images) up to that point', boolean: true },
    { flag: '--out', value: 'FILE', help: 'write to FILE (atomically, via FILE.partial) instead of stdout' },
    URL_FLAG,
    ...BULK_SETTINGS,
  ] satisfies FlagSpec[],
  positionals: 0,
  run: runExport,
};

async function runExport(config: Config, args: ParsedArgs, parentLogger: Logger): Promise<number> {
  const logger = quietLogger(args, parentLogger, config);
  const asOf = args.values['--as-of'] === undefined ? null : Number(args.values['--as-of']);
  if (asOf !== null && asOf < 1) {
    process.stderr.write(`context-graph export: ${new UsageError('--as-of must be a transaction id (1 or more)').message}\n`);
    return 2;
  }
  const out = args.values['--out'];
  const target = await openBulkTarget(config, logger, { url: args.values['--url'], mode: 'export' });
  try {
    const sink = out ? createWriteStream(`${out}.partial`) : process.stdout;
    const lines = await exportTo(target, sink, { projectId: args.values['--project'] ?? null, asOf, history: args.values['--history'] === 'true' });
    if (out) {
      sink.end();
      await once(sink, 'finish');
      await rename(`${out}.partial`, out);
    }
    process.stderr.write(
      `context-graph export: ${lines.memories.toLocaleString('en-US')} memories, ${lines.edges.toLocaleString('en-US')} edges${lines.transactions ? `, ${lines.transactions.toLocaleString('en-US')} transactions` : ''} as of transaction ${lines.asOf} in ${formatDuration(lines.seconds)}\n`,
    );
    return 0;
  } finally {
    await target.close();
  }
}

/**
 * Streams every section page by page; each page is written (waiting for the sink to drain) before
 * the next is read, so memory stays constant however large the store.
 */
async function exportTo(
  target: BulkTarget,
  sink: Writable,
  opts: { projectId: string | null; asOf: number | null; history: boolean },
): Promise<Record<'memories' | 'edges' | 'transactions' | 'asOf' | 'seconds', number>> {
  const progress = new Progress(process.stderr, 'export');
  const latest = await target.latestTxId();
  // Holding the data directory, this process is the only writer: the live tables are the
  // snapshot, and faster to read than the log. Otherwise pages are pinned to one transaction.
  const pinned = opts.asOf ?? (target.soleWriter ? null : latest);
  const counts = { memories: 0, edges: 0, transactions: 0 };
  const sections: ExportSection[] = opts.history ? ['memories', 'edges', 'transactions'] : ['memories', 'edges'];
  for (const section of sections) {
    let after: string | null = null;
    do {
      const page = await target.exportPage(section, { after, limit: PAGE, projectId: opts.projectId, asOfTxId: section === 'transactions' ? (opts.asOf ?? latest) : pinned });
      if (page.lines.length > 0 && !sink.write(page.lines.map((l) => JSON.stringify(l) + '\n').join(''))) await once(sink, 'drain');
      counts[section] += page.lines.length;
      progress.update({ done: 0, total: null, records: counts.memories + counts.edges + counts.transactions });
      after = page.next;
    } while (after !== null);
  }
  progress.finish();
  return { ...counts, asOf: opts.asOf ?? latest, seconds: progress.elapsedSeconds() };
}
