/**
 * The five families of seed 002's project-knowledge model and how each lives in the graph:
 * a node of its own `kind` whose `content` is the searchable text (seed 002 §3.3), whose
 * `metadata` holds every field as given (structured fields as JSON, §3.4), and whose parent
 * is a typed edge as well as a field.
 */
export const PROJECT_KINDS = ['phase', 'work', 'path', 'tide', 'pattern'] as const;
export type ProjectKind = (typeof PROJECT_KINDS)[number];

/** seed 002's table names, as `search-semantic {"tables": [...]}` spells them. */
export const TABLE_OF: Readonly<Record<ProjectKind, string>> = { phase: 'phases', work: 'works', path: 'paths', tide: 'tides', pattern: 'patterns' };
export const KIND_OF_TABLE: Readonly<Record<string, ProjectKind>> = Object.fromEntries(PROJECT_KINDS.map((k) => [TABLE_OF[k], k]));

/** Every project-knowledge node lives in this project (namespace), so memory search finds it too. */
export const PROJECT_KNOWLEDGE_PROJECT = 'default';

export interface ParentLink {
  /** The field holding the parent's id. */
  key: string;
  kind: ProjectKind;
  /** Predicate of the edge child → parent. */
  predicate: string;
}

export interface KindSpec {
  kind: ProjectKind;
  label: string;
  memoryType: 'semantic' | 'procedural' | 'episodic';
  /** Fields whose text is searchable (seed 002 §3.3), in the order they are indexed. */
  textFields: readonly string[];
  /** The field that names the entity (its title, and the words of its id). */
  titleField: string;
  parent?: ParentLink;
}

/** Edge predicates of the model (the structure check walks exactly these). */
export const PREDICATES = { inPhase: 'in_phase', includesWork: 'includes_work', executes: 'executes', harvestedFrom: 'harvested_from' } as const;

export const KIND_SPECS: Readonly<Record<ProjectKind, KindSpec>> = {
  phase: { kind: 'phase', label: 'Phase', memoryType: 'semantic', textFields: ['what', 'status'], titleField: 'what' },
  work: { kind: 'work', label: 'Work', memoryType: 'procedural', textFields: ['what', 'why', 'how'], titleField: 'what' },
  path: {
    kind: 'path',
    label: 'Path',
    memoryType: 'semantic',
    textFields: ['what', 'for_new_session'],
    titleField: 'what',
    parent: { key: 'phase_id', kind: 'phase', predicate: PREDICATES.inPhase },
  },
  tide: {
    kind: 'tide',
    label: 'Tide',
    memoryType: 'episodic',
    textFields: ['title', 'learnings'],
    titleField: 'title',
    parent: { key: 'path_id', kind: 'path', predicate: PREDICATES.executes },
  },
  pattern: {
    kind: 'pattern',
    label: 'Pattern',
    memoryType: 'procedural',
    textFields: ['name', 'summary', 'description', 'solution', 'use_when', 'problem_category'],
    titleField: 'name',
    // Optional: a pattern may be written by hand rather than harvested from a tide.
    parent: { key: 'tide_id', kind: 'tide', predicate: PREDICATES.harvestedFrom },
  },
};

/** Text of a field for the search index: strings as they are, structures as their leaf strings. */
export function textOf(value: unknown): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return value.map(textOf).filter(Boolean).join('\n');
  if (typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>)
      .map(([k, v]) => {
        const t = textOf(v);
        return t ? `${k}: ${t}` : '';
      })
      .filter(Boolean)
      .join('\n');
  }
  return '';
}

/** A readable, unique-by-number id: `phase_1_build_mvp_for_kg4epic` (seed 002 §4.1 style). */
export function slugId(kind: ProjectKind, n: number, title: string): string {
  const words = title
    .normalize('NFKD')
    .toLowerCase()
    .replace(/[^a-z0-9\s]/g, ' ')
    .split(/\s+/)
    .filter(Boolean)
    .slice(0, 5);
  return [kind, String(n), ...words].join('_').slice(0, 64).replace(/_+$/, '');
}
