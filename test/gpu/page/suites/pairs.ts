/**
 * Suite `pairs`: the SAT kernels (obbPairs, obbOneVsMany, obbCross / allPairs) on random and
 * adversarial inputs, classified against the float64 reference in the page.
 */
import { boxArrayFrom, toObb, type BoxArray, type BoxInput } from '../../../../src/index.ts';
import { adversarialPairGroups, comparePairLists, comparePairs, mulberry32, publishedSatPairs, randomBoxes } from '../../../../src/judge/index.ts';
import { obbPairs } from '../../../../src/reference/index.ts';
import { scoped, summarize } from '../shared.ts';

function consecutivePairs(n: number): Uint32Array {
  return Uint32Array.from({ length: 2 * n }, (_, i) => i);
}

/** The published random suite's distribution: n pairs (2k, 2k + 1), full SAT and face-only. */
export async function published(seed: number, n: number) {
  return scoped(async (gpu) => {
    const boxes = publishedSatPairs(n, mulberry32(seed));
    const pairs = consecutivePairs(n);
    const set = gpu.createBoxSet(boxes);
    try {
      const full = await gpu.obbPairs(set, pairs);
      const faces = await gpu.obbPairs(set, pairs, { faceOnly: true });
      const input = { a: set.boxes, pairs, origin: set.origin };
      // Face-only false contacts on the GPU: face axes say overlap, the full test says apart.
      let faceOnlyFalse = 0;
      for (let k = 0; k < n; k++) {
        if (faces.overlap[k] === 1 && full.overlap[k] === 0) {
          faceOnlyFalse++;
        }
      }
      const refFull = obbPairs(boxes, pairs);
      const refFaces = obbPairs(boxes, pairs, { faceOnly: true });
      let refFaceOnlyFalse = 0;
      for (let k = 0; k < n; k++) {
        if (refFaces.overlap[k] === 1 && refFull.overlap[k] === 0) {
          refFaceOnlyFalse++;
        }
      }
      return {
        full: summarize(comparePairs(input, full)),
        faceOnly: summarize(comparePairs({ ...input, options: { faceOnly: true } }, faces)),
        faceOnlyFalse, refFaceOnlyFalse,
      };
    } finally {
      set.destroy();
    }
  });
}

/** Each adversarial SAT group, full and face-only. */
export async function adversarial(seed: number) {
  return scoped(async (gpu) => {
    const groups = [];
    for (const g of adversarialPairGroups(seed)) {
      const set = gpu.createBoxSet(g.boxes);
      try {
        const full = await gpu.obbPairs(set, g.pairs);
        const faces = await gpu.obbPairs(set, g.pairs, { faceOnly: true });
        const input = { a: set.boxes, pairs: g.pairs, origin: set.origin };
        groups.push({
          name: g.name,
          full: summarize(comparePairs(input, full), 3),
          faceOnly: summarize(comparePairs({ ...input, options: { faceOnly: true } }, faces), 3),
        });
      } finally {
        set.destroy();
      }
    }
    return { groups };
  });
}

/** The published two-box case from shared/fixtures, in both orders. */
export async function publishedCase(boxes: BoxInput[]) {
  return scoped(async (gpu) => {
    const set = gpu.createBoxSet(boxes);
    try {
      const pairs = new Uint32Array([0, 1, 1, 0]);
      const full = await gpu.obbPairs(set, pairs);
      const faces = await gpu.obbPairs(set, pairs, { faceOnly: true });
      return {
        overlap: [...full.overlap], gap: [...full.gap], axis: [...full.axis],
        faceOverlap: [...faces.overlap], faceGap: [...faces.gap],
        summary: summarize(comparePairs({ a: set.boxes, pairs, origin: set.origin }, full)),
      };
    } finally {
      set.destroy();
    }
  });
}

/** One box against a random set. */
export async function oneVsMany(seed: number, n: number) {
  return scoped(async (gpu) => {
    const rnd = mulberry32(seed);
    const boxes = randomBoxes(n, rnd, { extent: 10, halfMin: 0.2, halfMax: 2 });
    const query: BoxInput = { center: [0.5, -0.25, 1], halfExtents: [3, 2, 4], rotation: [0.2, 0.3, 0.1, 0.9] };
    const set = gpu.createBoxSet(boxes);
    try {
      const r = await gpu.obbOneVsMany(query, set);
      // Reference: the query as box A (array of one) against every box of the set.
      const q = toObb(query);
      const a: BoxArray = boxArrayFrom([q]);
      const pairs = Uint32Array.from({ length: 2 * n }, (_, i) => (i % 2 ? i >> 1 : 0));
      const cmp = comparePairs({ a, b: set.boxes, pairs, origin: set.origin }, r);
      return { summary: summarize(cmp), overlaps: r.overlap.reduce((s, x) => s + x, 0) };
    } finally {
      set.destroy();
    }
  });
}

/** Every overlapping pair within a random set (brute force, tiled), with a given capacity. */
export async function allPairs(seed: number, n: number, extent: number, capacity?: number) {
  return scoped(async (gpu) => {
    const boxes = randomBoxes(n, mulberry32(seed), { extent, halfMin: 0.2, halfMax: 1.5 });
    const set = gpu.createBoxSet(boxes);
    try {
      const list = await gpu.allPairs(set, capacity === undefined ? {} : { capacity });
      const cmp = comparePairLists({ a: set.boxes, origin: set.origin }, list.pairs);
      return { summary: summarize(cmp), count: list.count, runs: list.runs };
    } finally {
      set.destroy();
    }
  });
}

/** Every overlapping (i in A, j in B) between two sets with different floating origins. */
export async function cross(seed: number, nA: number, nB: number) {
  return scoped(async (gpu) => {
    const rnd = mulberry32(seed);
    const a = randomBoxes(nA, rnd, { extent: 10, halfMin: 0.2, halfMax: 1.5 });
    const b = randomBoxes(nB, rnd, { extent: 10, halfMin: 0.2, halfMax: 1.5 });
    const setA = gpu.createBoxSet(a, { origin: [1, 2, 3] });
    const setB = gpu.createBoxSet(b, { origin: [-4, 5, -6] });
    try {
      const list = await gpu.obbCross(setA, setB);
      const cmp = comparePairLists({ a: setA.boxes, b: setB.boxes, origin: setA.origin, originB: setB.origin }, list.pairs);
      return { summary: summarize(cmp), count: list.count };
    } finally {
      setA.destroy();
      setB.destroy();
    }
  });
}
