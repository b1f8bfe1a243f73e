import { l2normalize, type EncodeItem, type SpaceEncoder } from '../encoder.js';
import type { SpaceId } from '../types.js';

/**
 * E2–E4, model-free: what a memory is in time, not what it says. Each is a set of sinusoids
 * whose dot product is a kernel of the difference: cos(a)cos(b) + sin(a)sin(b) = cos(a − b).
 * So the cosine of two vectors depends only on how far apart the memories are (in time, in
 * phase, in order), which is what the k-NN index can rank. A query carries no item: it is
 * encoded as "now" (E2, E3) and as position 0 (E4).
 */
const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const WEEK = 7 * DAY;
const YEAR = 365.2425 * DAY;

/** 32 wavelengths from 4 hours to 400 years, geometric: near times agree on every one of them. */
const RECENCY_WAVELENGTHS = Array.from({ length: 32 }, (_, i) => 4 * HOUR * Math.pow((400 * YEAR) / (4 * HOUR), i / 31));
/** Time of day, day of week, day of year; four harmonics each. */
const PERIODS = [DAY, WEEK, YEAR];
const HARMONICS = 4;
/** Transformer-style positional encoding: 16 frequencies, base 10000. */
const POSITION_FREQUENCIES = Array.from({ length: 16 }, (_, i) => 1 / Math.pow(10_000, i / 16));

function sinusoids(angles: readonly number[]): Float32Array {
  const v = new Float32Array(angles.length * 2);
  angles.forEach((a, i) => {
    v[2 * i] = Math.cos(a);
    v[2 * i + 1] = Math.sin(a);
  });
  return l2normalize(v);
}

/** E2: cosine falls as two memories' times move apart, at every scale from hours to centuries. */
export function recencyVector(at: number): Float32Array {
  return sinusoids(RECENCY_WAVELENGTHS.map((w) => (2 * Math.PI * (at % w)) / w));
}

/** E3: the phase of the memory's time within the day, the week and the year (UTC). */
export function periodicVector(at: number): Float32Array {
  const angles: number[] = [];
  for (const p of PERIODS) {
    // 1970-01-01 was a Thursday; the week phase only needs to be consistent, not Monday-based.
    const theta = (2 * Math.PI * (((at % p) + p) % p)) / p;
    for (let n = 1; n <= HARMONICS; n++) angles.push(n * theta);
  }
  return sinusoids(angles);
}

/** E4: the memory's order within its project; neighbours in the conversation are neighbours here. */
export function positionVector(position: number): Float32Array {
  return sinusoids(POSITION_FREQUENCIES.map((f) => position * f));
}

function temporalEncoder(space: SpaceId, modelId: string, dim: number, vector: (item: EncodeItem, now: number) => Float32Array): SpaceEncoder {
  return {
    info: { space, modelId, dim, provider: 'model-free' },
    encode(texts, items) {
      const now = Date.now();
      return texts.map((_, i) => vector(items?.[i] ?? {}, now));
    },
  };
}

export const createRecencyEncoder = () => temporalEncoder('E2', 'time-kernel-v1-64', RECENCY_WAVELENGTHS.length * 2, (x, now) => recencyVector(x.at ?? now));
export const createPeriodicEncoder = () => temporalEncoder('E3', 'phase-dwy-v1-24', PERIODS.length * HARMONICS * 2, (x, now) => periodicVector(x.at ?? now));
export const createPositionEncoder = () => temporalEncoder('E4', 'order-pe-v1-32', POSITION_FREQUENCIES.length * 2, (x) => positionVector(x.position ?? 0));
