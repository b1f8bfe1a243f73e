/** Opening an embedded app for a bench part: temp data dir, quiet logs, optional model. */
import { createApp, type App } from '../src/app.js';
import { loadConfig } from '../src/config.js';
import { createLogger } from '../src/log.js';

export async function openBenchApp(dataDir: string, modelDir?: string | null, extraEnv: NodeJS.ProcessEnv = {}): Promise<App> {
  // Automatic edges off unless a part asks: background link jobs would load the machine other parts time.
  const env: NodeJS.ProcessEnv = { CONTEXT_GRAPH_DATA_DIR: dataDir, CONTEXT_GRAPH_AUTO_EDGES: 'off', ...extraEnv };
  if (modelDir) env.CONTEXT_GRAPH_MODEL_DIR = modelDir;
  return createApp(loadConfig(env), createLogger('warn'));
}

/** Server env for `serve` / `stdio` children on the same data dir. */
export function serverEnv(dataDir: string, modelDir?: string | null): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && k !== 'DATABASE_URL' && k !== 'REDIS_URL') env[k] = v;
  env.CONTEXT_GRAPH_DATA_DIR = dataDir;
  env.LOG_LEVEL = 'warn';
  if (modelDir) env.CONTEXT_GRAPH_MODEL_DIR = modelDir;
  else delete env.CONTEXT_GRAPH_MODEL_DIR;
  return env;
}
