import assert from 'node:assert/strict';
import { Parser, type Node } from 'commonmark';

/**
 * Reads a tool's markdown as a client renders it: parsed by a real CommonMark parser (the
 * reference implementation, commonmark.js), then checked on its syntax tree. A card is its
 * marker (an HTML comment block), a header paragraph of plain inline text, and the memory text
 * in one fenced code block. Anything else a stored text could make (a heading, link, image, raw
 * HTML, a list, a quote, a rule, a second marker) is a break-out.
 */

/** Node types no rendering of stored text may produce anywhere outside a code block. */
const FORBIDDEN = new Set(['heading', 'link', 'image', 'html_inline', 'block_quote', 'list', 'item', 'thematic_break', 'custom_inline', 'custom_block']);

export interface Card {
  /** The card's header paragraph as plain text (escapes resolved), e.g. `[node_…] 01… score … · tags`. */
  header: string;
  /** The literal text of the card's code block, without the final newline. */
  body: string;
  /** The info string of the code block (`text`). */
  info: string;
}

export interface Parsed {
  markers: string[];
  cards: Card[];
}

function plainText(node: Node): string {
  let out = '';
  const walker = node.walker();
  for (let e = walker.next(); e; e = walker.next()) {
    if (!e.entering) continue;
    const n = e.node;
    if (n.type === 'text' || n.type === 'code') out += n.literal ?? '';
    else if (n.type === 'softbreak' || n.type === 'linebreak') out += '\n';
  }
  return out;
}

/**
 * Parses `md`, asserts that it holds only markers, plain paragraphs and code blocks, and
 * returns its cards (each a header paragraph and the code block that follows it; an optional
 * plain warning paragraph may sit between them). `name` is the card kind (`hit`, `entry`).
 */
export function parseCards(md: string, name: string, label: string): Parsed {
  const doc = new Parser().parse(md);
  const walker = doc.walker();
  for (let e = walker.next(); e; e = walker.next()) {
    if (e.entering && FORBIDDEN.has(e.node.type)) {
      const where = e.node.sourcepos ? ` at line ${e.node.sourcepos[0][0]}` : '';
      assert.fail(`${label}: a ${e.node.type} element${where} in the rendered markdown`);
    }
  }
  const markers: string[] = [];
  const cards: Card[] = [];
  let header: string | null = null;
  let paragraphs = 0;
  for (let block = doc.firstChild; block; block = block.next) {
    if (block.type === 'html_block') {
      const literal = (block.literal ?? '').trim();
      assert.match(literal, new RegExp(`^<!-- kind:${name}-(index|card):v1 -->$`), `${label}: an HTML block that is not exactly one contract marker: ${JSON.stringify(literal)}`);
      markers.push(literal);
      header = null;
      paragraphs = 0;
    } else if (block.type === 'paragraph') {
      // The first paragraph after a card marker is its header; a second is the injection warning.
      if (paragraphs++ === 0) header = plainText(block);
    } else if (block.type === 'code_block') {
      // commonmark.js keeps the fenced flag private; the types do not declare it.
      assert.ok((block as unknown as { _isFenced: boolean })._isFenced, `${label}: an indented code block (text outside a fence)`);
      assert.ok(header !== null, `${label}: a code block without a card header`);
      cards.push({ header, body: (block.literal ?? '').replace(/\n$/, ''), info: block.info ?? '' });
      header = null;
    } else assert.fail(`${label}: a ${block.type} block at the top level`);
  }
  const cardMarkers = markers.filter((m) => m.includes('-card:')).length;
  assert.equal(markers.length - cardMarkers, 1, `${label}: one index marker`);
  assert.equal(cardMarkers, cards.length, `${label}: one card marker per card, none forged`);
  return { markers, cards };
}

/**
 * For renderings without cards (needs-input, hints): parses `md` and asserts that it makes no
 * element a stored text could have made. `headings` are the renderer's own (exact text);
 * `marker` matches its one contract marker.
 */
export function assertNoBreakout(md: string, label: string, opts: { headings: string[]; marker: RegExp }): void {
  const doc = new Parser().parse(md);
  const walker = doc.walker();
  let markers = 0;
  for (let e = walker.next(); e; e = walker.next()) {
    if (!e.entering) continue;
    const n = e.node;
    if (n.type === 'heading' && opts.headings.includes(plainText(n))) continue;
    if (n.type === 'html_block') {
      assert.match((n.literal ?? '').trim(), opts.marker, `${label}: an HTML block that is not the contract marker`);
      markers++;
      continue;
    }
    if (FORBIDDEN.has(n.type) || n.type === 'heading' || n.type === 'code_block')
      assert.fail(`${label}: a ${n.type} element in the rendered markdown: ${JSON.stringify(plainText(n).slice(0, 80))}`);
  }
  assert.equal(markers, 1, `${label}: one contract marker`);
}
