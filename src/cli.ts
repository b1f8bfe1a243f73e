#!/usr/bin/env node
import { setTimeout as sleep } from 'node:timers/promises';
import { createApp, runWorker, VERSION, type App } from './app.js';
import { flagsHelp, parseArgs, settingFlags, settingValues, UsageError, type FlagSpec, type ParsedArgs } from './cli-flags.js';
import { isAppError } from './errors.js';
import { initialToolsets } from './mcp/toolsets.js';
import { ConfigError, configHelp, configSettings, loadConfig, type Config, type SettingName } from './config.js';
import { hasBundledE1Model } from './embed/bundled.js';
import { listModels, modelStatus, pullModel } from './embed/models.js';
import { createLogger, type Logger } from './log.js';
import { listSurface, renderReference } from './mcp/docs.js';
import { exportCommand } from './cli/export.js';
import { importCommand } from './cli/import.js';
import { acquireDirLock, describeHolder, type DirLock, type LockMode } from './store/dir-lock.js';
import { startHttp } from './cli/http-front-end.js';
import { bindRefusal, resolveAuthToken } from './transports/http-security.js';
import type { HttpServer } from './transports/http-server.js';
import { MCP_PATH } from './transports/streamable-http.js';
import { forwardStdio, serveStdio } from './transports/stdio.js';
import { EarlyStdio, staticHandshake } from './transports/stdio-early.js';

interface Command {
  summary: string;
  usage: string;
  /** Every flag the command reads; any other is refused. */
  flags: FlagSpec[];
  /** How many plain arguments the command takes (`models pull <name>` takes two). */
  positionals?: number;
  run(config: Config, args: ParsedArgs, logger: Logger): Promise<number>;
}

const ALL_SETTINGS = Object.keys(configSettings) as SettingName[];
// The stdio owner's relay port is always a free loopback one, so host and port mean nothing there.
const STDIO_SETTINGS = ALL_SETTINGS.filter((name) => name !== 'host' && name !== 'port');

const COMMANDS: Record<string, Command> = {
  serve: {
    summary: 'serve MCP over Streamable HTTP at /mcp, plus /healthz',
    usage: 'context-graph serve [options]',
    flags: settingFlags(ALL_SETTINGS),
    run: serve,
  },
  stdio: {
    summary: 'serve one MCP client over stdin/stdout (relays to the owner if the data directory is in use)',
    usage: 'context-graph stdio [options]',
    flags: settingFlags(STDIO_SETTINGS),
    run: stdio,
  },
  worker: {
    summary: 'consume jobs from the BullMQ queue (needs DATABASE_URL and REDIS_URL)',
    usage: 'context-graph worker [--concurrency N] [options]',
    flags: [
      { flag: '--concurrency', value: 'N', help: 'jobs run at once, 1 to 64 (default 4)', wholeNumber: true },
      ...settingFlags(['databaseUrl', 'redisUrl', 'queueName', 'modelDir', 'logLevel']),
    ],
    run: worker,
  },
  docs: {
    summary: 'print the reference of every tool, resource, prompt and error code (the README section)',
    usage: 'context-graph docs',
    flags: [],
    run: async () => {
      process.stdout.write(renderReference(await listSurface()) + '\n');
      return 0;
    },
  },
  models: {
    summary: 'list, check or download embedding models',
    usage: 'context-graph models list | status | pull <name> [--into DIR]   (pull writes DIR/<name>; DIR defaults to <data dir>/models)',
    flags: [{ flag: '--into', value: 'DIR', help: 'where `pull` writes DIR/<name> (default <data dir>/models)' }, ...settingFlags(['dataDir', 'modelDir', 'logLevel'])],
    positionals: 2,
    run: models,
  },
  import: importCommand,
  export: exportCommand,
};

