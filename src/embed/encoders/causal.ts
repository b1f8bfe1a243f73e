import { CAUSE_FOLLOWS_CUES, EFFECT_FOLLOWS_CUES } from '../causal-cues.js';
import { l2normalize, type SpaceEncoder } from '../encoder.js';

/**
 * E5, asymmetric causality. A memory's vector has a cause half, an effect half and one
 * "no causal structure" slot: [cause · ½√2 ; effect · ½√2 ; 0] when the text links clauses by a
 * causal marker ("A because B": cause B, effect A; "B led to A": the same), [t/2 ; t/2 ; ½√2]
 * otherwise (t = the whole text). Each half is the E1 vector of its clause, so the space is as
 * semantic as E1 but knows which side of a cause a phrase sits on:
 *   "why A?"                  → [0 ; A ; 0]   finds memories whose *effect* is like A,
 *   "what did B lead to?"     → [B ; 0 ; 0]   finds memories whose *cause* is like B,
 * and a causal memory outranks a plain mention of the same words (½√2 against ½·½√2 per half).
 */
export const CAUSAL_MODEL_PREFIX = 'causal-clauses-v1';

export interface CausalParts {
  cause: string;
  effect: string;
}

// Marker → which side comes first. Longer phrases first so "as a result of" wins over "as a result".
const EFFECT_FIRST = CAUSE_FOLLOWS_CUES;
const CAUSE_FIRST = [
  ...EFFECT_FOLLOWS_CUES,
  'result in',
  // Bare "so" is mostly an intensifier ("so happy"); after a comma it joins a cause to its effect.
  ', so',
];
const MARKERS = [...EFFECT_FIRST.map((m) => ({ m, effectFirst: true })), ...CAUSE_FIRST.map((m) => ({ m, effectFirst: false }))].sort((a, b) => b.m.length - a.m.length);
const MARKER_RE = new RegExp(`\\b(${MARKERS.map((x) => x.m.replace(/'/g, "'")).join('|')})\\b`, 'i');
const EFFECT_FIRST_SET = new Set(EFFECT_FIRST);

/** Questions asking for a cause (the rest of the question is the effect) or for an effect. */
const ASKS_CAUSE = /^\s*(?:why\b|what (?:caused|causes|made|makes|led to|leads to)\b|what is the reason (?:for|why)\b|what was the reason (?:for|why)\b|how come\b)/i;
const ASKS_EFFECT =
  /^\s*(?:what (?:did|does|will|would|could|might) (.+?) (?:lead to|cause|result in|bring about)\b|what happened (?:because of|after|due to)\b|what (?:is|was|are|were) the (?:effects?|results?|consequences?|outcomes?) of\b)/i;

/** Splits a text into what it says causes what; null when no sentence has a causal marker. */
export function causalParts(text: string): CausalParts | null {
  const causes: string[] = [];
  const effects: string[] = [];
  for (const sentence of text.split(/(?<=[.!?;\n])\s+/)) {
    const m = MARKER_RE.exec(sentence);
    if (!m) continue;
    const before = sentence.slice(0, m.index).trim();
    const after = sentence.slice(m.index + m[0].length).trim();
    if (!before && !after) continue;
    const effectFirst = EFFECT_FIRST_SET.has(m[1]!.toLowerCase());
    // "Because B, A": the marker opens the sentence, so the first clause is the cause.
    if (effectFirst && !before) {
      const [b, ...rest] = after.split(',');
      causes.push(b!);
      effects.push(rest.join(','));
    } else if (effectFirst) {
      effects.push(before);
      causes.push(after);
    } else {
      causes.push(before);
      effects.push(after);
    }
  }
  return causes.length ? { cause: causes.join(' '), effect: effects.join(' ') } : null;
}

/** What a question asks for: its topic sits on the effect side ("why A?") or the cause side. */
export function causalQuestion(text: string): { side: 'cause' | 'effect'; topic: string } | null {
  const asksEffect = ASKS_EFFECT.exec(text);
  if (asksEffect) return { side: 'cause', topic: asksEffect[1] ?? text.slice(asksEffect[0].length) };
  const asksCause = ASKS_CAUSE.exec(text);
  if (asksCause) return { side: 'effect', topic: text.slice(asksCause[0].length) };
  return null;
}

/** Wraps the E1 encoder of the same worker: every half is an E1 vector of a clause. */
export function createCausalEncoder(e1: SpaceEncoder): SpaceEncoder {
  const d = e1.info.dim;
  const half = Math.SQRT1_2;
  return {
    info: { space: 'E5', modelId: `${CAUSAL_MODEL_PREFIX}+${e1.info.modelId}`, dim: 2 * d + 1, provider: e1.info.provider },
    async encode(texts) {
      // One E1 batch for every clause of every text.
      const plan = texts.map((t) => {
        const q = causalQuestion(t);
        if (q) return { kind: q.side, clauses: [q.topic] } as const;
        const parts = causalParts(t);
        return parts ? ({ kind: 'both', clauses: [parts.cause, parts.effect] } as const) : ({ kind: 'plain', clauses: [t] } as const);
      });
      const flat = await e1.encode(plan.flatMap((p) => p.clauses));
      let k = 0;
      return plan.map((p) => {
        const v = new Float32Array(2 * d + 1);
        const put = (vec: Float32Array, at: number, scale: number) => {
          for (let i = 0; i < d; i++) v[at + i] = vec[i]! * scale;
        };
        if (p.kind === 'both') {
          put(flat[k++]!, 0, half);
          put(flat[k++]!, d, half);
        } else if (p.kind === 'plain') {
          const t = flat[k++]!;
          put(t, 0, 0.5);
          put(t, d, 0.5);
          v[2 * d] = half;
        } else {
          put(flat[k++]!, p.kind === 'cause' ? 0 : d, 1);
        }
        // A clause with no known word gives a zero half; the slot keeps the vector comparable.
        if (v.every((x) => x === 0)) v[2 * d] = 1;
        return l2normalize(v);
      });
    },
    close: () => Promise.resolve(e1.close?.()),
  };
}
