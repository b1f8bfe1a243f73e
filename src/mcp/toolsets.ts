import { AppError } from '../errors.js';
import type { ToolsetState, ToolsetSwitch } from '../tools/kit/context.js';
import { compileTool, type CompiledTool } from '../tools/kit/invoke.js';
import { DEFAULT_TOOLSETS, TOOLSETS } from '../tools/index.js';

/** Compiled once per process: schemas do not change at run time. */
let compiled: Map<string, CompiledTool> | null = null;
export function compiledTools(): Map<string, CompiledTool> {
  compiled ??= new Map(TOOLSETS.flatMap((s) => s.tools).map((t) => [t.name, compileTool(t)]));
  return compiled;
}

/**
 * The toolsets a server lists at the start of a session: the configured names (`--toolsets`,
 * `CONTEXT_GRAPH_TOOLSETS`, `all`), else the default ones. Unknown names fail fast.
 */
export function initialToolsets(configured: readonly string[]): Set<string> {
  if (configured.length === 0) return new Set(DEFAULT_TOOLSETS);
  if (configured.includes('all')) return new Set(TOOLSETS.map((s) => s.name));
  const known = TOOLSETS.map((s) => s.name);
  const unknown = configured.filter((n) => !known.includes(n));
  if (unknown.length) throw new AppError('INVALID_PARAMS', `Unknown toolset ${unknown.join(', ')}; toolsets are ${known.join(', ')} (or all).`);
  // The core toolset holds the switch itself, so it is always on.
  return new Set([...DEFAULT_TOOLSETS.filter((n) => n === 'core'), ...configured]);
}

/** One session's toolsets; `onChange` tells the client to list the tools again. */
export class SessionToolsets implements ToolsetSwitch {
  private readonly enabled: Set<string>;
  constructor(
    initial: ReadonlySet<string>,
    private readonly onChange: () => Promise<void>,
  ) {
    this.enabled = new Set(initial);
  }

  isEnabled(toolset: string): boolean {
    return this.enabled.has(toolset);
  }

  list(): ToolsetState[] {
    return TOOLSETS.map((s) => ({ name: s.name, description: s.description, enabled: this.enabled.has(s.name), tools: s.tools.map((t) => t.name) }));
  }

  async set(names: readonly string[], on: boolean): Promise<string[]> {
    // The switch cannot switch itself off.
    const changed = names.filter((n) => n !== 'core' && this.enabled.has(n) !== on);
    for (const n of changed)
      if (on) this.enabled.add(n);
      else this.enabled.delete(n);
    if (changed.length) await this.onChange();
    return changed;
  }
}
