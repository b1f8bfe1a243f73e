/**
 * The labelled retrieval-quality set, generated from a seed so every run and machine gets the
 * same memories, queries and judgements. It is built to be not trivially lexical:
 *
 * - paraphrase: the query asks for a fact in other words ("repeat attempts" for "retries");
 *   usually only the entity name is shared, and that entity has several other memories.
 * - detail: one detail inside a long meeting note (a small part of a long text), asked with
 *   one anchor word of that detail ("runbook", "load test") and otherwise other words.
 * - temporal: "what did X say last week" (relative to the set's fixed `today`) and "on 10 March".
 * - two_hop: the answer is about a team; the query names a service that team owns (the
 *   ownership memory is the hop, judged relevant with a lower grade).
 * - near_duplicate: facts that differ in one detail (staging vs production vs an old value), and
 *   restatements of the same fact (both relevant).
 * - distractors: filler memories that reuse the same entities and vocabulary.
 *
 * Gains: 2 = answers the question, 1 = useful hop or partial answer.
 */
import { mulberry32 } from '../corpus.js';

export type QueryCategory = 'paraphrase' | 'detail' | 'temporal' | 'two_hop' | 'near_duplicate';

export interface LabelledMemory {
  key: string;
  content: string;
  topic: string;
  tags: string[];
  /** When the memory was made (temporal memories), ISO; otherwise null (now). */
  created_at: string | null;
  kind: QueryCategory | 'distractor';
}

export interface LabelledQuery {
  id: string;
  category: QueryCategory;
  text: string;
  /** memory key → gain (2 answers, 1 hop/partial). */
  relevant: Record<string, number>;
}

export interface QualitySet {
  seed: number;
  today: string;
  memories: LabelledMemory[];
  queries: LabelledQuery[];
}

const SERVICE_ROOTS = [
  'ledger',
  'atlas',
  'beacon',
  'cobalt',
  'ember',
  'harbor',
  'iris',
  'juniper',
  'kepler',
  'lumen',
  'meridian',
  'nimbus',
  'orion',
  'pylon',
  'quartz',
  'raven',
  'sierra',
  'tundra',
  'vega',
  'willow',
];
const SERVICE_KINDS = ['api', 'worker', 'gateway', 'scheduler'];
const PEOPLE = [
  'Alice',
  'Bruno',
  'Chiara',
  'Dmitri',
  'Esther',
  'Farid',
  'Greta',
  'Hiro',
  'Ines',
  'Jonas',
  'Kemal',
  'Leila',
  'Marco',
  'Nadia',
  'Oskar',
  'Priya',
  'Quentin',
  'Rosa',
  'Soren',
  'Tamar',
  'Umar',
  'Vera',
  'Wen',
  'Ximena',
  'Yusuf',
  'Zofia',
  'Anton',
  'Beatriz',
  'Cyril',
  'Dalia',
];
const TEAMS = ['Otter', 'Heron', 'Lynx', 'Badger', 'Marten', 'Osprey', 'Puffin', 'Wombat', 'Gecko', 'Bison', 'Koala', 'Walrus'];
const DAYS = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
const DATABASES = ['PostgreSQL', 'Cassandra', 'DynamoDB', 'Redis', 'MySQL', 'SQLite'];
const LANGUAGES = ['Go', 'Rust', 'Kotlin', 'Elixir', 'TypeScript', 'Python'];
const CITIES = ['Lisbon', 'Nairobi', 'Osaka', 'Montreal', 'Tallinn', 'Bogota', 'Krakow', 'Auckland'];
const FOODS = ['peanuts', 'shellfish', 'gluten', 'sesame', 'dairy'];
const WIKI = ['Operations', 'Platform', 'Handbook', 'Reliability', 'Onboarding'];
const STATEMENTS = [
  'the schema migration is blocked on a review',
  'the vendor contract renewal needs another signature',
  'the flaky integration test comes from a race in the cache warm-up',
  'the quarterly roadmap should drop the reporting revamp',
  'the new laptop images are ready for the interns',
  'customer churn went down after the pricing change',
  'the incident review should happen before the freeze',
  'the hiring panel wants one more systems design round',
  'the office move is postponed until the summer',
  'the budget for conference travel was approved',
  'the mobile crash rate doubled after the last release',
  'the security audit found two medium findings',
];

