/**
 * SAT kernels in Node on Dawn against the float64 reference through the comparator, as
 * test/gpu/pairs.test.ts does in the browser with larger counts: the published random suite's
 * distribution, the adversarial groups, the published two-box case, all pairs with re-runs.
 */
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BoxInput, type ObbGpu } from '../../src/index.ts';
import { adversarialPairGroups, comparePairLists, comparePairs, mulberry32, publishedSatPairs, randomBoxes } from '../../src/judge/index.ts';
import { obbPairs } from '../../src/reference/index.ts';
import { expectClean, openNodeGpu, scoped } from './shared.ts';

let gpu: ObbGpu;
beforeAll(async () => {
  gpu = await openNodeGpu();
});
afterAll(() => {
  gpu?.destroy();
});

const consecutive = (n: number): Uint32Array => Uint32Array.from({ length: 2 * n }, (_, i) => i);

describe('obbPairs (node)', () => {
  it('published random suite distribution: 20,000 pairs (seed 11423), full and face-only', async () => {
    await scoped(gpu, async () => {
      const n = 20_000;
      const boxes = publishedSatPairs(n, mulberry32(11423));
      const pairs = consecutive(n);
      const set = gpu.createBoxSet(boxes);
      try {
        const full = await gpu.obbPairs(set, pairs);
        const faces = await gpu.obbPairs(set, pairs, { faceOnly: true });
        const input = { a: set.boxes, pairs, origin: set.origin };
        const cmp = comparePairs(input, full);
        expect(cmp.total).toBe(n);
        expectClean(cmp, 1e-3);
        expectClean(comparePairs({ ...input, options: { faceOnly: true } }, faces), 1e-3);
        // The face-only test reports false contacts that the full test separates (about 3%).
        const ref = obbPairs(boxes, pairs);
        let faceOnlyFalse = 0;
        for (let k = 0; k < n; k++) {
          if (faces.overlap[k] === 1 && full.overlap[k] === 0) {
            faceOnlyFalse++;
          }
        }
        expect(faceOnlyFalse).toBeGreaterThan(200);
        expect(ref.count).toBe(n);
      } finally {
        set.destroy();
      }
    });
  });

  it('adversarial groups (seed 5), full and face-only', async () => {
    await scoped(gpu, async () => {
      const groups = adversarialPairGroups(5);
      expect(groups.length).toBeGreaterThanOrEqual(7);
      for (const g of groups) {
        const set = gpu.createBoxSet(g.boxes);
        try {
          const input = { a: set.boxes, pairs: g.pairs, origin: set.origin };
          expectClean(comparePairs(input, await gpu.obbPairs(set, g.pairs)), 1, g.name);
          expectClean(comparePairs({ ...input, options: { faceOnly: true } }, await gpu.obbPairs(set, g.pairs, { faceOnly: true })), 1, `${g.name}, face-only`);
        } finally {
          set.destroy();
        }
      }
    });
  });

  it('the published case: separated on A1xB2 only, in both orders', async () => {
    const fixture = JSON.parse(readFileSync(new URL('../fixtures/seed-sat-case.json', import.meta.url), 'utf8')) as { boxes: BoxInput[] };
    await scoped(gpu, async () => {
      const set = gpu.createBoxSet(fixture.boxes);
      try {
        const pairs = new Uint32Array([0, 1, 1, 0]);
        const full = await gpu.obbPairs(set, pairs);
        const faces = await gpu.obbPairs(set, pairs, { faceOnly: true });
        expectClean(comparePairs({ a: set.boxes, pairs, origin: set.origin }, full));
        expect([...full.overlap]).toEqual([0, 0]);
        expect(full.axis[0]).toBe(11); // A1xB2
        expect(full.axis[1]).toBe(13); // swapped: A2xB1
        expect(full.gap[0]).toBeCloseTo(0.1467145, 5);
        expect(full.gap[1]).toBeCloseTo(0.1467145, 5);
        expect([...faces.overlap]).toEqual([1, 1]);
        expect(faces.gap[0]).toBeCloseTo(-0.0076245, 5);
      } finally {
        set.destroy();
      }
    });
  });
});

describe('sets (node)', () => {
  it('all pairs within 1,500 boxes, dense (seed 9)', async () => {
    await scoped(gpu, async () => {
      const set = gpu.createBoxSet(randomBoxes(1500, mulberry32(9), { extent: 9, halfMin: 0.2, halfMax: 1.5 }));
      try {
        const list = await gpu.allPairs(set);
        expect(list.count).toBeGreaterThan(500);
        expectClean(comparePairLists({ a: set.boxes, origin: set.origin }, list.pairs), 1e-3);
      } finally {
        set.destroy();
      }
    });
  });

  it('all pairs with capacity 1: re-runs, nothing dropped (seed 10)', async () => {
    await scoped(gpu, async () => {
      const set = gpu.createBoxSet(randomBoxes(1000, mulberry32(10), { extent: 6, halfMin: 0.2, halfMax: 1.5 }));
      try {
        const list = await gpu.allPairs(set, { capacity: 1 });
        expect(list.count).toBeGreaterThan(100);
        expect(list.runs).toBe(2);
        expectClean(comparePairLists({ a: set.boxes, origin: set.origin }, list.pairs));
      } finally {
        set.destroy();
      }
    });
  });

  it('cross product of two sets with different floating origins (seed 12)', async () => {
    await scoped(gpu, async () => {
      const rnd = mulberry32(12);
      const setA = gpu.createBoxSet(randomBoxes(800, rnd, { extent: 10, halfMin: 0.2, halfMax: 1.5 }), { origin: [1, 2, 3] });
      const setB = gpu.createBoxSet(randomBoxes(600, rnd, { extent: 10, halfMin: 0.2, halfMax: 1.5 }), { origin: [-4, 5, -6] });
      try {
        const list = await gpu.obbCross(setA, setB);
        expect(list.count).toBeGreaterThan(50);
        expectClean(comparePairLists({ a: setA.boxes, b: setB.boxes, origin: setA.origin, originB: setB.origin }, list.pairs), 1e-3);
      } finally {
        setA.destroy();
        setB.destroy();
      }
    });
  });
});
