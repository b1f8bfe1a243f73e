import { CAUSE_FOLLOWS_CUES, EFFECT_FOLLOWS_CUES } from '../../embed/causal-cues.js';
/**
 * Finds stated causes in text without a model: a cue phrase splits a sentence into the clause
 * that causes and the clause that follows. A cue that opens the text ("Because …", "So …",
 * "As a result, …") leaves one side empty: that side is the previous turn of the conversation.
 */

export interface CausalStatement {
  /** The cue as written, lower-cased ("because", "leads to", …). */
  cue: string;
  /** cause_follows: "<effect> because <cause>"; effect_follows: "<cause> so <effect>". */
  role: 'cause_follows' | 'effect_follows';
  /** The clause after the cue (the other side of the link); '' when nothing usable follows. */
  clause: string;
  /** The cue opens the text: its other side is the previous turn, not a clause. */
  opensText: boolean;
}

/** Cues after which the cause follows: "<effect> because <cause>". */
const CAUSE_FOLLOWS = CAUSE_FOLLOWS_CUES;
/** Cues after which the effect follows: "<cause> so <effect>". */
const EFFECT_FOLLOWS = [...EFFECT_FOLLOWS_CUES, 'so that', 'so'];

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/'/g, "['’]");
const CUE_RE = new RegExp(
  `\\b(${[...CAUSE_FOLLOWS, ...EFFECT_FOLLOWS]
    .sort((a, b) => b.length - a.length)
    .map(escape)
    .join('|')})\\b`,
  'i',
);

/** A clause worth matching: at least two words once trimmed of punctuation and fillers. */
function clause(text: string): string {
  const t = text
    .replace(/^[\s,;:—–-]+|[\s,;:.!?—–-]+$/g, '')
    .replace(/^(and|but|then|well|oh|yeah|yes|no|i think|i guess)\b[\s,]*/i, '')
    .trim();
  return t.split(/\s+/).filter(Boolean).length >= 2 ? t : '';
}

/** Transcripts store a turn as "<speaker>: <text>"; the label is not part of the first sentence. */
export function withoutSpeaker(text: string): string {
  return text.replace(/^\s*[\p{Lu}][\p{L}\p{N} .'-]{0,40}:\s+/u, '');
}

function sentences(text: string): string[] {
  return withoutSpeaker(text)
    .split(/(?<=[.!?])\s+|\n+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** "since" is temporal as often as causal; only "since" followed by a subject pronoun or article counts. */
function isCausalSince(after: string): boolean {
  return /^\s*(i|you|we|they|he|she|it|the|my|our|there)\b/i.test(after);
}

/**
 * Every causal statement in `text`, one per sentence at most (the first cue), in order. The text
 * itself stands for the clause before the cue; the clause after it is what to link to.
 */
export function causalStatements(text: string): CausalStatement[] {
  const out: CausalStatement[] = [];
  sentences(text).forEach((s, index) => {
    const m = CUE_RE.exec(s);
    if (!m) return;
    const cue = m[1]!.toLowerCase().replace(/’/g, "'");
    const before = s.slice(0, m.index);
    const after = s.slice(m.index + m[0].length);
    if (cue === 'since' && !isCausalSince(after)) return;
    // "so" is a cue only before a clause, not in "so much", "so far", "I think so".
    if (
      cue === 'so' &&
      (/^\s*(much|many|far|good|great|glad|happy|sorry|cool|nice|excited|proud|lucky|long|very|too|little|funny|cute|true)\b/i.test(after) || clause(after) === '')
    )
      return;
    const leading = before.trim().replace(/[\s,]+$/, '') === '';
    const opensText = leading && index === 0;
    const role = CAUSE_FOLLOWS.includes(cue) ? 'cause_follows' : 'effect_follows';
    const c = clause(after.split(/[,;]|\s+and\s+/)[0] ?? '');
    if (!opensText && c === '') return;
    if (leading && !opensText) return;
    out.push({ cue, role, clause: c, opensText });
  });
  return out;
}
