/**
 * compareFrustum in exact mode (src/compare/compare.ts, "Frustum culling"): the twin's own list
 * agrees everywhere; lists from broken exact tests are caught, each with the reason that names
 * it — the plane test alone (the marquee's old answer: `extra-visible` on boxes just outside edges
 * and corners), a test without the edge crosses, one without the side edges, one that projects a
 * shrunk frustum (`missing-visible`), one box dropped — while a box within float32 error of a
 * separating axis is ambiguous, never a mismatch, and the bound (frustumGapBound) is first order
 * in u. Frusta and boxes from test/fixtures/frustumCases.ts.
 */
import { describe, expect, it } from 'vitest';
import { compareFrustum, formatComparison } from '../../src/judge/index.ts';
import { frustumGapBound, K_FRUSTUM } from '../../src/compare/errorModel.ts';
import { frustumCull, frustumCullExactAt, frustumShape } from '../../src/reference/frustum.ts';
import { makeObbFrustumScratch, type FrustumShape } from '../../src/reference/query/obbFrustum.ts';
import type { BoxArray } from '../../src/core/types.ts';
import type { Plane } from '../../src/core/frustum.ts';
import { frustumSuite, type FrustumCaseGroup } from '../fixtures/frustumCases.ts';

const groups = frustumSuite(3330, 1, 3000);
const adversarial = groups.filter((g) => g.name.startsWith('adversarial/'));

/** The exact cull's list with another shape (a broken implementation). */
function cullWith(boxes: BoxArray, planes: readonly Plane[], shape: FrustumShape): Uint32Array {
  const s = makeObbFrustumScratch();
  const out: number[] = [];
  for (let b = 0; b < boxes.count; b++) {
    if (frustumCullExactAt(boxes, b, planes, shape, s)) {
      out.push(b);
    }
  }
  return Uint32Array.from(out);
}

function judgeAll(list: (g: FrustumCaseGroup) => Uint32Array, which = groups) {
  let mismatch = 0, ambiguous = 0, total = 0;
  const reasons: Record<string, number> = {};
  for (const g of which) {
    const c = compareFrustum({ boxes: g.boxes, planes: g.planes, exact: true }, list(g));
    expect(c.agree + c.ambiguous + c.mismatch).toBe(c.total);
    mismatch += c.mismatch;
    ambiguous += c.ambiguous;
    total += c.total;
    for (const [k, v] of Object.entries(c.mismatchByReason)) {
      reasons[k] = (reasons[k] ?? 0) + v;
    }
  }
  return { mismatch, ambiguous, total, reasons };
}

describe('compareFrustum, exact', () => {
  it('the twin agrees with itself everywhere (random and adversarial, seed 3330)', () => {
    const r = judgeAll((g) => frustumCull(g.boxes, g.planes, { exact: true }));
    expect(r).toEqual({ mismatch: 0, ambiguous: 0, total: r.total, reasons: {} });
    expect(r.total).toBeGreaterThan(15_000);
  });

  it('the plane test alone is caught: extra-visible on the boxes outside edges and corners', () => {
    const r = judgeAll((g) => frustumCull(g.boxes, g.planes));
    console.log(`plane test judged as exact: ${r.mismatch} mismatches in ${r.total} (${JSON.stringify(r.reasons)}), ${r.ambiguous} ambiguous`);
    expect(r.mismatch).toBeGreaterThan(1000);
    expect(Object.keys(r.reasons)).toEqual(['extra-visible']);
    const g = adversarial.find((x) => x.name === 'adversarial/marquee/outside-edge-corner')!;
    const c = compareFrustum({ boxes: g.boxes, planes: g.planes, exact: true }, frustumCull(g.boxes, g.planes));
    console.log(formatComparison(c, 2));
    expect(c.cases[0]?.detail).toMatch(/visible to the implementation only \(exact test\); largest gap .* on (P|B|E)/);
  });

  it('no edge crosses, no side edges: extra-visible; a shrunk frustum: missing-visible; a dropped box: missing-visible', () => {
    const faces = judgeAll((g) => {
      const s = frustumShape(g.planes);
      return cullWith(g.boxes, g.planes, { ...s, edgeCount: 0 });
    }, adversarial);
    expect(faces.mismatch).toBeGreaterThan(100);
    expect(Object.keys(faces.reasons)).toEqual(['extra-visible']);
    const noSides = judgeAll((g) => {
      const s = frustumShape(g.planes);
      // The side edges are listed first: keep the rest only.
      const rest = s.edges.slice(3 * 4);
      return cullWith(g.boxes, g.planes, { corners: s.corners, edges: rest, edgeCount: s.edgeCount - 4 });
    }, adversarial.filter((g) => !g.name.includes('/ortho/')));
    expect(noSides.mismatch).toBeGreaterThan(10);
    expect(Object.keys(noSides.reasons)).toEqual(['extra-visible']);
    const shrunk = judgeAll((g) => {
      const s = frustumShape(g.planes);
      const c = s.corners.slice();
      const mid = [0, 1, 2].map((k) => (c[k]! + c[21 + k]!) / 2);
      for (let j = 0; j < 24; j++) {
        c[j] = mid[j % 3]! + 0.98 * (c[j]! - mid[j % 3]!);
      }
      return cullWith(g.boxes, g.planes, { ...s, corners: c });
    });
    expect(shrunk.mismatch).toBeGreaterThan(10);
    expect(shrunk.reasons['missing-visible']).toBeGreaterThan(10);
    const g = groups[0]!;
    const full = frustumCull(g.boxes, g.planes, { exact: true });
    const c = compareFrustum({ boxes: g.boxes, planes: g.planes, exact: true }, full.subarray(1));
    expect([c.mismatch, c.mismatchByReason]).toEqual([1, { 'missing-visible': 1 }]);
  });

  it('boxes touching an edge or a corner, the frustum shrunk by 1e-9: the other answer is ambiguous; shrunk by 1e-2: a mismatch', () => {
    for (const g of adversarial.filter((x) => x.name.endsWith('/touching-edge-corner'))) {
      const every = Array.from({ length: g.boxes.count }, (_, b) => b);
      for (const shrink of [1e-9, 1e-2]) {
        const planes = g.planes.map((p) => [p[0], p[1], p[2], p[3] - shrink] as const);
        const twin = new Set(frustumCull(g.boxes, planes, { exact: true }));
        const other = Uint32Array.from(every.filter((b) => !twin.has(b)));
        const c = compareFrustum({ boxes: g.boxes, planes, exact: true }, other);
        if (shrink < 1e-6) {
          expect([c.mismatch, c.ambiguous], `${g.name}: ${formatComparison(c, 3)}`).toEqual([0, g.boxes.count]);
        } else {
          expect(c.mismatch, g.name).toBeGreaterThan(g.boxes.count / 2);
        }
      }
    }
  });

  it('the bound is K_FRUSTUM · u · S / |L|, first order in u', () => {
    expect(K_FRUSTUM).toBe(48);
    expect(frustumGapBound(500, 1)).toBeCloseTo(48 * 2 ** -24 * 500, 12);
    expect(frustumGapBound(500, 0.25)).toBeCloseTo(2 * frustumGapBound(500, 1), 12);
    expect(frustumGapBound(500, 1, 2 ** -53) / frustumGapBound(500, 1)).toBeCloseTo(2 ** -29, 20);
  });
});
