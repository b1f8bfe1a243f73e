import type { ToolCatalog } from '../../services/metacognition/catalog.js';
import { describedPart } from '../../services/metacognition/catalog.js';
import type { ToolContext } from '../kit/context.js';
// A cycle on purpose (index.ts lists the tools that call this): TOOLSETS is read at call time,
// never while the modules load, so the registry a plan names is always the one being served.
import { TOOLSETS } from '../index.js';

/** The registry as this caller sees it: every toolset and tool, with the session's on/off state. */
export function liveCatalog(ctx: ToolContext): ToolCatalog {
  const state = new Map(ctx.toolsets.list().map((s) => [s.name, s]));
  const enabled = (name: string) => state.get(name)?.enabled ?? false;
  return {
    toolsets: TOOLSETS.map((s) => ({ name: s.name, description: s.description, enabled: enabled(s.name), tools: s.tools.map((t) => t.name) })),
    tools: TOOLSETS.flatMap((s) => s.tools.map((t) => ({ name: t.name, toolset: s.name, enabled: enabled(s.name), description: describedPart(t.description) }))),
  };
}
