/**
 * Suite `frustumExact`: the exact frustum cull (FrustumDraw.exact; shaders/frustum/cull.wgsl
 * `frustumCullExact`) in the browser against its float64 twin through the comparator
 * (compareFrustum with `exact`), on the frusta and boxes of test/fixtures/frustumCases.ts; the
 * plane test on the same boxes for contrast (its own comparison, and how many outside boxes only
 * it keeps).
 */
import { compareFrustum } from '../../../../src/judge/index.ts';
import { frustumSuite } from '../../../fixtures/frustumCases.ts';
import { scoped, summarize } from '../shared.ts';

/** Every group of frustumSuite(seed, cameras, perGroup) whose name starts with `prefix`. */
export async function exactCull(seed: number, cameras: number, perGroup: number, prefix: string) {
  return scoped(async (gpu) => {
    const groups = frustumSuite(seed, cameras, perGroup).filter((g) => g.name.startsWith(prefix));
    const culler = await gpu.createFrustumCuller(Math.max(1, ...groups.map((g) => g.boxes.count)));
    const reports: { name: string; exact: ReturnType<typeof summarize>; planes: ReturnType<typeof summarize>; planeOnly: number; notSubset: number; drawArgsCount: boolean; clearOutsideKept: number }[] = [];
    try {
      for (const g of groups) {
        const set = gpu.createBoxSet(g.boxes);
        try {
          const exact = await gpu.frustumCull(culler, set, g.planes, { indexCount: 36, exact: true });
          const plain = await gpu.frustumCull(culler, set, g.planes);
          const kept = new Set(plain.visible);
          reports.push({
            name: g.name,
            exact: summarize(compareFrustum({ boxes: set.boxes, planes: g.planes, origin: set.origin, exact: true }, exact.visible), 3),
            planes: summarize(compareFrustum({ boxes: set.boxes, planes: g.planes, origin: set.origin }, plain.visible), 3),
            planeOnly: plain.visible.length - exact.visible.length,
            notSubset: Array.from(exact.visible).filter((b) => !kept.has(b)).length,
            drawArgsCount: exact.drawArgs[1] === exact.visible.length,
            clearOutsideKept: Array.from(exact.visible).filter((b) => g.expect[b] === 1 && g.margin[b]! >= 1e-2).length,
          });
        } finally {
          set.destroy();
        }
      }
    } finally {
      culler.destroy();
    }
    return { reports };
  });
}
