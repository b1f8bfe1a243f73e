/**
 * A reproducible synthetic corpus: sentences built from a fixed vocabulary with a seeded PRNG,
 * so every run and every machine stores the same memories and asks the same questions.
 */
import { mulberry32 } from '../test/helpers/prng.js';

export { mulberry32 };

const SUBJECTS = [
  'the payments service',
  'our staging cluster',
  'the mobile app',
  'the data warehouse',
  'the billing team',
  'the search index',
  'the auth gateway',
  'the nightly backup',
  'the design system',
  'the onboarding flow',
  'the CI pipeline',
  'the customer portal',
];
const VERBS = ['deploys', 'rotates', 'archives', 'monitors', 'retries', 'caches', 'validates', 'throttles', 'migrates', 'reviews', 'encrypts', 'indexes'];
const OBJECTS = [
  'credentials',
  'invoices',
  'user sessions',
  'error budgets',
  'feature flags',
  'audit logs',
  'database snapshots',
  'push notifications',
  'API tokens',
  'release notes',
  'metrics dashboards',
  'support tickets',
];
const WHEN = [
  'every night',
  'on Fridays',
  'after each release',
  'within five minutes',
  'before the quarter ends',
  'when load exceeds eighty percent',
  'twice a day',
  'on the first Monday of the month',
];
const WHY = [
  'to meet the compliance audit',
  'because the vendor requires it',
  'after the March incident',
  'to cut cloud costs',
  'so that rollbacks stay fast',
  'as agreed with the security team',
];

export interface Memory {
  content: string;
  topic: string;
  tags: string[];
}

export function makeCorpus(n: number, seed: number): Memory[] {
  const rand = mulberry32(seed);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  return Array.from({ length: n }, (_, i) => {
    const subject = pick(SUBJECTS);
    const object = pick(OBJECTS);
    return {
      content: `${subject[0]!.toUpperCase()}${subject.slice(1)} ${pick(VERBS)} ${object} ${pick(WHEN)} ${pick(WHY)} (note ${i}).`,
      topic: object,
      tags: [subject.split(' ').pop()!, object.split(' ')[0]!],
    };
  });
}

export function makeQueries(n: number, seed: number): string[] {
  const rand = mulberry32(seed ^ 0x9e3779b9);
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;
  return Array.from({ length: n }, () => `how often does ${pick(SUBJECTS)} handle ${pick(OBJECTS)}?`);
}
