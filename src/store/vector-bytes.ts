/**
 * How a vector is stored in `embeddings.vector` (and `retained_embeddings`): float32 bytes, or,
 * for a dense vector on an integer grid, a float32 unit followed by one int8 multiple of it per
 * component: dim + 4 bytes instead of 4 × dim. A vector is on the grid when every component is
 * an integer multiple, at most 127, of its smallest non-zero one: E9's trigram sums and E10's
 * stem counts, scaled to unit length, nearly always are. E9's 4 KB rows were toasted, and in a
 * 10k import its 10k of them were the largest part of the 130k vectors' write time.
 *
 * Lossless to float32 rounding: a decoded component is unit × multiple, which may differ from
 * the encoder's own float by an ulp. A reader tells the layouts apart by length, given the row's
 * dim (its float count): dim + 4 bytes is the grid layout, 4 × dim the plain one. Packed sparse
 * and multi rows are never put on the grid (their floats carry term ids as bits).
 */

const GRID_MAX = 127;
// A component counts as a multiple when within this of one: float32 rounding of unit-length
// integer sums stays below 1e-4 at 127 multiples; a vector that is not a grid misses by far more.
const GRID_TOLERANCE = 1e-3;

/** Float32 bytes of a vector (a view, not a copy). */
export function toBytes(v: Float32Array): Uint8Array {
  return new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
}

/** The stored bytes of a vector: the grid layout for a dense vector on an integer grid, float32 otherwise. */
export function encodeVector(v: Float32Array, dense: boolean): Uint8Array {
  const grid = dense ? onGrid(v) : null;
  if (!grid) return toBytes(v);
  const out = new Uint8Array(4 + v.length);
  new DataView(out.buffer).setFloat32(0, grid.unit, true);
  out.set(new Uint8Array(grid.multiples.buffer), 4);
  return out;
}

/** A stored vector of `dim` floats, in either layout. */
export function fromBytes(b: Uint8Array, dim: number): Float32Array {
  if (dim > 0 && b.byteLength === dim + 4) {
    const unit = new DataView(b.buffer, b.byteOffset, 4).getFloat32(0, true);
    const multiples = new Int8Array(b.buffer, b.byteOffset + 4, dim);
    const out = new Float32Array(dim);
    for (let i = 0; i < dim; i++) out[i] = multiples[i]! * unit;
    return out;
  }
  // Copy: the driver's buffer may be unaligned or shared.
  const copy = new Uint8Array(b.byteLength);
  copy.set(b);
  return new Float32Array(copy.buffer);
}

function onGrid(v: Float32Array): { unit: number; multiples: Int8Array } | null {
  let unit = Infinity;
  for (let i = 0; i < v.length; i++) {
    const a = Math.abs(v[i]!);
    if (a > 0 && a < unit) unit = a;
  }
  if (unit === Infinity || v.length === 0) return null;
  const multiples = new Int8Array(v.length);
  for (let i = 0; i < v.length; i++) {
    const m = v[i]! / unit;
    const r = Math.round(m);
    if (r > GRID_MAX || r < -GRID_MAX || Math.abs(m - r) > GRID_TOLERANCE) return null;
    multiples[i] = r;
  }
  return { unit, multiples };
}
