import { settingFlags, UsageError, type FlagSpec, type ParsedArgs } from '../cli-flags.js';
import type { Config } from '../config.js';
import { createLogger, type Logger } from '../log.js';
import { addCounts, MAX_IMPORT_BATCH, ZERO_COUNTS, type ImportCounts } from '../services/import.js';
import { openBulkTarget, type BulkTarget } from './bulk-target.js';
import { detectFormat, IMPORT_FORMATS, openSource, type ImportFormat } from './import-sources.js';
import { describeCounts, formatDuration, Progress } from './progress.js';

const DEFAULT_BATCH = 500;
// A batch is also cut at this many characters, so a folder of large documents makes requests a
// server accepts and transactions that stay short.
const BATCH_CHARS = 4_000_000;

export const BULK_SETTINGS = settingFlags(['dataDir', 'databaseUrl', 'redisUrl', 'queueName', 'modelDir', 'logLevel']);
export const URL_FLAG: FlagSpec = { flag: '--url', value: 'URL', help: "a running server's MCP endpoint (default: the one holding the data directory, if any)" };

export const importCommand = {
  summary: 'import memories from our JSONL, an MCP memory server memory.jsonl, a folder of markdown/text, or stdin',
  usage: 'context-graph import <file | folder | -> [--format F] [--project P] [--tags a,b] [--dry-run] [--batch N] [--url URL] [options]',
  flags: [
    { flag: '--format', value: 'F', help: `force the input format: ${IMPORT_FORMATS.join(' | ')} (default: detected)` },
    { flag: '--project', value: 'P', help: 'put everything in this project' },
    { flag: '--tags', value: 'a,b', help: 'tags added to every memory and document' },
    { flag: '--dry-run', value: '', help: 'count what would be inserted, updated, skipped and rejected; write nothing', boolean: true },
    { flag: '--batch', value: 'N', help: `records per transaction, 1 to ${MAX_IMPORT_BATCH} (default ${DEFAULT_BATCH})`, wholeNumber: true },
    URL_FLAG,
    ...BULK_SETTINGS,
  ] satisfies FlagSpec[],
  positionals: 1,
  run: runImport,
};

interface Options {
  path: string;
  format: ImportFormat | null;
  projectId: string | undefined;
  tags: string[];
  dryRun: boolean;
  batch: number;
}

function options(args: ParsedArgs): Options {
  const [path] = args.positionals;
  if (!path) throw new UsageError('import needs a file, a folder or - for stdin');
  const format = args.values['--format'];
  if (format !== undefined && !(IMPORT_FORMATS as readonly string[]).includes(format)) throw new UsageError(`--format must be one of ${IMPORT_FORMATS.join(', ')}`);
  const batch = Number(args.values['--batch'] ?? DEFAULT_BATCH);
  if (batch < 1 || batch > MAX_IMPORT_BATCH) throw new UsageError(`--batch must be 1 to ${MAX_IMPORT_BATCH}`);
  const tags = (args.values['--tags'] ?? '')
    .split(',')
    .map((t) => t.trim())
    .filter(Boolean);
  return { path, format: (format as ImportFormat | undefined) ?? null, projectId: args.values['--project'], tags, dryRun: args.values['--dry-run'] === 'true', batch };
}

/** The progress line is the output of these commands: start-up logs only at warn unless asked for. */
export function quietLogger(args: ParsedArgs, logger: Logger, config: Config): Logger {
  return args.values['--log-level'] !== undefined || process.env.LOG_LEVEL !== undefined ? logger : createLogger(config.logLevel === 'info' ? 'warn' : config.logLevel);
}

async function runImport(config: Config, args: ParsedArgs, parentLogger: Logger): Promise<number> {
  const logger = quietLogger(args, parentLogger, config);
  let opts: Options;
  try {
    opts = options(args);
  } catch (err) {
    process.stderr.write(`context-graph import: ${(err as Error).message}\n`);
    return 2;
  }
  const format = opts.format ?? (await detectFormat(opts.path));
  const source = await openSource(opts.path, format);
  const target = await openBulkTarget(config, logger, { url: args.values['--url'], mode: 'import' });
  try {
    return await importInto(target, source, format, opts);
  } finally {
    await target.close();
  }
}

