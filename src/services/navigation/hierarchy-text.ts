/**
 * Finds stated hierarchy in text without a model: "X is a Y", "X is a kind of Y", "X are Ys",
 * "X is part of Y", "X belongs to Y". Names are short noun phrases (≤ 4 words), lower-cased;
 * pronouns and vague words are not names.
 */

import { withoutSpeaker } from './cause-text.js';

export interface HierarchyStatement {
  child: string;
  parent: string;
  relation: 'is_a' | 'part_of';
}

const NOT_A_NAME = new Set([
  'i',
  'it',
  'he',
  'she',
  'they',
  'we',
  'you',
  'this',
  'that',
  'there',
  'here',
  'what',
  'which',
  'who',
  'one',
  'thing',
  'things',
  'lot',
  'bit',
  'way',
  'time',
  'good',
  'great',
  'big',
  'little',
  'nice',
  'fun',
  'huge',
  'real',
  'new',
  'lot of',
  'something',
  'everything',
  'nothing',
  'anything',
  'all',
  'life',
  'part',
  'kind',
  'type',
  'sort',
  'member',
  'fan',
  'reminder',
  'sign',
  'chance',
  'must',
  'hit',
  'blast',
  'dream',
  'relief',
  'pleasure',
]);
const STOP_AFTER = /\b(and|but|or|that|which|who|with|for|in|on|at|to|from|because|so|when|where|while|if|of|as|by|like|than|since|after|before)\b/i;
const LEAD_WORDS = /^(the|a|an|my|our|your|his|her|their|its|this|that|these|those)\s+/i;

function name(raw: string, fromEnd: boolean): string {
  let words = raw
    .replace(/[^\p{L}\p{N}\s'-]/gu, ' ')
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  if (fromEnd) words = words.slice(-3);
  else {
    const cut = words.findIndex((w, i) => i > 0 && STOP_AFTER.test(w));
    words = (cut === -1 ? words : words.slice(0, cut)).slice(0, 4);
  }
  const n = words.join(' ').toLowerCase().replace(LEAD_WORDS, '').trim();
  if (n.length < 2 || n.length > 60 || NOT_A_NAME.has(n) || /^\d+$/.test(n)) return '';
  return n;
}

const PATTERNS: Array<{ re: RegExp; relation: HierarchyStatement['relation'] }> = [
  { re: /([\p{L}\p{N}' -]{2,60}?)\s+(?:is|are|was|were)\s+(?:a|an)\s+(?:kind|type|sort|form)\s+of\s+([^.,;!?]{2,60})/iu, relation: 'is_a' },
  { re: /([\p{L}\p{N}' -]{2,60}?)\s+(?:is|are|was|were)\s+(?:a\s+)?part\s+of\s+([^.,;!?]{2,60})/iu, relation: 'part_of' },
  { re: /([\p{L}\p{N}' -]{2,60}?)\s+belongs?\s+to\s+([^.,;!?]{2,60})/iu, relation: 'part_of' },
  { re: /([\p{L}\p{N}' -]{2,60}?)\s+(?:is|was)\s+(?:a|an)\s+([^.,;!?]{2,60})/iu, relation: 'is_a' },
];

/** Every hierarchy statement in `text`, one per sentence at most (the most specific pattern first). */
export function hierarchyStatements(text: string): HierarchyStatement[] {
  const out: HierarchyStatement[] = [];
  for (const s of withoutSpeaker(text).split(/(?<=[.!?])\s+|\n+/)) {
    for (const { re, relation } of PATTERNS) {
      const m = re.exec(s);
      if (!m) continue;
      // The child is the last words before the verb ("My dog Rex is a poodle" → "dog rex").
      const child = name(m[1]!, true);
      const parent = name(m[2]!, false);
      if (child && parent && child !== parent) out.push({ child, parent, relation });
      break;
    }
  }
  return out;
}
