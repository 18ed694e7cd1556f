/**
 * Sorting flat pair lists `[i0, j0, i1, j1, …]` by i, then j: two stable counting sorts,
 * O(pairs + largest index), whatever order the GPU appended them in.
 */

/**
 * The order that sorts a flat pair list by i, then j: two stable counting sorts (by j, then by
 * i), O(pairs + largest index) whatever the list holds.
 */
export function pairOrder(flat: Uint32Array): Uint32Array {
  const n = flat.length / 2;
  let max = 0;
  for (let k = 0; k < flat.length; k++) {
    if (flat[k]! > max) {
      max = flat[k]!;
    }
  }
  const identity = new Uint32Array(n);
  for (let k = 0; k < n; k++) {
    identity[k] = k;
  }
  return countingOrder(flat, 0, countingOrder(flat, 1, identity, max + 1), max + 1);
}

/** `order` stably sorted by flat[2k + side]. */
function countingOrder(flat: Uint32Array, side: 0 | 1, order: Uint32Array, buckets: number): Uint32Array {
  const start = new Uint32Array(buckets + 1);
  for (let k = 0; k < flat.length; k += 2) {
    start[flat[k + side]! + 1]!++;
  }
  for (let b = 0; b < buckets; b++) {
    start[b + 1]! += start[b]!;
  }
  const out = new Uint32Array(order.length);
  for (let x = 0; x < order.length; x++) {
    const k = order[x]!;
    out[start[flat[2 * k + side]!]!++] = k;
  }
  return out;
}

/** Sorts a flat pair list by i, then j. */
export function sortPairs(flat: Uint32Array): Uint32Array {
  return permuted(flat, pairOrder(flat));
}

/** Pair `order[x]` of `flat` as pair x. */
export function permuted(flat: Uint32Array, order: Uint32Array): Uint32Array {
  const out = new Uint32Array(flat.length);
  for (let x = 0; x < order.length; x++) {
    const k = order[x]!;
    out[2 * x] = flat[2 * k]!;
    out[2 * x + 1] = flat[2 * k + 1]!;
  }
  return out;
}