function mainHelp(): string {
  const cmds = Object.entries(COMMANDS)
    .map(([name, c]) => `  ${name.padEnd(8)} ${c.summary}`)
    .join('\n');
  return `context-graph ${VERSION}: an MCP memory server\n\nUsage: context-graph <command> [options]\n\nCommands:\n${cmds}\n\nOptions (flag / environment variable):\n${configHelp()}\n\nRun 'context-graph <command> --help' for a command's usage.\n`;
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (!name || name === '--help' || name === '-h' || name === 'help') {
    process.stdout.write(mainHelp());
    return name ? 0 : 1;
  }
  if (name === '--version') {
    process.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const command = COMMANDS[name];
  if (!command) {
    process.stderr.write(`context-graph: unknown command "${name}"\n\n${mainHelp()}`);
    return 2;
  }
  if (rest.includes('--help') || rest.includes('-h')) {
    // Help goes to stderr for stdio so that stdout stays JSON-RPC only even when misused.
    (name === 'stdio' ? process.stderr : process.stdout).write(
      `Usage: ${command.usage}\n\n${command.summary}\n\nOptions (flag / environment variable):\n${flagsHelp(command.flags)}\n`,
    );
    return 0;
  }
  let config: Config;
  let args: ParsedArgs;
  try {
    args = parseArgs(name, rest, command.flags, command.positionals);
    config = loadConfig(process.env, settingValues(args.values));
    // Unknown toolset names fail at start, not at the first client's tools/list.
    initialToolsets(config.toolsets);
  } catch (err) {
    if (err instanceof UsageError || err instanceof ConfigError || isAppError(err)) {
      process.stderr.write(`context-graph ${name}: ${err.message}\n`);
      return 2;
    }
    throw err;
  }
  const logger = createLogger(config.logLevel);
  return command.run(config, args, logger);
}

/** Takes the data directory in embedded mode; returns null when another live process has it. */
async function lockDataDir(
  config: Config,
  mode: 'serve' | 'stdio',
): Promise<{ lock: DirLock | null; heldMessage?: string; heldUrl?: string | undefined; heldMode?: LockMode | undefined }> {
  if (config.databaseUrl) return { lock: null };
  const result = await acquireDirLock(config.dataDir, { mode });
  if ('heldBy' in result) return { lock: null, heldMessage: describeHolder(config.dataDir, result.heldBy), heldUrl: result.heldBy.url, heldMode: result.heldBy.mode };
  return { lock: result };
}

/**
 * How long a stdio process waits for an owner that holds the directory but has not published
 * its relay address yet (it is still opening the store): clients launched together all start.
 */
const OWNER_STARTUP_WAIT_MS = 90_000;

/** The directory, or its owner's relay address once published; a starting owner is waited for (bounded). */
async function lockOrOwner(config: Config): Promise<Awaited<ReturnType<typeof lockDataDir>>> {
  const deadline = Date.now() + OWNER_STARTUP_WAIT_MS;
  for (;;) {
    const attempt = await lockDataDir(config, 'stdio');
    const starting = attempt.heldMessage && !attempt.heldUrl && (attempt.heldMode === 'stdio' || attempt.heldMode === 'serve');
    if (!starting || Date.now() > deadline) return attempt;
    await sleep(100);
  }
}

const SHUTDOWN_DEADLINE_MS = 10_000;

function onShutdownSignal(handler: () => Promise<void>): void {
  let stopping = false;
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.on(signal, () => {
      if (stopping) process.exit(1);
      stopping = true;
      // Sessions and jobs get a bounded drain: an orchestrator's SIGKILL follows soon anyway.
      setTimeout(() => process.exit(1), SHUTDOWN_DEADLINE_MS).unref();
      void handler().then(
        () => process.exit(0),
        () => process.exit(1),
      );
    });
  }
}

async function serve(config: Config, _args: ParsedArgs, logger: Logger): Promise<number> {
  const refusal = bindRefusal(config.host, resolveAuthToken(config), config.allowInsecureBind);
  if (refusal) {
    process.stderr.write(`context-graph serve: ${refusal}\n`);
    return 2;
  }
  const { lock, heldMessage } = await lockDataDir(config, 'serve');
  if (heldMessage) {
    process.stderr.write(`context-graph: ${heldMessage}\n`);
    return 1;
  }
  let app: App | null = null;
  let http: HttpServer | null = null;
  try {
    app = await createApp(config, logger, { answerWhileIndexesLoad: true });
    http = await startHttp(app, config.host, config.port);
    const mcpUrl = http.baseUrl + MCP_PATH;
    await lock?.update({ mode: 'serve', url: mcpUrl });
    // One machine-readable line on stderr, for scripts and tests that start the server.
    process.stderr.write(`context-graph: listening on ${mcpUrl}\n`);
    process.stderr.write(`context-graph: memory explorer at ${http.baseUrl}/ui/\n`);
  } catch (err) {
    await http?.close();
    await app?.close();
    await lock?.release();
    throw err;
  }
  onShutdownSignal(async () => {
    await http!.close();
    await app!.close();
    await lock?.release();
  });
  await new Promise(() => {});
  return 0;
}

