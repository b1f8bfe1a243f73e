import type { ContractMarkers } from './payloads.js';

/**
 * Markdown with the seed-003 contract markers: one index marker per rendering and one card
 * marker per item, so clients and tests can count what was rendered.
 */
export function indexMarker(name: string): string {
  return `<!-- kind:${name}-index:v1 -->`;
}

export function cardMarker(name: string): string {
  return `<!-- kind:${name}-card:v1 -->`;
}

export function markersFor(cards: number): ContractMarkers {
  return { index: 1, cards, version: 'v1' };
}

export function renderCards<T>(name: string, heading: string, items: readonly T[], card: (item: T, i: number) => string): string {
  const parts = [indexMarker(name), heading];
  items.forEach((item, i) => parts.push(`${cardMarker(name)}\n${card(item, i)}`));
  return parts.join('\n\n');
}

/** Memory text is data, not instructions: fence it so a host never reads it as markup or commands. */
export function quoteMemory(text: string, max = 600): string {
  const cut = text.length > max ? `${text.slice(0, max)}…` : text;
  return cut
    .split('\n')
    .map((line) => `> ${line}`)
    .join('\n');
}