async function importInto(target: BulkTarget, source: Awaited<ReturnType<typeof openSource>>, format: ImportFormat, opts: Options): Promise<number> {
  const progress = new Progress(process.stderr, opts.dryRun ? 'import (dry run)' : 'import');
  progress.note(`context-graph import: ${opts.path === '-' ? 'stdin' : opts.path} as ${format} into ${target.description}${opts.dryRun ? ' (dry run: nothing is written)' : ''}`);
  let counts: ImportCounts = { ...ZERO_COUNTS };
  let records = 0;
  let history = 0;
  let batch: Array<{ where: string; record: Record<string, unknown> }> = [];
  let chars = 0;
  const reject = (where: string, reason: string) => {
    counts = addCounts(counts, { ...ZERO_COUNTS, rejected: 1 });
    progress.note(`rejected ${where}: ${reason}`);
  };
  const report = () => progress.update({ done: source.done(), total: source.total, records, counts });
  const flush = async () => {
    if (batch.length === 0) return;
    const sent = batch;
    batch = [];
    chars = 0;
    const r = await target.importBatch(
      sent.map((s) => s.record),
      { projectId: opts.projectId, tags: opts.tags, dryRun: opts.dryRun },
    );
    counts = addCounts(counts, { inserted: r.inserted, updated: r.updated, skipped: r.skipped, rejected: 0 });
    for (const x of r.rejections) reject(sent[x.index]?.where ?? `record ${x.index}`, x.reason);
    report();
  };

  for await (const item of source.items) {
    records++;
    if ('error' in item) {
      reject(item.where, item.error);
      continue;
    }
    // The log of an `export --history` is for reading; replaying it would duplicate the memories.
    if (item.record.type === 'transaction') {
      history++;
      continue;
    }
    batch.push(item);
    chars += typeof item.record.text === 'string' ? item.record.text.length : typeof item.record.content === 'string' ? item.record.content.length : 0;
    if (batch.length >= opts.batch || chars >= BATCH_CHARS) await flush();
    else if (records % 100 === 0) report();
  }
  await flush();
  const writeSeconds = progress.elapsedSeconds();
  progress.finish();
  const rate = Math.round(records / Math.max(writeSeconds, 0.001));
  const lines = [
    `${opts.dryRun ? 'dry run: would have ' : ''}${describeCounts(counts)} from ${records.toLocaleString('en-US')} records in ${formatDuration(writeSeconds)} (${rate.toLocaleString('en-US')} records/s, ${writeSeconds.toFixed(1)} s)`,
  ];
  if (history > 0) lines.push(`${history} history line(s) ignored (transactions are not replayed)`);
  if (!opts.dryRun && counts.inserted + counts.updated > 0) {
    const embedding = new Progress(process.stderr, 'embedding');
    embedding.status('vectors for the spaces search reads');
    const searchable = await target.waitSearchable();
    const searchableSeconds = progress.elapsedSeconds();
    if (searchable) embedding.status('vectors for the other spaces');
    const embedded = await target.waitEmbedded();
    embedding.finish();
    const embeddedSeconds = progress.elapsedSeconds();
    lines.push(
      searchable
        ? `all searchable after ${formatDuration(searchableSeconds)} (${searchableSeconds.toFixed(1)} s) by the spaces default search reads`
        : 'embedding continues on the server; lexical search finds the new memories already',
    );
    if (embedded) lines.push(`every space embedded after ${formatDuration(embeddedSeconds)} (${embeddedSeconds.toFixed(1)} s)`);
    const fingerprinting = new Progress(process.stderr, 'automatic edges and fingerprints');
    const fingerprinted = await target.waitFingerprints((jobs) => fingerprinting.status(`${jobs.toLocaleString('en-US')} job(s) left`));
    fingerprinting.finish();
    if (fingerprinted) lines.push(`fingerprints computed after ${formatDuration(progress.elapsedSeconds())} (${progress.elapsedSeconds().toFixed(1)} s)`);
  }
  process.stdout.write(lines.map((l) => `context-graph import: ${l}\n`).join(''));
  return counts.rejected > 0 ? 3 : 0;
}
