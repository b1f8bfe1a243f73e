/**
 * Prompt-injection signals in a text, without a model: instructions aimed at the agent that
 * reads the text back (override its instructions, take a new role, keep secrets from the user,
 * leak its prompt, call tools), chat-template role markers, invisible or direction-changing
 * characters, and links that would carry data out. Each signal has a weight (how often it means
 * an attack on its own); the score combines them as independent evidence, 1 − Π(1 − w).
 *
 * Words are matched on a normalised copy (invisible characters removed, s p a c e d letters
 * joined), so hiding a phrase does not hide it. A phrase inside quotation marks is a mention
 * ("the detector looks for 'ignore previous instructions'"), not an instruction: its weight is
 * scaled down.
 */

export const INJECTION_SIGNALS = [
  'instruction_override',
  'role_reassignment',
  'role_marker',
  'agent_directive',
  'secrecy',
  'prompt_leak',
  'exfiltration_link',
  'tool_abuse',
  'authority_claim',
  'hidden_characters',
] as const;
export type InjectionSignal = (typeof INJECTION_SIGNALS)[number];

export interface InjectionFinding {
  signal: InjectionSignal;
  weight: number;
  /** The matched text (normalised), at most 120 characters. */
  excerpt: string;
}

export interface InjectionVerdict {
  score: number;
  flagged: boolean;
  findings: InjectionFinding[];
}

/** A text scoring at least this is flagged as an injection. */
export const INJECTION_THRESHOLD = 0.6;
/** A match inside quotation marks counts this share of its weight. */
const QUOTED_SHARE = 0.4;

const ZERO_WIDTH = /[\u200b-\u200d\u2060-\u2064\ufeff]/gu;
const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069\u061c]/gu;
const TAG_CHARACTERS = /[\u{e0000}-\u{e007f}]/gu;

const AGENT = String.raw`(?:ai|a\.i\.|assistant|agent|model|llm|language model|chatbot|bot|claude|chatgpt|gpt|gemini|copilot)s?`;
const RULES = String.raw`(?:instructions?|instrucciones|instructions|anweisungen|istruzioni|instruções|directions?|directives?|guidance|guidelines?|rules|prompts?|system (?:prompt|message)|constraints|policies|policy|restrictions|commands|orders|programming|context|messages)`;
const EARLIER = String.raw`(?:all|any|every|the|your|my|these|those|its|of)?\s*(?:the\s+)?(?:previous|prior|above|earlier|preceding|initial|original|existing|old|past|safety|former|system|current)`;

interface Rule {
  signal: InjectionSignal;
  weight: number;
  re: RegExp;
}