interface Concept {
  name: string;
  memory: (s: string, v: string) => string;
  query: (s: string) => string;
  value: (r: () => number) => string;
}

const SERVICE_CONCEPTS: Concept[] = [
  {
    name: 'retries',
    memory: (s, v) => `${s} retries failed requests at most ${v} times before giving up.`,
    query: (s) => `how many repeat attempts does ${s} make when a call does not succeed?`,
    value: (r) => String(2 + Math.floor(r() * 6)),
  },
  {
    name: 'timeout',
    memory: (s, v) => `Requests to ${s} time out after ${v} seconds.`,
    query: (s) => `how long before a call to ${s} is abandoned?`,
    value: (r) => String(5 + Math.floor(r() * 55)),
  },
  {
    name: 'pager',
    memory: (s, v) => `Pages for ${s} go to ${v} this quarter.`,
    query: (s) => `who gets woken up at night when ${s} breaks?`,
    value: (r) => PEOPLE[Math.floor(r() * PEOPLE.length)]!,
  },
  {
    name: 'release',
    memory: (s, v) => `${s} ships to production every ${v}.`,
    query: (s) => `on which weekday do new versions of ${s} go live?`,
    value: (r) => DAYS[Math.floor(r() * DAYS.length)]!,
  },
  {
    name: 'storage',
    memory: (s, v) => `${s} keeps its state in ${v}.`,
    query: (s) => `which database engine backs ${s}?`,
    value: (r) => DATABASES[Math.floor(r() * DATABASES.length)]!,
  },
  {
    name: 'cost',
    memory: (s, v) => `${s} spends about ${v} thousand dollars a month on compute.`,
    query: (s) => `how expensive is ${s} to run?`,
    value: (r) => String(3 + Math.floor(r() * 40)),
  },
  {
    name: 'sunset',
    memory: (s, v) => `${s} will be switched off at the end of ${v}.`,
    query: (s) => `when is ${s} being retired?`,
    value: (r) => MONTHS[Math.floor(r() * MONTHS.length)]!,
  },
  {
    name: 'language',
    memory: (s, v) => `${s} is written in ${v}.`,
    query: (s) => `which programming language was used to build ${s}?`,
    value: (r) => LANGUAGES[Math.floor(r() * LANGUAGES.length)]!,
  },
  {
    name: 'ratelimit',
    memory: (s, v) => `${s} allows ${v} calls per minute for each client.`,
    query: (s) => `what is the throttling threshold of ${s}?`,
    value: (r) => String(60 * (1 + Math.floor(r() * 20))),
  },
];

const PERSON_CONCEPTS: Concept[] = [
  { name: 'city', memory: (p, v) => `${p} works remotely from ${v}.`, query: (p) => `in which town is ${p} based?`, value: (r) => CITIES[Math.floor(r() * CITIES.length)]! },
  {
    name: 'allergy',
    memory: (p, v) => `${p} is allergic to ${v}.`,
    query: (p) => `what food should we avoid ordering for ${p}?`,
    value: (r) => FOODS[Math.floor(r() * FOODS.length)]!,
  },
  {
    name: 'leave',
    memory: (p, v) => `${p} is on parental leave until ${v}.`,
    query: (p) => `when is ${p} back in the office?`,
    value: (r) => MONTHS[Math.floor(r() * MONTHS.length)]!,
  },
];

interface Detail {
  sentence: (s: string, p: string, v: string) => string;
  query: (s: string, p: string) => string;
  keyed: 'service' | 'person';
  value: (r: () => number) => string;
}

