import { keywordTerms, STOP_WORDS } from '../../embed/keyword.js';

/**
 * The live tool registry as the meta-cognitive services read it: every toolset and tool with its
 * description, and whether the caller's session lists it. The tool layer builds it from TOOLSETS
 * and the session's switch (services never import tools), so plans and instructions name only
 * tools that exist.
 */
export interface CatalogTool {
  name: string;
  toolset: string;
  enabled: boolean;
  /** The tool's description up to its examples: what it does and when to use it. */
  description: string;
}

export interface ToolCatalog {
  toolsets: Array<{ name: string; description: string; enabled: boolean; tools: string[] }>;
  tools: CatalogTool[];
}

export function findTool(catalog: ToolCatalog, name: string): CatalogTool | undefined {
  return catalog.tools.find((t) => t.name === name);
}

/** What a description says before its examples (the "Example:" lines are JSON, not meaning). */
export function describedPart(description: string): string {
  const cut = description.search(/\n(?:Example|Advanced):/);
  return cut < 0 ? description : description.slice(0, cut);
}

/** Words that say little about which tool a goal needs, beyond the keyword stop list. */
const GOAL_FILLER = new Set(keywordTerms('about up out all any some more most other only just like want need make get use using find way also thing things help please me us'));

/**
 * How well each tool's name and description match `text`: BM25 over the catalog (a word most
 * tools use, like "memory", counts little; a long description wins less by size), with the
 * tool's name counted twice. Sorted best first; zero scores dropped.
 */
export function rankTools(catalog: ToolCatalog, text: string): Array<{ tool: CatalogTool; score: number; matched: string[] }> {
  // A stem that collides with a stop word (notes → not) says nothing either.
  const query = new Set(keywordTerms(text).filter((t) => t.length >= 3 && !GOAL_FILLER.has(t) && !STOP_WORDS.has(t)));
  const docs = catalog.tools.map((t) => {
    const terms = new Map<string, number>();
    const name = keywordTerms(t.name.replace(/_/g, ' '));
    for (const term of [...name, ...name, ...keywordTerms(describedPart(t.description))]) terms.set(term, (terms.get(term) ?? 0) + 1);
    return { tool: t, terms, length: [...terms.values()].reduce((a, b) => a + b, 0) };
  });
  const df = new Map<string, number>();
  for (const d of docs) for (const term of d.terms.keys()) df.set(term, (df.get(term) ?? 0) + 1);
  const n = docs.length;
  const avg = docs.reduce((s, d) => s + d.length, 0) / Math.max(1, n);
  const K1 = 1.2;
  const B = 0.5;
  return docs
    .map((d) => {
      const matched = [...query].filter((t) => d.terms.has(t));
      const norm = K1 * (1 - B + (B * d.length) / avg);
      const score = matched.reduce((s, t) => {
        const tf = d.terms.get(t)!;
        return s + Math.log(1 + (n - df.get(t)! + 0.5) / (df.get(t)! + 0.5)) * ((tf * (K1 + 1)) / (tf + norm));
      }, 0);
      return { tool: d.tool, score: Math.round(score * 1e4) / 1e4, matched };
    })
    .filter((r) => r.score > 0)
    .sort((a, b) => b.score - a.score || a.tool.name.localeCompare(b.tool.name));
}
