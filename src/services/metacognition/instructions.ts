import { implementedSpaces } from '../../embed/spaces/registry.js';
import { citation } from '../../ids.js';
import { findTool, type ToolCatalog } from './catalog.js';

/** Roughly 300 tokens (seed 001 US-MCP-004 AC-05); a token is about 4 characters of English. */
export const INSTRUCTION_TOKEN_BUDGET = 300;
export const estimateTokens = (text: string) => Math.ceil(text.length / 4);

/**
 * The mental model an agent keeps in context, written from the live registry so it never drifts:
 * what the store holds (the spaces that have encoders), how to search, curate and cite with the
 * tools this session lists, and which families are one `toolsets` call away. Tools that do not
 * exist are never named; a toolset added to TOOLSETS shows up here by itself.
 */
export function systemInstructions(catalog: ToolCatalog, sampleId: string): { text: string; named: string[] } {
  const named = new Set<string>();
  const live = (names: readonly string[]) =>
    names
      .filter((n) => findTool(catalog, n)?.enabled)
      .map((n) => {
        named.add(n);
        return `\`${n}\``;
      });
  const spaces = implementedSpaces();
  const lines: string[] = [];
  lines.push(
    `You have a long-term memory: a graph of memories (text with topic, tags, importance, validity), typed edges between them, and a transaction log that makes every change reversible. Each memory is embedded in ${spaces.length} spaces (${spaces.map((s) => s.name).join(', ')}).`,
  );
  const find = live(['search', 'query', 'search_graph', 'get_recent_context', 'get_neighborhood', 'find_causal_path']);
  if (find.length) lines.push(`Find: ${find.join(', ')}. Search before answering from memory; results are ranked and cited.`);
  const write = live(['store', 'update', 'delete', 'relate', 'push']);
  if (write.length) lines.push(`Remember: ${write.join(', ')}. One fact per memory; update a fact instead of storing a contradiction.`);
  const curate = live(['merge_concepts', 'annotate_node', 'boost_importance', 'forget_concept', 'restore_from_hash', 'undo']);
  if (curate.length) lines.push(`Curate: ${curate.join(', ')}. Writes that curate need a rationale; each returns a reversal hash.`);
  const reflect = live(['reflect_on_memory', 'critique_context', 'generate_search_plan', 'epistemic_action']);
  if (reflect.length) lines.push(`Reflect: ${reflect.join(', ')}.`);
  const hydrate = live(['hydrate_citation']);
  lines.push(
    `Cite memories as ${citation(sampleId)} (the tag form of a memory id, \`[node_<32 hex>]\`)${hydrate.length ? `; ${hydrate[0]} expands a tag to the full memory` : ''}. Never invent a tag.`,
  );
  const on = catalog.toolsets.filter((s) => s.enabled).map((s) => s.name);
  const off = catalog.toolsets.filter((s) => !s.enabled).map((s) => s.name);
  // The toolset names, shortened to counts when the registry outgrows the budget (the names the
  // agent can switch on are kept longest; `toolsets` lists them all).
  const offPart = (names: boolean) =>
    off.length ? ` Off (switch on with \`toolsets {"enable": [...]}\`): ${names ? off.join(', ') : `${off.length} toolsets, listed by \`toolsets\``}.` : '';
  const toolsetLines = [`Toolsets on: ${on.join(', ')}.${offPart(true)}`, `Toolsets on: ${on.length}.${offPart(true)}`, `Toolsets on: ${on.length}.${offPart(false)}`];
  const fits = (line: string) => estimateTokens([...lines, line].join('\n')) <= INSTRUCTION_TOKEN_BUDGET - 8;
  lines.push(toolsetLines.find(fits) ?? toolsetLines[toolsetLines.length - 1]!);
  // Other live tools of enabled toolsets, as many as the budget allows.
  const rest = catalog.tools.filter((t) => t.enabled && !named.has(t.name)).map((t) => t.name);
  const base = lines.join('\n');
  const room = INSTRUCTION_TOKEN_BUDGET - estimateTokens(base) - 8;
  const extra: string[] = [];
  for (const n of rest) {
    if (estimateTokens([...extra, n].map((x) => `\`${x}\``).join(', ')) > room) break;
    extra.push(n);
    named.add(n);
  }
  if (extra.length) lines.push(`Also listed: ${extra.map((n) => `\`${n}\``).join(', ')}${extra.length < rest.length ? ` and ${rest.length - extra.length} more` : ''}.`);
  return { text: lines.join('\n'), named: [...named] };
}
