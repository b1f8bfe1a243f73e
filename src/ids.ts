import { randomFillSync } from 'node:crypto';
import { ulid } from 'ulid';

/**
 * Node ids and citations. Ids are ULIDs (26 Crockford base-32 characters = 128 bits); the same
 * 128 bits written as 32 lowercase hex digits are the citation `[node_<hex>]` (seed 001's
 * `^\[node_[a-f0-9]+\]$`) and, dashed 8-4-4-4-12, a UUID string. The three forms are bijective,
 * so no stored id had to change and every tool accepts any of them.
 */

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const ULID_RE = /^[0-7][0-9A-HJKMNP-TV-Z]{25}$/i;
const HEX_RE = /^(?:\[?node_)?([0-9a-f]{32})\]?$/i;
const UUID_RE = /^([0-9a-f]{8})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{4})-([0-9a-f]{12})$/i;

/** Seed 001's citation tag pattern. */
export const CITATION_PATTERN = /^\[node_[a-f0-9]+\]$/;

export function isUlid(s: string): boolean {
  return ULID_RE.test(s);
}

/** A ULID's 128 bits as 32 lowercase hex digits. */
export function ulidToHex(ulid: string): string {
  let n = 0n;
  for (const ch of ulid.toUpperCase()) n = (n << 5n) | BigInt(CROCKFORD.indexOf(ch));
  return n.toString(16).padStart(32, '0');
}

export function hexToUlid(hex: string): string {
  let n = BigInt(`0x${hex}`);
  let out = '';
  for (let i = 0; i < 26; i++) {
    out = CROCKFORD[Number(n & 31n)]! + out;
    n >>= 5n;
  }
  return out;
}

/** The citation tag of a node id; ids that are not ULIDs (none today) are cited as they are. */
export function citation(id: string): string {
  return isUlid(id) ? `[node_${ulidToHex(id)}]` : `[${id}]`;
}

export function uuidOf(id: string): string {
  const h = ulidToHex(id);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

/**
 * The stored id a caller meant: a ULID (any case), the hex form with or without `node_` and
 * brackets, or a UUID string. Anything else comes back unchanged, so the lookup answers
 * NODE_NOT_FOUND for it like for any unknown id.
 */
export function toNodeId(ref: string): string {
  const s = ref.trim();
  if (ULID_RE.test(s)) return s.toUpperCase();
  const hex = HEX_RE.exec(s)?.[1] ?? UUID_RE.exec(s)?.slice(1).join('');
  return hex ? hexToUlid(hex.toLowerCase()) : s;
}

/**
 * Random bytes for new ids, drawn in blocks: the ulid package's default source makes one
 * crypto call per character (16 per id), which was 1 s of main-thread time in a 10k import.
 */
const randomPool = new Uint8Array(4096);
let randomAt = randomPool.length;

function pooledRandom(): number {
  if (randomAt === randomPool.length) {
    randomFillSync(randomPool);
    randomAt = 0;
  }
  return randomPool[randomAt++]! / 256;
}

/** A new id: a ULID (time-ordered, 80 random bits). */
export function newId(): string {
  return ulid(undefined, pooledRandom);
}
