import { textOf } from '../../services/project-kinds.js';
import * as z from 'zod';
import { isAppError } from '../../errors.js';
import type { EntityView } from '../../services/projects.js';
import { defineTool, READ_ONLY } from '../kit/define.js';
import { isoDate } from '../kit/fields.js';
import { cardMarker } from '../kit/markdown.js';
import { needsInput } from '../kit/payloads.js';
import { difficultyField } from '../projects/schemas.js';
import { cardOf } from './search-patterns.js';

/** seed 003's `get_pattern`: one pattern in full (patternDetails:v1), or needsInput naming close ids. */

const SUMMARY_CHARS = 200;

const output = z.object({
  kind: z.literal('patternDetails:v1'),
  id: z.string(),
  title: z.string(),
  category: z.string().nullable(),
  difficulty: difficultyField.nullable(),
  summary: z.string().describe('Brief (about 200 characters).'),
  description: z.string(),
  tags: z.array(z.string()),
  useGuidance: z.object({ useWhen: z.string().nullable(), avoidWhen: z.string().nullable() }),
  sections: z.array(z.object({ title: z.string(), content: z.string(), type: z.enum(['description', 'solution', 'example', 'guidance']) })),
  examples: z.array(z.object({ code: z.string(), language: z.string(), description: z.string().optional() })),
  provenance: z.object({
    source: z.string().describe('Where the pattern comes from: the server, and the tide it was harvested from if any. Never a local path.'),
    timestamp: isoDate,
    version: z.string(),
    marker: z.literal('v1'),
  }),
});

function summaryOf(e: EntityView): string {
  if (typeof e.summary === 'string') return e.summary;
  const d = textOf(e.description);
  return d.length <= SUMMARY_CHARS ? d : `${d.slice(0, SUMMARY_CHARS - 1).trimEnd()}…`;
}

type Example = { code: string; language: string; description?: string };

export function detailsOf(e: EntityView): z.output<typeof output> {
  const card = cardOf(e);
  const examples = (Array.isArray(e.examples) ? (e.examples as Example[]) : []).map((x) => ({
    code: x.code,
    language: x.language,
    ...(x.description ? { description: x.description } : {}),
  }));
  const str = (v: unknown) => (typeof v === 'string' ? v : null);
  const sections: z.output<typeof output>['sections'] = [{ title: 'Description', content: card.description, type: 'description' }];
  if (str(e.solution)) sections.push({ title: 'Solution', content: str(e.solution)!, type: 'solution' });
  if (str(e.use_when) || str(e.avoid_when)) {
    sections.push({
      title: 'When to use',
      content: [str(e.use_when) && `Use when: ${str(e.use_when)}`, str(e.avoid_when) && `Avoid when: ${str(e.avoid_when)}`].filter(Boolean).join('\n'),
      type: 'guidance',
    });
  }
  for (const x of examples) sections.push({ title: x.description ?? 'Example', content: x.code, type: 'example' });
  return {
    kind: 'patternDetails:v1',
    id: card.id,
    title: card.title,
    category: card.category,
    difficulty: card.difficulty,
    summary: summaryOf(e),
    description: card.description,
    tags: card.tags,
    useGuidance: { useWhen: str(e.use_when), avoidWhen: str(e.avoid_when) },
    sections,
    examples,
    provenance: {
      source: typeof e.tide_id === 'string' ? `context-graph pattern harvested from tide ${e.tide_id}` : 'context-graph pattern_create',
      timestamp: e.updated_at,
      version: `v${e.version}`,
      marker: 'v1',
    },
  };
}

export const getPatternTool = defineTool({
  name: 'get_pattern',
  title: 'Get a pattern in full (presentation contract)',
  description: `One pattern with everything: summary, description, use/avoid guidance, sections, code examples and provenance (seed 003 patternDetails:v1). An unknown or empty id answers needsInput:v1 with the 5 closest pattern ids.
When to use: after search_patterns, to read one pattern before applying it.
Example: {"id": "pattern_1_retry_with_backoff"}
Advanced: {"id": "pattern_4_error_handling_with_match", "format": "both"}`,
  annotations: READ_ONLY,
  input: z.strictObject({ id: z.string().max(128).describe('A pattern id from search_patterns or pattern_list.') }),
  output,
  mayNeedInput: true,
  async handler(args, ctx) {
    const id = args.id.trim();
    if (id) {
      try {
        return detailsOf(await ctx.services.projects.get('pattern', id));
      } catch (err) {
        if (!isAppError(err) || err.code !== 'NODE_NOT_FOUND') throw err;
      }
    }
    // Closest ids by searching with the id's words, as seed 003 asks (top 5, possibly none).
    const words = id.replace(/[_-]+/g, ' ').trim();
    const hits = words ? await ctx.services.projectReports.search({ text: words, kinds: ['pattern'], limit: 5, mode: 'hybrid' }) : [];
    const ids = hits.map((h) => h.id);
    const shown = id ? `Pattern "${id}"` : 'An empty pattern id';
    return needsInput({
      message: `${shown} not found. Please provide a valid pattern ID.`,
      needsInput: { fields: ['id'], reason: id ? `Pattern ID "${id}" is invalid or does not exist` : 'A pattern ID is required', suggestions: { id: ids } },
      options: ids.map((i) => ({ label: i, value: i, description: `Pattern ID: ${i}`, field: 'id' })),
    });
  },
  render(p) {
    const lines = [`# ${p.title}`, '', cardMarker('pattern'), `\`${p.id}\`${p.category ? ` · ${p.category}` : ''}${p.difficulty ? ` · ${p.difficulty}` : ''}`, '', p.summary];
    for (const s of p.sections) lines.push('', `## ${s.title}`, '', s.type === 'example' ? `\`\`\`\n${s.content}\n\`\`\`` : s.content);
    lines.push('', `_${p.provenance.source}, ${p.provenance.version}, ${p.provenance.timestamp}_`);
    return lines.join('\n');
  },
});