const DETAILS: Detail[] = [
  {
    keyed: 'service',
    sentence: (s, _p, v) => `The metrics exporter of ${s} listens on port ${v}.`,
    query: (s) => `which port does the metrics endpoint of ${s} use?`,
    value: (r) => String(9000 + Math.floor(r() * 900)),
  },
  {
    keyed: 'service',
    sentence: (s, _p, v) => `The ${s} runbook now lives in the ${v} wiki space.`,
    query: (s) => `where is the runbook for ${s} kept?`,
    value: (r) => WIKI[Math.floor(r() * WIKI.length)]!,
  },
  { keyed: 'service', sentence: (s, p) => `${p} will present the ${s} postmortem next week.`, query: (s) => `who will give the postmortem talk about ${s}?`, value: () => '' },
  {
    keyed: 'service',
    sentence: (s, _p, v) => `In the load test ${s} peaked at ${v} requests per second.`,
    query: (s) => `what peak request rate did ${s} hit in the load test?`,
    value: (r) => String(500 + Math.floor(r() * 9500)),
  },
  {
    keyed: 'service',
    sentence: (s, _p, v) => `The TLS certificate of ${s} expires on ${v}.`,
    query: (s) => `when does the certificate of ${s} run out?`,
    value: (r) => `${1 + Math.floor(r() * 28)} ${MONTHS[Math.floor(r() * 12)]}`,
  },
  { keyed: 'person', sentence: (s, p) => `${p} asked for read access to the ${s} logs.`, query: (_s, p) => `which service logs did ${p} want to read?`, value: () => '' },
];

const FILLER = [
  (s: string, p: string) => `${p} reviewed the ${s} changelog and left a few comments.`,
  (s: string, p: string) => `${p} renamed a configuration key in ${s}; nothing else changed.`,
  (s: string) => `The ${s} dashboard was moved into the shared folder.`,
  (s: string, p: string) => `${p} opened a ticket about log noise in ${s}.`,
  (s: string) => `A dependency bump for ${s} is waiting for approval.`,
  (s: string, p: string) => `${p} paired with a new hire on the ${s} codebase.`,
  (s: string) => `The ${s} README got a section on local setup.`,
  (s: string, p: string) => `${p} thinks the ${s} alerts are too chatty at night.`,
  (s: string) => `Unit tests for ${s} now run in parallel in CI.`,
  (s: string, p: string) => `${p} asked whether ${s} could share a connection pool with the reporting job.`,
  (_s: string, p: string) => `${p} booked the big meeting room for the planning session.`,
  (_s: string, p: string) => `${p} shared slides about the team offsite agenda.`,
];

const NOTE_FILLER = [
  'Coffee machine on the third floor is fixed.',
  'Lunch orders go in before eleven.',
  'Reminder to fill in the engagement survey.',
  'The all-hands is moved to the auditorium.',
  'Nobody objected to the new standup format.',
  'Action items from last time were all closed.',
  'We agreed to keep the meeting to thirty minutes.',
];

const TODAY = new Date(Date.UTC(2026, 2, 18)); // Wednesday 18 March 2026
const DAY_MS = 86_400_000;

