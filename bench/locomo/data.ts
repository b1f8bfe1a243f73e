/**
 * Reading a LoCoMo-format file (an array of samples, each a multi-session conversation plus QA
 * items with the dia_ids of their evidence turns) into turns and questions ready to load and ask.
 * The file itself is CC BY-NC and is only ever read at bench time from outside the repository.
 */
import { readFile } from 'node:fs/promises';

export const LOCOMO_CATEGORIES: Record<number, string> = { 1: 'multi-hop', 2: 'temporal', 3: 'open-domain', 4: 'single-hop', 5: 'adversarial' };

export interface LocomoTurn {
  diaId: string;
  /** What is stored: `"<speaker>: <text>"`, plus the photo caption when the turn shares one. */
  content: string;
  /** The session's date-time: when the turn was said. */
  validFrom: Date;
}

export interface LocomoQuestion {
  text: string;
  category: number;
  /** Evidence dia_ids after cleaning (see cleanEvidence); empty means the question is not scored. */
  evidence: string[];
}

export interface LocomoSample {
  sampleId: string;
  turns: LocomoTurn[];
  questions: LocomoQuestion[];
}

export interface EvidenceRepairs {
  /** "D8:6; D9:17" in one string, split into two ids. */
  split: number;
  /** "D:11:26" rewritten to "D11:26". */
  rewritten: number;
  /** Ids naming no turn of the conversation: dropped, as no system could ever retrieve them. */
  dropped: number;
}

const MONTHS = ['january', 'february', 'march', 'april', 'may', 'june', 'july', 'august', 'september', 'october', 'november', 'december'];

/**
 * "1:56 pm on 8 May, 2023" → that instant in UTC. The file carries no time zone, and only the
 * order and distance between sessions matter, so UTC is as good as any. Throws on anything else
 * rather than guessing, so a format change shows up as an error, not as wrong dates.
 */
export function parseSessionDateTime(text: string): Date {
  const m = /^\s*(\d{1,2}):(\d{2})\s*([ap])\.?m\.?\s+on\s+(\d{1,2})\s+([a-z]+),?\s+(\d{4})\s*$/i.exec(text);
  const month = m ? MONTHS.indexOf(m[5]!.toLowerCase()) : -1;
  if (!m || month < 0) throw new Error(`unrecognised LoCoMo session date-time "${text}" (expected like "1:56 pm on 8 May, 2023")`);
  const hour12 = Number(m[1]);
  const minute = Number(m[2]);
  const day = Number(m[4]);
  const year = Number(m[6]);
  if (hour12 < 1 || hour12 > 12 || minute > 59) throw new Error(`invalid time in LoCoMo session date-time "${text}"`);
  // 12 am is midnight and 12 pm is noon.
  const hour = (hour12 % 12) + (m[3]!.toLowerCase() === 'p' ? 12 : 0);
  const date = new Date(Date.UTC(year, month, day, hour, minute));
  // Date.UTC rolls 31 April over into May; a date that does not exist is a bad input.
  if (date.getUTCDate() !== day || date.getUTCMonth() !== month) throw new Error(`invalid day in LoCoMo session date-time "${text}"`);
  return date;
}

export function turnContent(turn: { speaker: string; text: string; blip_caption?: string | null }): string {
  const caption = turn.blip_caption?.trim();
  return `${turn.speaker}: ${turn.text}${caption ? ` [shares a photo: ${caption}]` : ''}`;
}

/** Splits joined ids and fixes the one known typo shape; drops ids that name no turn. */
export function cleanEvidence(raw: readonly string[], known: ReadonlySet<string>, repairs: EvidenceRepairs): string[] {
  const out: string[] = [];
  for (const entry of raw) {
    const parts = String(entry)
      .split(/[;,\s]+/)
      .filter(Boolean);
    if (parts.length > 1) repairs.split++;
    for (let id of parts) {
      const typo = /^D:(\d+):(\d+)$/.exec(id);
      if (typo) {
        id = `D${typo[1]}:${typo[2]}`;
        repairs.rewritten++;
      }
      if (!known.has(id)) {
        repairs.dropped++;
        continue;
      }
      if (!out.includes(id)) out.push(id);
    }
  }
  return out;
}

interface RawTurn {
  speaker: string;
  dia_id: string;
  text: string;
  blip_caption?: string | null;
}

interface RawSample {
  sample_id: string;
  conversation: Record<string, unknown>;
  qa: Array<{ question: string; category: number; evidence?: string[] }>;
}

/** Samples with their turns in session order; repairs made to evidence lists are counted. */
export function parseLocomo(raw: unknown): { samples: LocomoSample[]; repairs: EvidenceRepairs } {
  if (!Array.isArray(raw)) throw new Error('a LoCoMo file is a JSON array of samples');
  const repairs: EvidenceRepairs = { split: 0, rewritten: 0, dropped: 0 };
  const samples = (raw as RawSample[]).map((s) => {
    const conv = s.conversation;
    const sessions = Object.keys(conv)
      .map((k) => /^session_(\d+)$/.exec(k))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]))
      .sort((a, b) => a - b);
    const turns: LocomoTurn[] = [];
    for (const n of sessions) {
      const when = conv[`session_${n}_date_time`];
      if (typeof when !== 'string') throw new Error(`${s.sample_id}: session_${n} has no session_${n}_date_time`);
      const validFrom = parseSessionDateTime(when);
      for (const t of conv[`session_${n}`] as RawTurn[]) turns.push({ diaId: t.dia_id, content: turnContent(t), validFrom });
    }
    const known = new Set(turns.map((t) => t.diaId));
    const questions = s.qa.map((q) => ({ text: String(q.question), category: Number(q.category), evidence: cleanEvidence(q.evidence ?? [], known, repairs) }));
    return { sampleId: String(s.sample_id), turns, questions };
  });
  return { samples, repairs };
}

export async function readLocomo(path: string): Promise<{ samples: LocomoSample[]; repairs: EvidenceRepairs }> {
  return parseLocomo(JSON.parse(await readFile(path, 'utf8')));
}
