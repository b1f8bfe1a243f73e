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
    help: 'how long `store` waits for its embedding in embedded mode before answering',
    schema: z.coerce.number().int().min(0).max(60_000).default(2_000),
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

/**
 * Flags win over environment variables. An empty environment variable counts as unset, so
 * `DATABASE_URL= context-graph serve` means embedded mode rather than a bad URL.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, flags: Record<string, string> = {}): Config {
  const out: Record<string, unknown> = {};
  for (const [key, s] of Object.entries(settings)) {
    const fromFlag = flags[key];
    const fromEnv = env[s.env];
    const raw = fromFlag ?? (fromEnv === '' ? undefined : fromEnv);
    const parsed = (s.schema as z.ZodType).safeParse(raw);
    if (!parsed.success) {
      const source = fromFlag !== undefined ? s.flag : s.env;
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