async function stdio(config: Config, _args: ParsedArgs, logger: Logger): Promise<number> {
  const local = new EarlyStdio(staticHandshake(config, logger));
  await local.open();
  const { lock, heldMessage, heldUrl } = await lockOrOwner(config);
  if (heldMessage) {
    if (!heldUrl) {
      process.stderr.write(`context-graph: ${heldMessage}\n`);
      return 1;
    }
    // When the owner exits, this relay moves to the next one, or takes the directory itself.
    let owned: StdioOwner | null = null;
    const nextOwner = async (): Promise<string | null> => {
      if (owned) return owned.url;
      const next = await lockDataDir(config, 'stdio');
      if (next.lock) owned = await ownDataDir(config, logger, next.lock);
      return owned?.url ?? next.heldUrl ?? null;
    };
    await forwardStdio(heldUrl, logger, { token: resolveAuthToken(config), nextOwner, local });
    await (owned as StdioOwner | null)?.drain();
    return 0;
  }
  const owner = await ownDataDir(config, logger, lock);
  await serveStdio(owner.app, local);
  await owner.drain();
  return 0;
}

interface StdioOwner {
  app: App;
  /** Where relays reach this owner; null in distributed mode (no lock, no relays). */
  url: string | null;
  /** Waits for relayed clients to leave, then closes everything and releases the lock. */
  drain(): Promise<void>;
}

async function ownDataDir(config: Config, logger: Logger, lock: DirLock | null): Promise<StdioOwner> {
  const app = await createApp(config, logger, { answerWhileIndexesLoad: true });
  // In embedded mode the owner also listens on a loopback port, so that later stdio processes
  // on this data directory relay to it instead of being turned away.
  const http = lock ? await startHttp(app, '127.0.0.1', 0) : null;
  const url = http ? http.baseUrl + MCP_PATH : null;
  if (url) await lock!.update({ mode: 'stdio', url });
  const shutdown = async () => {
    await http?.close();
    await app.close();
    await lock?.release();
  };
  onShutdownSignal(shutdown);
  return {
    app,
    url,
    async drain() {
      // Relayed clients keep the memory open after our own client leaves.
      while (http && http.sessionCount() > 0) await sleep(500);
      await shutdown();
    },
  };
}

async function worker(config: Config, args: ParsedArgs, logger: Logger): Promise<number> {
  if (!config.databaseUrl || !config.redisUrl) {
    process.stderr.write('context-graph: worker needs DATABASE_URL and REDIS_URL (in embedded mode the server embeds in process)\n');
    return 2;
  }
  const concurrency = Number(args.values['--concurrency'] ?? 4);
  if (concurrency < 1 || concurrency > 64) {
    process.stderr.write('context-graph worker: --concurrency must be an integer from 1 to 64\n');
    return 2;
  }
  const running = await runWorker(config, logger, { concurrency });
  onShutdownSignal(() => running.close());
  await new Promise(() => {});
  return 0;
}

async function models(config: Config, args: ParsedArgs, logger: Logger): Promise<number> {
  const [sub, name] = args.positionals;
  if ((sub === 'list' || sub === undefined) && name === undefined) {
    for (const m of listModels()) process.stdout.write(`${m.name}\t${m.description}\n`);
    return 0;
  }
  if (sub === 'status' && name === undefined) {
    if (!config.modelDir) {
      process.stdout.write(
        hasBundledE1Model()
          ? 'No CONTEXT_GRAPH_MODEL_DIR set: E1 uses the bundled static GloVe model (assets/e1-glove).\n'
          : 'No CONTEXT_GRAPH_MODEL_DIR set and no bundled model: E1 uses the model-free encoder.\n',
      );
      return 0;
    }
    process.stdout.write(JSON.stringify(await modelStatus(config.modelDir), null, 2) + '\n');
    return 0;
  }
  if (sub === 'pull' && name) {
    const target = args.values['--into'] ?? `${config.dataDir}/models`;
    const result = await pullModel(name, target, {
      onProgress: (p) => logger.info(p, 'download'),
    });
    process.stdout.write(`Model ready in ${result.dir}\nSet CONTEXT_GRAPH_MODEL_DIR=${result.dir} to use it.\n`);
    return 0;
  }
  process.stderr.write(`Usage: ${COMMANDS.models!.usage}\n`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (err: unknown) => {
    // Start-up failures: one readable line; the stack only at debug level.
    process.stderr.write(`context-graph: ${err instanceof Error ? err.message : String(err)}\n`);
    if (process.env.LOG_LEVEL === 'debug' || process.env.LOG_LEVEL === 'trace') console.error(err);
    process.exit(1);
  },
);
