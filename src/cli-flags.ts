import { configSettings, type SettingName } from './config.js';

/**
 * Command-line flags, checked strictly: a misspelt flag used to be ignored (`--prot 7612`
 * started on 7411), so every command names the flags it reads and refuses any other.
 */

export interface FlagSpec {
  /** e.g. `--port` */
  flag: string;
  /** Placeholder for the value in help, e.g. `N` or `DIR`. */
  value: string;
  help: string;
  /** The environment variable of a configuration setting, shown in help beside the flag. */
  env?: string;
  /** Checked here so that `--port abc` is refused by name before anything starts. */
  wholeNumber?: boolean;
  /** A switch that takes no value (`--dry-run`): parsed as 'true'. */
  boolean?: boolean;
}

export interface ParsedArgs {
  /** Values by flag, e.g. `{ '--port': '0' }`. */
  values: Record<string, string>;
  positionals: string[];
}

/** A mistake in how the command was called: one line for the user, exit code 2. */
export class UsageError extends Error {
  override name = 'UsageError';
}

// The numeric settings of config.ts; their schemas coerce, so `--port=` would quietly mean 0.
const WHOLE_NUMBER_SETTINGS = new Set<SettingName>(['port', 'embedWaitMs', 'sseHeartbeatMs', 'sseGraceMs']);

/** The flags of these configuration settings, in the order config.ts declares them. */
export function settingFlags(names: readonly SettingName[]): FlagSpec[] {
  return (Object.keys(configSettings) as SettingName[])
    .filter((name) => names.includes(name))
    .map((name) => {
      const s = configSettings[name];
      return { flag: s.flag, value: 'VALUE', help: s.help, env: s.env, wholeNumber: WHOLE_NUMBER_SETTINGS.has(name) };
    });
}

/** Maps flag values back to configuration setting names, as loadConfig takes them. */
export function settingValues(values: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, s] of Object.entries(configSettings)) if (values[s.flag] !== undefined) out[name] = values[s.flag]!;
  return out;
}

export function flagsHelp(specs: readonly FlagSpec[]): string {
  if (specs.length === 0) return '  (none)';
  return specs.map((s) => `  ${(s.env ? `${s.flag} / ${s.env}` : `${s.flag} ${s.value}`.trimEnd()).padEnd(52)} ${s.help}`).join('\n');
}

/**
 * Parses `--flag value` and `--flag=value` for the given flags, plus at most `maxPositionals`
 * plain arguments. Throws UsageError naming the offending flag and every flag the command takes.
 */
export function parseArgs(command: string, argv: readonly string[], specs: readonly FlagSpec[], maxPositionals = 0): ParsedArgs {
  const byFlag = new Map(specs.map((s) => [s.flag, s]));
  const accepted = `(${command} accepts: ${[...byFlag.keys(), '--help'].join(', ')})`;
  const fail = (problem: string): never => {
    throw new UsageError(`${problem} ${accepted}`);
  };
  const values: Record<string, string> = {};
  const positionals: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (!arg.startsWith('-') || arg === '-') {
      if (positionals.length >= maxPositionals) fail(`unexpected argument ${JSON.stringify(arg)}`);
      positionals.push(arg);
      continue;
    }
    const eq = arg.indexOf('=');
    const flag = eq < 0 ? arg : arg.slice(0, eq);
    const spec = byFlag.get(flag);
    if (!spec) fail(`unknown flag ${flag}`);
    if (spec!.boolean) {
      if (eq >= 0) fail(`${flag} takes no value`);
      values[flag] = 'true';
      continue;
    }
    // A following flag is not a value: `--data-dir --port 1` must not make a directory "--port".
    const next = argv[i + 1];
    const value = eq >= 0 ? arg.slice(eq + 1) : next !== undefined && !next.startsWith('--') ? argv[++i] : undefined;
    if (value === undefined) fail(`${flag} needs a value`);
    if (spec!.wholeNumber && !/^\d+$/.test(value!)) fail(`${flag} must be a whole number, not ${JSON.stringify(value)}`);
    values[flag] = value!;
  }
  return { values, positionals };
}