const RULES_LIST: readonly Rule[] = [
  // "ignore all previous instructions", "disregard your system prompt", "forget everything above"
  {
    signal: 'instruction_override',
    weight: 0.9,
    re: new RegExp(
      String.raw`\b(?:ignore|disregard|forget|override|bypass|skip|drop|abandon|discard|ignorez|ignora|ignorar|vergiss|ignoriere|oublie[zr]?)\b[\s\w,'’]{0,24}?\b${EARLIER}\b[\s\w,'’]{0,16}?\b${RULES}`,
      'gi',
    ),
  },
  {
    signal: 'instruction_override',
    weight: 0.85,
    re: new RegExp(String.raw`\b(?:ignore|disregard|bypass|forget|override)\s+(?:all\s+|any\s+)?(?:your|the)\s+(?:own\s+)?${RULES}`, 'gi'),
  },
  { signal: 'instruction_override', weight: 0.8, re: /\b(?:forget|ignore|disregard)\s+(?:everything|all)\s+(?:above|before|prior|previously|you were told)\b/gi },
  { signal: 'instruction_override', weight: 0.6, re: /\b(?:ignore|disregard)\s+(?:what|anything|everything)\s+you\s+(?:were|have been)\s+told\b/gi },
  {
    signal: 'instruction_override',
    weight: 0.8,
    re: new RegExp(
      String.raw`\b(?:previous|prior|earlier|old|your)\s+${RULES}\s+(?:no longer apply|are (?:void|deprecated|cancelled|canceled|obsolete|invalid)|were (?:a test|fake|wrong))`,
      'gi',
    ),
  },
  {
    signal: 'instruction_override',
    weight: 0.8,
    re: /\b(?:begin|start)\s+new\s+instructions\b|\bnew\s+instructions\s*:|\b(?:reset|update)\s+your\s+instructions\b|\byour\s+(?:real|new|actual)\s+instructions\b/gi,
  },
  { signal: 'instruction_override', weight: 0.8, re: /\ball\s+(?:previous|prior)\s+constraints\b|\bnew\s+rule\s*:/gi },
  // "you are now DAN", "from now on you will", "your new role", "pretend to be the admin"
  {
    signal: 'role_reassignment',
    weight: 0.8,
    re: new RegExp(
      String.raw`\byou\s+are\s+(?:now|no\s+longer)\b[\s\w,'’-]{0,40}?\b(?:${AGENT}|dan|mode|unrestricted|unfiltered|jailbroken|shell|hacker|free|called|named)\b`,
      'gi',
    ),
  },
  { signal: 'role_reassignment', weight: 0.75, re: /\bfrom\s+now\s+on,?\s+you\s+(?:will|must|are|should|shall|can)\b/gi },
  { signal: 'role_reassignment', weight: 0.75, re: /\byour\s+new\s+(?:role|task|persona|identity|name|job)\b/gi },
  {
    signal: 'role_reassignment',
    weight: 0.75,
    re: new RegExp(
      String.raw`\b(?:act|behave|respond|answer)\s+as\s+(?:an?\s+|the\s+)?(?:unrestricted|unfiltered|uncensored|jailbroken|evil|different|root|admin|system)\b|\b(?:pretend|roleplay|role-play)\s+(?:to\s+be|you\s+are|as)\s+(?:an?\s+|the\s+)?(?:${AGENT}|system|root|admin|administrator|developer|operator)`,
      'gi',
    ),
  },
  {
    signal: 'role_reassignment',
    weight: 0.5,
    re: /\b(?:jailbreak|jailbroken|developer\s+mode\b.{0,60}\b(?:ignore|safety|restriction|rules|comply)|safety\s+mode\s+is\s+off|no\s+(?:rules|restrictions|filters?)\b)/gi,
  },
  // Chat-template markers: only a template or an injected transcript puts them in a memory.
  {
    signal: 'role_marker',
    weight: 0.8,
    re: /<\|(?:im_start|im_end|system|user|assistant|endoftext)\|>|\[\/?INST\]|<\/?(?:system|assistant|memory)>|"role"\s*:\s*"system"|^\s*role\s*:\s*system\b|\[system\]\(#/gim,
  },
  {
    signal: 'role_marker',
    weight: 0.45,
    re: /^\s*(?:#{1,4}\s*)?(?:system|assistant|developer(?:\s+message)?|instruction)\s*:?\s*$|^\s*(?:system|assistant|developer(?:\s+message)?)\s*:/gim,
  },
  // Text that addresses the agent reading it.
  {
    signal: 'agent_directive',
    weight: 0.6,
    re: new RegExp(
      String.raw`\b(?:note|message|instructions?|p\.?s\.?|reminder|attention)\s*(?:to|for)?\s*(?:the|any|all|every)?\s*(?:autonomous\s+)?${AGENT}\b|\bif\s+you\s+are\s+an?\s+${AGENT}\b|\b(?:hey|hi|dear|attention|ok(?:ay)?)\s*,?\s+${AGENT}\b|\b(?:any|all|every)\s+(?:autonomous\s+)?${AGENT}\b[\s\w]{0,20}\b(?:reading|read|reads|processing|that|who)\b`,
      'gi',
    ),
  },
  {
    signal: 'agent_directive',
    weight: 0.6,
    re: new RegExp(
      String.raw`\b(?:the|this|you,?)\s*${AGENT}\s*,?\s+(?:must|should|shall|will\s+now|is\s+to|needs?\s+to|has\s+to)\b|^\s*${AGENT}\s*[,:]\s+(?:please\s+)?\w`,
      'gim',
    ),
  },
  {
    signal: 'agent_directive',
    weight: 0.45,
    re: /\bwhen(?:ever)?\s+you\s+(?:read|retrieve|see|process|summari[sz]e)\s+this\b|\b(?:before|when)\s+you\s+answer\b.{0,40}\b(?:secretly|silently|call|send)\b/gi,
  },
  // Keeping the user in the dark.
  {
    signal: 'secrecy',
    weight: 0.65,
    re: /\b(?:do\s+not|don['’]?t|never)\s+(?:tell|inform|mention\s+(?:this|it)\s+to|reveal\s+(?:this|it)\s+to|let)\s+the\s+user\b|\bwithout\s+(?:telling|informing|notifying|asking)\s+the\s+user\b|\b(?:keep|hide)\s+this\s+(?:secret|hidden)\s+from\s+the\s+user\b|\bdo\s+not\s+(?:mention|reveal)\s+this\s+(?:instruction|rule|note)\b|\btell\s+the\s+user\s+(?:this\s+note\s+never|nothing)\b|\bas\s+if\s+nothing\s+happened\b/gi,
  },
  { signal: 'secrecy', weight: 0.5, re: /\b(?:silently|secretly|quietly|covertly)\s+(?:call|send|email|append|replace|add|forward|export|delete|upload|post|include)\b/gi },
  // Getting the agent to print its own prompt.
  {
    signal: 'prompt_leak',
    weight: 0.75,
    re: /\b(?:reveal|print|output|show|repeat|display|dump|leak|share|give|tell|reply\s+with)\s+(?:me\s+)?(?:all\s+)?(?:your|the|its)\s+(?:full\s+|entire\s+|whole\s+|hidden\s+|initial\s+|original\s+|secret\s+)*(?:system\s+(?:prompt|message)|instructions|prompt|configuration|rules|secrets|hidden\s+\w+)\b|\bwhat\s+is\s+your\s+system\s+prompt\b|\btext\s+above\s+starting\s+with\b|\b(?:affichez|revela|gib)\b.{0,30}\b(?:prompt|contraseña|schlüssel|système)/gi,
  },
  // Links and instructions that carry data out.
  {
    signal: 'exfiltration_link',
    weight: 0.75,
    re: /https?:\/\/[^\s)"'>]*[?&][\w-]*=(?:[^\s)"'>&]*(?:\{\{?[^}\s]*(?:conversation|history|chat|session|token|secret|key|password|user|data|memor|messages?|context|email)[^}\s]*\}\}?|\$[A-Z_]{3,}|<insert[^>]*>|SECRET|TOKEN))|https?:\/\/[^\s)"'>]*[?&][\w-]+=(?=[\s)"'>]|$)/gi,
  },
  { signal: 'exfiltration_link', weight: 0.55, re: /!\[[^\]]*\]\(https?:\/\/[^)\s]*\?[^)\s]*\{[^)]*\)|<img\s[^>]*src=["']https?:\/\/[^"']*\?[^"']*\{/gi },
  {
    signal: 'exfiltration_link',
    weight: 0.7,
    re: /\b(?:send|post|upload|forward|email|transmit|exfiltrate|leak|append|copy|transfer)\b[\s\w'’,.~/-]{0,50}?\b(?:conversation|transcript|chat|history|token|password|credentials?|api\s+keys?|secrets?|session|ssh|id_rsa|private|location|emails?|all\s+files|memories|data)\b[\s\w'’,.~/-]{0,40}?\b(?:to|at)\s+(?:https?:\/\/|[\w.+-]+@[\w-]+\.|the\s+(?:external|address))/gi,
  },
  { signal: 'exfiltration_link', weight: 0.5, re: /\bexfiltrat\w*\b/gi },
  // Tools and commands an attacker wants run.
  {
    signal: 'tool_abuse',
    weight: 0.55,
    re: /\b(?:call|run|execute|invoke|use)\s+(?:the\s+)?(?:forget_concept|delete|purge|export_graph|merge_concepts|boost_importance)\b|\bcurl\s+\S+\s*\|\s*(?:ba)?sh\b|\brm\s+-rf\s+[/~](?:\s|$|`)|\bcat\s+\/etc\/(?:passwd|shadow)\b|\b(?:delete|purge|wipe|remove|forward)\s+(?:all|every)\s+(?:memor\w*|nodes?|entr\w*|files?|data|emails?)\b|\bwithout\s+(?:confirmation|review|asking)\b|\bshut\s+down\s+the\s+service\b|\benvironment\s+variables\b.{0,20}$/gim,
  },
  // Claims of authority over the agent's instructions.
  {
    signal: 'authority_claim',
    weight: 0.6,
    re: /\b(?:system|safety)\s+override\b|\boverrides?\s+(?:any|all|the|your)\s+(?:\w+\s+)?(?:instructions?|system\s+prompt|rules)\b|\bthis\s+is\s+your\s+(?:operator|developer|creator|administrator)\b|\b(?:i|we)\s+authori[sz]e\s+you\s+to\b|\bhighest\s+priority\b|\byou\s+have\s+been\s+updated\b|\bclearance\s+level\b|\bthis\s+overrides\b|\bend\s+of\s+user\s+data\b/gi,
  },
];

/** Spans inside "…", “…” or '…' of the text (where a phrase is a mention, not an order). */
function quotedSpans(text: string): Array<[number, number]> {
  const spans: Array<[number, number]> = [];
  for (const m of text.matchAll(/"[^"\n]{3,200}"|“[^”\n]{3,200}”|(?<![\w])'[^'\n]{3,200}'(?![\w])/gu)) spans.push([m.index, m.index + m[0].length]);
  return spans;
}

/** Removes invisible characters and joins letters written one by one ("i g n o r e"). */
export function normaliseForMatching(text: string): string {
  const visible = text
    .replace(ZERO_WIDTH, '')
    .replace(BIDI_CONTROL, '')
    .replace(TAG_CHARACTERS, '')
    .replace(/[\u200e\u200f]/gu, '');
  // NFKC folds what Unicode case-insensitive matching used to (ſ → s, the Kelvin sign → K) and
  // more (full-width letters, ligatures), so the rules match without the `u` flag, which made
  // them about four times slower (every rendered memory card runs them).
  return visible.normalize('NFKC').replace(/\b(?:\p{L} ){3,}\p{L}\b/gu, (run) => run.replace(/ /g, ''));
}

function hiddenCharacterFindings(text: string): InjectionFinding[] {
  const out: InjectionFinding[] = [];
  const tags = text.match(TAG_CHARACTERS)?.length ?? 0;
  if (tags > 0) out.push({ signal: 'hidden_characters', weight: 0.9, excerpt: `${tags} Unicode tag character(s) (invisible ASCII)` });
  const bidi = text.match(BIDI_CONTROL)?.length ?? 0;
  if (bidi > 0) out.push({ signal: 'hidden_characters', weight: 0.6, excerpt: `${bidi} bidirectional override/isolate character(s)` });
  // Zero-width characters inside Latin words split them so that filters miss the word.
  const insideWords = text.match(/[A-Za-z][\u200b-\u200d\u2060\ufeff]+[A-Za-z]/gu)?.length ?? 0;
  const zeroWidth = text.match(ZERO_WIDTH)?.length ?? 0;
  if (insideWords > 0 || zeroWidth >= 3) out.push({ signal: 'hidden_characters', weight: 0.5, excerpt: `${zeroWidth} zero-width character(s), ${insideWords} inside words` });
  return out;
}

/** Every injection signal in `text`, its combined score and whether it is flagged. */
export function detectInjection(text: string): InjectionVerdict {
  const normal = normaliseForMatching(text);
  const quoted = quotedSpans(normal);
  const findings: InjectionFinding[] = hiddenCharacterFindings(text);
  for (const rule of RULES_LIST) {
    rule.re.lastIndex = 0;
    for (const m of normal.matchAll(rule.re)) {
      const inQuotes = quoted.some(([a, b]) => m.index >= a && m.index + m[0].length <= b);
      findings.push({ signal: rule.signal, weight: inQuotes ? rule.weight * QUOTED_SHARE : rule.weight, excerpt: m[0].trim().slice(0, 120) });
      break;
    }
  }
  // One finding per signal counts (the strongest): repeating a phrase is not more evidence.
  const strongest = new Map<InjectionSignal, InjectionFinding>();
  for (const f of findings) if ((strongest.get(f.signal)?.weight ?? -1) < f.weight) strongest.set(f.signal, f);
  const kept = [...strongest.values()].sort((a, b) => b.weight - a.weight);
  const score = 1 - kept.reduce((p, f) => p * (1 - f.weight), 1);
  return { score: Math.round(score * 1000) / 1000, flagged: score >= INJECTION_THRESHOLD, findings: kept };
}
