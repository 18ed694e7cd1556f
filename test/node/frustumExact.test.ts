/**
 * The exact frustum cull (FrustumDraw.exact: shaders/frustum/cull.wgsl `frustumCullExact`,
 * shaders/query/obb_frustum.wgsl) in Node on Dawn against its float64 twin through the
 * comparator (compareFrustum with `exact`): random frusta (perspective, orthographic, marquee,
 * a tilted near plane, far from the origin) over 120,000 boxes, and the adversarial groups of
 * test/fixtures/frustumCases.ts (boxes just outside, touching and overlapping every edge and
 * corner, on faces, containing the frustum, inside it, flat, near-parallel edges). The plane test
 * (the default) still passes its own comparison on the same boxes; the exact list is a subset of
 * it, and the draw arguments count the exact list.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ObbGpu } from '../../src/index.ts';
import { compareFrustum } from '../../src/judge/index.ts';
import { ValidationError } from '../../src/errors.ts';
import { frustumSuite, type FrustumCaseGroup } from '../fixtures/frustumCases.ts';
import { expectClean, openNodeGpu, scoped } from './shared.ts';

let gpu: ObbGpu;
beforeAll(async () => {
  gpu = await openNodeGpu();
});
afterAll(() => {
  gpu?.destroy();
});

interface Totals {
  boxes: number;
  ambiguous: number;
  planeOnly: number;
  byReason: Record<string, number>;
}

async function run(groups: readonly FrustumCaseGroup[], maxAmbiguous: number): Promise<Totals> {
  const totals: Totals = { boxes: 0, ambiguous: 0, planeOnly: 0, byReason: {} };
  const capacity = Math.max(...groups.map((g) => g.boxes.count));
  const culler = await gpu.createFrustumCuller(capacity);
  try {
    for (const g of groups) {
      const set = gpu.createBoxSet(g.boxes);
      try {
        const exact = await gpu.frustumCull(culler, set, g.planes, { indexCount: 36, exact: true });
        const cmp = compareFrustum({ boxes: set.boxes, planes: g.planes, origin: set.origin, exact: true }, exact.visible);
        expect(cmp.total).toBe(g.boxes.count);
        expectClean(cmp, maxAmbiguous, g.name);
        expect(exact.drawArgs[1]).toBe(exact.visible.length);
        const plain = await gpu.frustumCull(culler, set, g.planes);
        expectClean(compareFrustum({ boxes: set.boxes, planes: g.planes, origin: set.origin }, plain.visible), maxAmbiguous, `${g.name} (plane test)`);
        const kept = new Set(plain.visible);
        const extra = Array.from(exact.visible).filter((b) => !kept.has(b));
        // A box the exact kernel keeps passed the same plane test in the same kernel code.
        expect(extra.length, `${g.name}: kept by the exact test, not by the plane test`).toBe(0);
        totals.boxes += g.boxes.count;
        totals.ambiguous += cmp.ambiguous;
        totals.planeOnly += plain.visible.length - exact.visible.length;
        for (const [k, v] of Object.entries(cmp.ambiguousByReason)) {
          totals.byReason[k] = (totals.byReason[k] ?? 0) + v;
        }
      } finally {
        set.destroy();
      }
    }
  } finally {
    culler.destroy();
  }
  return totals;
}

describe('exact frustum culling (node)', () => {
  it('random frusta: 4 kinds × 3 cameras × 10,000 boxes = 120,000 boxes, zero mismatches, ambiguous under 1e-3 (seed 3320)', async () => {
    await scoped(gpu, async () => {
      const groups = frustumSuite(3320, 3, 10_000).filter((g) => g.name.startsWith('random/'));
      const t = await run(groups, 1e-3);
      console.log(`random: ${t.boxes} boxes, ${t.ambiguous} ambiguous (${JSON.stringify(t.byReason)}), ${t.planeOnly} outside boxes that only the plane test keeps`);
      expect(t.boxes).toBe(120_000);
      expect(t.ambiguous / t.boxes).toBeLessThan(1e-3);
      expect(t.planeOnly).toBeGreaterThan(1000);
    });
  });

  it('adversarial groups against 4 frusta: zero mismatches (seed 3321)', async () => {
    await scoped(gpu, async () => {
      const groups = frustumSuite(3321, 0, 0);
      const t = await run(groups, 1);
      console.log(`adversarial: ${t.boxes} boxes in ${groups.length} groups, ${t.ambiguous} ambiguous (${JSON.stringify(t.byReason)}), ${t.planeOnly} outside boxes that only the plane test keeps`);
      expect(t.boxes).toBeGreaterThan(5000);
      expect(t.planeOnly).toBeGreaterThan(1000);
      // Boxes outside by a margin well above the float32 bound are culled, every one.
      for (const g of groups.filter((x) => x.name.endsWith('/outside-edge-corner'))) {
        const set = gpu.createBoxSet(g.boxes);
        const culler = await gpu.createFrustumCuller(set.count);
        const { visible } = await gpu.frustumCull(culler, set, g.planes, { indexCount: 36, exact: true });
        const clear = Array.from(visible).filter((b) => g.margin[b]! >= 1e-2);
        expect(clear, g.name).toEqual([]);
        culler.destroy();
        set.destroy();
      }
    });
  });

  it('planes that bound no frustum are refused by name, before anything is written; the plane test takes them; destroy() frees the exact test\'s buffers too', async () => {
    await scoped(gpu, async () => {
      const g = frustumSuite(3322, 1, 10).find((x) => x.name.startsWith('random/perspective'))!;
      const misordered = [g.planes[0]!, g.planes[2]!, g.planes[1]!, g.planes[3]!, g.planes[4]!, g.planes[5]!];
      const live = gpu.ctx.liveBuffers;
      const set = gpu.createBoxSet(g.boxes);
      const culler = await gpu.createFrustumCuller(set.count);
      const error = await gpu.frustumCull(culler, set, misordered, { indexCount: 36, exact: true }).then(() => undefined, (e: unknown) => e);
      expect(error).toBeInstanceOf(ValidationError);
      expect((error as Error).message).toMatch(/planes do not bound a frustum/);
      expect((await gpu.frustumCull(culler, set, misordered)).visible).toBeInstanceOf(Uint32Array);
      // The exact test's four buffers are made at its first use (the refused call made none), and
      // freed with the culler (the readback staging kept between queries is the context's).
      const plain = gpu.ctx.liveBuffers;
      await gpu.frustumCull(culler, set, g.planes, { indexCount: 36, exact: true });
      await gpu.frustumCull(culler, set, g.planes, { indexCount: 36, exact: true });
      expect(gpu.ctx.liveBuffers).toBe(plain + 4);
      culler.destroy();
      set.destroy();
      gpu.trim();
      expect(gpu.ctx.liveBuffers).toBeLessThanOrEqual(live);
    });
  });
});
