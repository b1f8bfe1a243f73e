import { resolve } from 'node:path';
import * as z from 'zod';

/**
 * One zod schema is the source of truth for configuration: each entry names its environment
 * variable and its flag, so errors, `--help` and the README all say the same thing.
 */
const settings = {
  dataDir: {
    env: 'CONTEXT_GRAPH_DATA_DIR',
    flag: '--data-dir',
    help: 'embedded data directory (PGlite, index snapshots, lock file)',
    schema: z.string().min(1).default('./.context-graph'),
  },
  host: {
    env: 'CONTEXT_GRAPH_HOST',
    flag: '--host',
    help: 'HTTP bind address',
    schema: z.string().min(1).default('127.0.0.1'),
  },
  port: {
    env: 'CONTEXT_GRAPH_PORT',
    flag: '--port',
    help: 'HTTP port (0 picks a free one)',
    schema: z.coerce.number().int().min(0).max(65535).default(7411),
  },
  databaseUrl: {
    env: 'DATABASE_URL',
    flag: '--database-url',
    help: 'Postgres URL; unset means embedded PGlite in the data directory',
    schema: z
      .string()
      .regex(/^postgres(ql)?:\/\//, 'must start with postgres:// or postgresql://')
      .optional(),
  },
  redisUrl: {
    env: 'REDIS_URL',
    flag: '--redis-url',
    help: 'Redis URL for the BullMQ job queue; unset means the in-process queue',
    schema: z
      .string()
      .regex(/^rediss?:\/\//, 'must start with redis:// or rediss://')
      .optional(),
  },
  queueName: {
    env: 'CONTEXT_GRAPH_QUEUE',
    flag: '--queue',
    help: 'BullMQ queue name; separate deployments sharing one Redis use different names',
    schema: z
      .string()
      .regex(/^[\w.-]{1,64}$/, 'letters, digits, . _ - only, at most 64')
      .default('context-graph'),
  },
  modelDir: {
    env: 'CONTEXT_GRAPH_MODEL_DIR',
    flag: '--model-dir',
    help: 'folder with model.onnx + tokenizer.json for E1; unset means the bundled static GloVe vectors',
    schema: z.string().min(1).optional(),
  },
  logLevel: {
    env: 'LOG_LEVEL',
    flag: '--log-level',
    help: 'pino level (logs go to stderr)',
    schema: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  },
  toolsets: {
    env: 'CONTEXT_GRAPH_TOOLSETS',
    flag: '--toolsets',
    help: 'toolsets tools/list shows: a comma list of names, or all (default: the core toolset)',
    schema: z
      .string()
      .default('')
      .transform((s) =>
        s
          .split(',')
          .map((n) => n.trim())
          .filter(Boolean),
      ),
  },
  embedWaitMs: {
    env: 'CONTEXT_GRAPH_EMBED_WAIT_MS',
    flag: '--embed-wait-ms',
    help: 'embedded mode: how long a read waits for the vectors of stores that answered before them (and other writes for their own) before going on without',
    schema: z.coerce.number().int().min(0).max(60_000).default(2_000),
  },
  jobWaitMs: {
    env: 'CONTEXT_GRAPH_JOB_WAIT_MS',
    flag: '--job-wait-ms',
    help: 'how long a tool that runs a job (build_edges, merge, import, …) waits for it before answering "accepted" with the job id; raise it for clients with long request timeouts',
    schema: z.coerce.number().int().min(0).max(600_000).default(20_000),
  },
  dependencyDeadlineMs: {
    env: 'CONTEXT_GRAPH_DEPENDENCY_DEADLINE_MS',
    flag: '--dependency-deadline-ms',
    help: 'longest wait for one Postgres statement or Redis command before the call answers DB_UNAVAILABLE / QUEUE_UNAVAILABLE',
    schema: z.coerce.number().int().min(100).max(600_000).default(10_000),
  },
  authToken: {
    env: 'CONTEXT_GRAPH_AUTH_TOKEN',
    envAliases: ['CONTEXT_GRAPH_TOKEN'],
    flag: '--auth-token',
    help: 'bearer token every HTTP request must carry (Authorization: Bearer …); also read from CONTEXT_GRAPH_TOKEN; unset means no auth (loopback only)',
    schema: z.string().min(16, 'use at least 16 characters').optional(),
  },
  authTokenFile: {
    env: 'CONTEXT_GRAPH_AUTH_TOKEN_FILE',
    envAliases: ['CONTEXT_GRAPH_TOKEN_FILE'],
    flag: '--auth-token-file',
    help: 'file holding the bearer token (first line), instead of putting it in the environment; also read from CONTEXT_GRAPH_TOKEN_FILE',
    schema: z.string().min(1).optional(),
  },
  allowInsecureBind: {
    env: 'CONTEXT_GRAPH_ALLOW_INSECURE_BIND',
    flag: '--allow-insecure-bind',
    help: 'true lets `serve` bind a non-loopback address without a token (anyone who reaches it can read and write)',
    schema: z
      .enum(['true', 'false'])
      .default('false')
      .transform((v) => v === 'true'),
  },
  allowedOrigins: {
    env: 'CONTEXT_GRAPH_ALLOWED_ORIGINS',
    flag: '--allowed-origins',
    help: 'browser origins allowed besides loopback ones, comma-separated (e.g. https://app.example.com)',
    schema: z
      .string()
      .default('')
      .transform((s) =>
        s
          .split(',')
          .map((o) => o.trim().replace(/\/$/, ''))
          .filter(Boolean),
      ),
  },
  sseHeartbeatMs: {
    env: 'CONTEXT_GRAPH_SSE_HEARTBEAT_MS',
    flag: '--sse-heartbeat-ms',
    help: 'interval of the legacy /sse `heartbeat` event',
    schema: z.coerce.number().int().min(10).max(3_600_000).default(30_000),
  },
  sseGraceMs: {
    env: 'CONTEXT_GRAPH_SSE_GRACE_MS',
    flag: '--sse-grace-ms',
    help: 'how long a dropped /sse session and its running work wait for the client to reconnect',
    schema: z.coerce.number().int().min(100).max(3_600_000).default(60_000),
  },
  autoEdges: {
    env: 'CONTEXT_GRAPH_AUTO_EDGES',
    flag: '--auto-edges',
    help: 'after each write, add Semantic/Temporal/Causal/Hierarchical edges in the background (on|off)',
    schema: z
      .enum(['on', 'off'])
      .default('on')
      .transform((v) => v === 'on'),
  },
  maxSessions: {
    env: 'CONTEXT_GRAPH_MAX_SESSIONS',
    flag: '--max-sessions',
    help: 'open MCP sessions (/mcp and /sse together) one front end accepts; beyond it HTTP 503 with Retry-After',
    schema: z.coerce.number().int().min(1).max(1_000_000).default(1_000),
  },
  maxSessionsPerClient: {
    env: 'CONTEXT_GRAPH_MAX_SESSIONS_PER_CLIENT',
    flag: '--max-sessions-per-client',
    help: 'open MCP sessions one client address may hold (behind a proxy every client shares its address)',
    schema: z.coerce.number().int().min(1).max(1_000_000).default(100),
  },
  sessionIdleMs: {
    env: 'CONTEXT_GRAPH_SESSION_IDLE_MS',
    flag: '--session-idle-ms',
    help: 'an MCP session (/mcp or /sse) with no request for this long is closed',
    schema: z.coerce.number().int().min(100).max(86_400_000).default(1_800_000),
  },
  manifestPath: {
    env: 'CONTEXT_GRAPH_MANIFEST',
    flag: '--manifest',
    help: 'the user manifest (markdown goals, preferences, standing facts) reload_manifest pins as memories; its folder and the data directory are the only places reload_manifest reads from',
    schema: z.string().min(1).default('~/.context-graph/manifest.md'),
  },
  workspaceSize: {
    env: 'CONTEXT_GRAPH_WORKSPACE_SIZE',
    flag: '--workspace-size',
    help: 'memories in the global workspace (the most activated ones compete for attention)',
    schema: z.coerce.number().int().min(2).max(50).default(7),
  },
  broadcastHoldMinutes: {
    env: 'CONTEXT_GRAPH_BROADCAST_HOLD_MINUTES',
    flag: '--broadcast-hold-minutes',
    help: "how long a workspace broadcast stays first in every session's recent context (its strength decays to 0 over it)",
    schema: z.coerce.number().min(1).max(10_080).default(60),
  },
  autonomyIntervalMinutes: {
    env: 'CONTEXT_GRAPH_AUTONOMY_INTERVAL_MINUTES',
    flag: '--autonomy-interval-minutes',
    help: 'minutes between scheduled autonomous passes (drift correction when drifted, λ recalibration); 0 = off',
    schema: z.coerce.number().int().min(0).max(100_000).default(0),
  },
  autonomyDriftLevel: {
    env: 'CONTEXT_GRAPH_AUTONOMY_DRIFT_LEVEL',
    flag: '--autonomy-drift-level',
    help: 'drift level (low|medium|high) at which a scheduled pass corrects importance toward the north star',
    schema: z.enum(['low', 'medium', 'high']).default('medium'),
  },
  autonomyDriftStrength: {
    env: 'CONTEXT_GRAPH_AUTONOMY_DRIFT_STRENGTH',
    flag: '--autonomy-drift-strength',
    help: 'largest importance change of a scheduled drift correction (0.01–0.5)',
    schema: z.coerce.number().min(0.01).max(0.5).default(0.1),
  },
  rateLimitPerSession: {
    env: 'CONTEXT_GRAPH_RATE_LIMIT_PER_SESSION',
    flag: '--rate-limit-per-session',
    help: 'HTTP requests per second one MCP session may make (token bucket; 0 = no limit); beyond it HTTP 429 RATE_LIMITED with Retry-After',
    schema: z.coerce.number().min(0).max(1_000_000).default(200),
  },
  rateLimitPerClient: {
    env: 'CONTEXT_GRAPH_RATE_LIMIT_PER_CLIENT',
    flag: '--rate-limit-per-client',
    help: 'HTTP requests per second one client address may make over all its sessions (token bucket; 0 = no limit)',
    schema: z.coerce.number().min(0).max(1_000_000).default(1_000),
  },
  rateLimitBurstSeconds: {
    env: 'CONTEXT_GRAPH_RATE_LIMIT_BURST_SECONDS',
    flag: '--rate-limit-burst-seconds',
    help: 'a rate-limit bucket holds this many seconds of its rate, so short bursts pass',
    schema: z.coerce.number().min(0.1).max(3_600).default(2),
  },
  httpHeadersTimeoutMs: {
    env: 'CONTEXT_GRAPH_HTTP_HEADERS_TIMEOUT_MS',
    flag: '--http-headers-timeout-ms',
    help: 'a connection that has not sent its request headers within this is closed (slow or idle sockets)',
    schema: z.coerce.number().int().min(100).max(600_000).default(10_000),
  },
  httpRequestTimeoutMs: {
    env: 'CONTEXT_GRAPH_HTTP_REQUEST_TIMEOUT_MS',
    flag: '--http-request-timeout-ms',
    help: 'a request whose body has not fully arrived within this is answered 408 and closed (responses may stream longer)',
    schema: z.coerce.number().int().min(100).max(3_600_000).default(30_000),
  },
  maxConnectionsPerClient: {
    env: 'CONTEXT_GRAPH_MAX_CONNECTIONS_PER_CLIENT',
    flag: '--max-connections-per-client',
    help: 'open HTTP connections one client address may hold; beyond it new connections are closed at once',
    schema: z.coerce.number().int().min(1).max(1_000_000).default(1_000),
  },
  syncEvery: {
    env: 'CONTEXT_GRAPH_SYNC_EVERY',
    flag: '--sync-every',
    help: 'logged retrievals (search, query) between automatic Kuramoto sync steps of one front end; 0 = only when adjust_coupling runs one',
    schema: z.coerce.number().int().min(0).max(1_000_000).default(50),
  },
  maxInFlightPerClient: {
    env: 'CONTEXT_GRAPH_MAX_IN_FLIGHT_PER_CLIENT',
    flag: '--max-in-flight-per-client',
    help: 'HTTP requests (POST/PUT/PATCH) one client address may have unanswered at once; beyond it HTTP 503 BUSY with Retry-After',
    schema: z.coerce.number().int().min(1).max(1_000_000).default(64),
  },
  maxInFlightPerSession: {
    env: 'CONTEXT_GRAPH_MAX_IN_FLIGHT_PER_SESSION',
    flag: '--max-in-flight-per-session',
    help: 'calls one MCP session (stdio, /mcp or /sse) may have unanswered at once; beyond it the call answers BUSY (retryable)',
    schema: z.coerce.number().int().min(1).max(1_000_000).default(16),
  },
  sessionMemoryBytes: {
    env: 'CONTEXT_GRAPH_SESSION_MEMORY_BYTES',
    flag: '--session-memory-bytes',
    help: 'bytes of events one MCP session keeps for replay (/mcp resumption, /sse reconnects; the oldest are dropped past it) and may leave unread on its SSE connection (past it the connection is closed; the client reconnects and replays)',
    schema: z.coerce.number().int().min(4_096).max(1_073_741_824).default(262_144),
  },
  maxSubscriptionsPerSession: {
    env: 'CONTEXT_GRAPH_MAX_SUBSCRIPTIONS_PER_SESSION',
    flag: '--max-subscriptions-per-session',
    help: 'resources one MCP session may be subscribed to at once; beyond it resources/subscribe answers SUBSCRIPTIONS_FULL',
    schema: z.coerce.number().int().min(1).max(100_000).default(256),
  },
} as const;

type Settings = typeof settings;
export type Config = { -readonly [K in keyof Settings]: z.output<Settings[K]['schema']> };
export type SettingName = keyof Settings;

export const configSettings = settings;

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses `--flag value` / `--flag=value` pairs for the known settings; returns the rest. */
export function splitConfigFlags(argv: string[]): { values: Record<string, string>; rest: string[] } {
  const byFlag = new Map<string, string>(Object.entries(settings).map(([key, s]) => [s.flag, key]));
  const values: Record<string, string> = {};
  const rest: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const [flag, inline] = arg.includes('=') ? [arg.slice(0, arg.indexOf('=')), arg.slice(arg.indexOf('=') + 1)] : [arg, undefined];
    const key = byFlag.get(flag);
    if (!key) {
      rest.push(arg);
      continue;
    }
    const value = inline ?? argv[++i];
    if (value === undefined) throw new ConfigError(`${flag}: a value is required`);
    values[key] = value;
  }
  return { values, rest };
}

/** Other names a setting's variable is read under (older or documented spellings); `env` wins. */
function envAliasesOf(s: { env: string }): readonly string[] {
  return 'envAliases' in s ? (s.envAliases as readonly string[]) : [];
}

/**
 * Flags win over environment variables. An empty environment variable counts as unset, so
 * `DATABASE_URL= context-graph serve` means embedded mode rather than a bad URL.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, flags: Record<string, string> = {}): Config {
  const out: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(settings)) {
    const fromFlag = flags[key];
    const envName = [s.env, ...envAliasesOf(s)].find((name) => env[name] !== undefined && env[name] !== '') ?? s.env;
    const fromEnv = env[envName];
    const raw = fromFlag ?? (fromEnv === '' ? undefined : fromEnv);
    const parsed = (s.schema as z.ZodType).safeParse(raw);
    if (!parsed.success) {
      const source = fromFlag !== undefined ? s.flag : envName;
      const issue = parsed.error.issues[0];
      throw new ConfigError(`invalid ${source}=${JSON.stringify(raw)}: ${issue?.message ?? 'invalid value'}`);
    }
    out[key] = parsed.data;
  }
  out.dataDir = resolve(out.dataDir as string);
  if (out.modelDir) out.modelDir = resolve(out.modelDir as string);
  return out as Config;
}

export function configHelp(): string {
  return Object.values(settings)
    .map((s) => `  ${(s.flag + ' / ' + s.env).padEnd(52)} ${s.help}`)
    .join('\n');
}