function dateWords(d: Date): string {
  const wd = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'][d.getUTCDay()]!;
  return `${wd} ${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

export interface QualityOptions {
  /** Filler memories (default 2000). */
  distractors?: number;
  /** Queries per category (default 40). */
  perCategory?: number;
}

export function makeQualitySet(seed: number, opts: QualityOptions = {}): QualitySet {
  const r = mulberry32(seed ^ 0x51ab1e);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(r() * xs.length)]!;
  const shuffle = <T>(xs: T[]): T[] => {
    for (let i = xs.length - 1; i > 0; i--) {
      const j = Math.floor(r() * (i + 1));
      [xs[i], xs[j]] = [xs[j]!, xs[i]!];
    }
    return xs;
  };
  const perCategory = opts.perCategory ?? 40;
  const memories: LabelledMemory[] = [];
  const queries: LabelledQuery[] = [];
  const add = (m: Omit<LabelledMemory, 'key'>): string => {
    const key = `m${memories.length}`;
    memories.push({ key, ...m });
    return key;
  };
  const query = (category: QueryCategory, text: string, relevant: Record<string, number>) =>
    queries.push({ id: `${category}-${queries.filter((q) => q.category === category).length}`, category, text, relevant });

  const services = SERVICE_ROOTS.flatMap((root) => SERVICE_KINDS.map((k) => `${root}-${k}`));
  shuffle(services);
  const usedServices = services.slice(0, 48);
  const owner = new Map<string, string>();

  // Paraphrase: six facts per service, three per person; ask about a random subset.
  const paraphraseCandidates: Array<{ text: string; key: string }> = [];
  for (const s of usedServices) {
    for (const c of shuffle([...SERVICE_CONCEPTS]).slice(0, 6)) {
      const key = add({ content: c.memory(s, c.value(r)), topic: s, tags: [s, c.name], created_at: null, kind: 'paraphrase' });
      paraphraseCandidates.push({ text: c.query(s), key });
    }
  }
  for (const p of PEOPLE) {
    for (const c of PERSON_CONCEPTS) {
      const key = add({ content: c.memory(p, c.value(r)), topic: p, tags: [p.toLowerCase(), c.name], created_at: null, kind: 'paraphrase' });
      paraphraseCandidates.push({ text: c.query(p), key });
    }
  }
  for (const c of shuffle(paraphraseCandidates).slice(0, perCategory)) query('paraphrase', c.text, { [c.key]: 2 });

  // Detail: long meeting notes, each with several keyed details; ask about one per note.
  const usedDetail = new Set<string>();
  for (let n = 0; n < perCategory; n++) {
    const when = new Date(TODAY.getTime() - (7 + Math.floor(r() * 60)) * DAY_MS);
    const sentences: string[] = [];
    const asked: Array<{ q: string }> = [];
    while (sentences.length < 6) {
      const d = pick(DETAILS);
      const s = pick(usedServices);
      const p = pick(PEOPLE);
      const id = `${DETAILS.indexOf(d)}:${d.keyed === 'service' ? s : `${p}:${s}`}`;
      if (usedDetail.has(id)) continue;
      usedDetail.add(id);
      sentences.push(d.sentence(s, p, d.value(r)));
      asked.push({ q: d.query(s, p) });
    }
    const body = shuffle([...sentences, ...shuffle([...NOTE_FILLER]).slice(0, 4)]);
    const key = add({
      content: `Weekly sync notes from ${dateWords(when)}. ${body.join(' ')}`,
      topic: 'weekly sync',
      tags: ['meeting', 'notes'],
      created_at: when.toISOString(),
      kind: 'detail',
    });
    query('detail', pick(asked).q, { [key]: 2 });
  }

  // Temporal: dated statements by people; "last week" is Monday 9 to Sunday 15 March.
  const lastWeekStart = new Date(Date.UTC(2026, 2, 9));
  const people = shuffle([...PEOPLE]);
  const temporalPeople = people.slice(0, Math.min(people.length, perCategory));
  temporalPeople.forEach((p, i) => {
    const lastWeek: string[] = [];
    const dated: Array<{ key: string; d: Date }> = [];
    for (let j = 0; j < 4; j++) {
      // Statement 0 is always last week; the others spread over the five weeks before today.
      const d = j === 0 ? new Date(lastWeekStart.getTime() + Math.floor(r() * 5) * DAY_MS) : new Date(TODAY.getTime() - (1 + Math.floor(r() * 35)) * DAY_MS);
      const key = add({
        content: `On ${dateWords(d)}, ${p} said that ${pick(STATEMENTS)}.`,
        topic: `${p} update`,
        tags: [p.toLowerCase(), 'update'],
        created_at: d.toISOString(),
        kind: 'temporal',
      });
      if (d >= lastWeekStart && d.getTime() < lastWeekStart.getTime() + 7 * DAY_MS) lastWeek.push(key);
      dated.push({ key, d });
    }
    if (i % 2 === 0) {
      query('temporal', `what did ${p} say last week?`, Object.fromEntries(lastWeek.map((k) => [k, 2])));
    } else {
      const target = pick(dated);
      const sameDay = dated.filter((x) => x.d.getTime() === target.d.getTime());
      query('temporal', `what did ${p} tell us on ${target.d.getUTCDate()} ${MONTHS[target.d.getUTCMonth()]}?`, Object.fromEntries(sameDay.map((x) => [x.key, 2])));
    }
  });

  // Two-hop: service → owning squad → fact about the squad.
  const leadKey = new Map<string, string>();
  const retroKey = new Map<string, string>();
  for (const t of TEAMS) {
    leadKey.set(t, add({ content: `${pick(PEOPLE)} leads the ${t} squad.`, topic: `${t} squad`, tags: ['team', t.toLowerCase()], created_at: null, kind: 'two_hop' }));
    retroKey.set(
      t,
      add({
        content: `The ${t} squad holds its retrospective every other ${pick(DAYS)}.`,
        topic: `${t} squad`,
        tags: ['team', t.toLowerCase()],
        created_at: null,
        kind: 'two_hop',
      }),
    );
  }
  const ownerKey = new Map<string, string>();
  for (const s of usedServices) {
    const t = pick(TEAMS);
    owner.set(s, t);
    ownerKey.set(s, add({ content: `${s} is owned by the ${t} squad.`, topic: s, tags: [s, 'ownership'], created_at: null, kind: 'two_hop' }));
  }
  for (const s of shuffle([...usedServices]).slice(0, perCategory)) {
    const t = owner.get(s)!;
    if (r() < 0.5) query('two_hop', `who is the lead of the group that owns ${s}?`, { [leadKey.get(t)!]: 2, [ownerKey.get(s)!]: 1 });
    else query('two_hop', `when does the team behind ${s} run its retro?`, { [retroKey.get(t)!]: 2, [ownerKey.get(s)!]: 1 });
  }

  // Near-duplicates: production vs staging vs an outdated value, plus a restatement.
  for (const s of shuffle([...usedServices]).slice(0, perCategory)) {
    const prod = 2 + Math.floor(r() * 20);
    const staging = 1 + Math.floor(r() * 4);
    const old = prod + 2 + Math.floor(r() * 6);
    const prodKey = add({ content: `${s} runs ${prod} replicas in production.`, topic: s, tags: [s, 'capacity'], created_at: null, kind: 'near_duplicate' });
    const stagingKey = add({ content: `${s} runs ${staging} replicas in staging.`, topic: s, tags: [s, 'capacity'], created_at: null, kind: 'near_duplicate' });
    add({ content: `${s} ran ${old} replicas in production before the ${pick(MONTHS)} resize.`, topic: s, tags: [s, 'capacity'], created_at: null, kind: 'near_duplicate' });
    const restated = add({ content: `In staging, ${s} has ${staging} replicas.`, topic: s, tags: [s, 'capacity'], created_at: null, kind: 'near_duplicate' });
    if (r() < 0.5) query('near_duplicate', `how many instances of ${s} are in the staging environment?`, { [stagingKey]: 2, [restated]: 2 });
    else query('near_duplicate', `how many instances of ${s} serve production traffic today?`, { [prodKey]: 2 });
  }

  // Distractors: the same services and people in unrelated sentences.
  const distractors = opts.distractors ?? 2000;
  for (let i = 0; i < distractors; i++) {
    const s = pick(usedServices);
    add({ content: pick(FILLER)(s, pick(PEOPLE)), topic: r() < 0.5 ? s : 'misc', tags: [s], created_at: null, kind: 'distractor' });
  }

  // Store in a shuffled order so ids do not follow categories.
  const order = shuffle(memories.map((_, i) => i));
  return { seed, today: TODAY.toISOString().slice(0, 10), memories: order.map((i) => memories[i]!), queries };
}
