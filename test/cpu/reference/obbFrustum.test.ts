/**
 * The exact OBB–frustum test's float64 twin (src/reference/query/obbFrustum.ts, frustumCull with
 * `exact`, frustumShape in src/reference/frustum.ts) against an independent float64 test written
 * differently: two convex polyhedra meet exactly when an edge of one meets the other (a vertex of
 * their intersection lies on two faces of one of them), so the box's 12 edges are clipped against
 * the planes and the frustum's 12 edges (corners by Gaussian elimination) against the box's slabs.
 * Its answer is taken as the truth where it is robust: meeting the frustum shrunk by ε, or missing
 * the frustum and box both grown by ε (ε ≈ 1e-11 of the scale; the other cases are touching within
 * rounding, and counted). Random frusta (perspective, orthographic, marquee, oblique, far from
 * the origin) and adversarial boxes just outside, touching and overlapping every edge and corner
 * (what the plane test gets wrong), on faces, containing the frustum, inside it, flat, and nearly
 * parallel to a frustum edge (seed in each name).
 */
import { describe, expect, it } from 'vitest';
import { FRUSTUM_EDGES } from '../../../src/constants.ts';
import { BOX_F64, type BoxArray, type Vec3 } from '../../../src/core/types.ts';
import type { Plane } from '../../../src/core/frustum.ts';
import { ValidationError } from '../../../src/errors.ts';
import { frustumCull, frustumCullExactAt, frustumShape } from '../../../src/reference/frustum.ts';
import { makeObbFrustumScratch, obbFrustumAxisName, obbFrustumSatAt, OBB_FRUSTUM_AXES } from '../../../src/reference/query/obbFrustum.ts';
import {
  adversarialGroups, cameraPlanes, cornersBySolve, FRUSTUM_EDGE_CORNERS, frustumSuite, randomCamera, type FrustumCaseGroup,
} from '../../fixtures/frustumCases.ts';
import { mulberry32 } from '../../../src/scenes/generate.ts';

type V = [number, number, number];

/** Clips segment p0–p1 against half-spaces a·x ≤ b (closed); whether anything is left. */
function clipSegment(p0: V, p1: V, halfSpaces: readonly (readonly [V, number])[]): boolean {
  let t0 = 0, t1 = 1;
  for (const [a, b] of halfSpaces) {
    const f0 = a[0] * p0[0] + a[1] * p0[1] + a[2] * p0[2] - b;
    const f1 = a[0] * p1[0] + a[1] * p1[1] + a[2] * p1[2] - b;
    if (f0 > 0 && f1 > 0) {
      return false;
    }
    if (f0 > 0) {
      t0 = Math.max(t0, f0 / (f0 - f1));
    } else if (f1 > 0) {
      t1 = Math.min(t1, f0 / (f0 - f1));
    }
    if (t0 > t1) {
      return false;
    }
  }
  return true;
}

/**
 * The independent test: does box b (grown by `grow`) meet the frustum of `planes` moved outward
 * by `shift` (negative: shrunk)? Half-spaces of the frustum −n̂·x ≤ d̂ + shift; of the box
 * ±a_k·x ≤ ±a_k·c + h_k + grow.
 */
function bruteMeets(boxes: BoxArray, b: number, planes: readonly Plane[], shift: number, grow: number): boolean {
  const d = boxes.data;
  const o = b * BOX_F64.STRIDE;
  const c: V = [d[o]!, d[o + 1]!, d[o + 2]!];
  const h: V = [d[o + 3]! + grow, d[o + 4]! + grow, d[o + 5]! + grow];
  const axes: V[] = [0, 1, 2].map((k) => [d[o + 6 + 3 * k]!, d[o + 7 + 3 * k]!, d[o + 8 + 3 * k]!]);
  const unitPlanes = planes.map((p) => {
    const l = Math.hypot(p[0], p[1], p[2]);
    return [p[0] / l, p[1] / l, p[2] / l, p[3] / l + shift] as const;
  });
  const frustumHalf = unitPlanes.map((p) => [[-p[0], -p[1], -p[2]] as V, p[3]] as const);
  const boxHalf: (readonly [V, number])[] = [];
  axes.forEach((a, k) => {
    const ac = a[0] * c[0] + a[1] * c[1] + a[2] * c[2];
    boxHalf.push([a, ac + h[k]!], [[-a[0], -a[1], -a[2]], -ac + h[k]!]);
  });
  const boxCorner = (j: number): V => {
    const p: V = [...c];
    for (let k = 0; k < 3; k++) {
      const s = (j >> k) & 1 ? h[k]! : -h[k]!;
      for (let i = 0; i < 3; i++) {
        p[i]! += s * axes[k]![i]!;
      }
    }
    return p;
  };
  for (let j = 0; j < 8; j++) {
    for (let k = 0; k < 3; k++) {
      if (!((j >> k) & 1) && clipSegment(boxCorner(j), boxCorner(j | (1 << k)), frustumHalf)) {
        return true;
      }
    }
  }
  const fc = cornersBySolve(unitPlanes) as V[];
  return FRUSTUM_EDGE_CORNERS.some(([a, z]) => clipSegment(fc[a]!, fc[z]!, boxHalf));
}

interface Tally {
  total: number;
  robustMeet: number;
  robustSeparate: number;
  touching: number;
  /** Robustly separated, kept by the twin: a skipped near-parallel axis separates (conservative). */
  skippedKeeps: number;
  /** Outside, kept by the plane test, culled by the exact test. */
  planeOnly: number;
  wrong: string[];
}

function judgeGroup(g: FrustumCaseGroup, t: Tally): void {
  const shape = frustumShape(g.planes);
  const scratch = makeObbFrustumScratch();
  const conservative = new Set(frustumCull(g.boxes, g.planes));
  const exact = new Set(frustumCull(g.boxes, g.planes, { exact: true }));
  const corners = cornersBySolve(g.planes);
  const reach = Math.max(...corners.map((c) => Math.hypot(...c)));
  const d = g.boxes.data;
  for (let b = 0; b < g.boxes.count; b++) {
    t.total++;
    const o = b * BOX_F64.STRIDE;
    const eps = 1e-11 * (1 + reach + Math.hypot(d[o]!, d[o + 1]!, d[o + 2]!) + d[o + 3]! + d[o + 4]! + d[o + 5]!);
    const meets = bruteMeets(g.boxes, b, g.planes, -eps, 0);
    const separate = !bruteMeets(g.boxes, b, g.planes, eps, eps);
    const kept = exact.has(b);
    // Exact ⊆ conservative, and the per-box function agrees with the list.
    if (kept && !conservative.has(b)) {
      t.wrong.push(`${g.name}[${b}]: kept by the exact test, culled by the plane test`);
    }
    if (kept !== frustumCullExactAt(g.boxes, b, g.planes, shape, scratch)) {
      t.wrong.push(`${g.name}[${b}]: frustumCullExactAt disagrees with frustumCull`);
    }
    if (g.expect[b] === 1 && !separate) {
      t.wrong.push(`${g.name}[${b}]: built outside by ${g.margin[b]}, the independent test says it is not`);
    }
    if (g.expect[b] === 2 && !meets) {
      t.wrong.push(`${g.name}[${b}]: built to meet, the independent test says it does not`);
    }
    if (meets) {
      t.robustMeet++;
      if (!kept) {
        const gap = obbFrustumSatAt(g.boxes.data, b, g.planes, shape, scratch);
        t.wrong.push(`${g.name}[${b}]: meets the frustum, culled (gap ${gap} on ${obbFrustumAxisName(scratch.axis)})`);
      }
    } else if (separate) {
      t.robustSeparate++;
      if (conservative.has(b) && !kept) {
        t.planeOnly++;
      }
      if (kept) {
        obbFrustumSatAt(g.boxes.data, b, g.planes, shape, scratch);
        let skipped = false;
        for (let k = 0; k < scratch.axisCount; k++) {
          skipped ||= !scratch.tested[k] && scratch.axisGap[k]! > 0;
        }
        if (skipped) {
          t.skippedKeeps++;
        } else {
          t.wrong.push(`${g.name}[${b}]: outside the frustum, kept (largest gap ${scratch.gap} on ${obbFrustumAxisName(scratch.axis)})`);
        }
      }
    } else {
      t.touching++;
    }
  }
}

const fresh = (): Tally => ({ total: 0, robustMeet: 0, robustSeparate: 0, touching: 0, skippedKeeps: 0, planeOnly: 0, wrong: [] });

describe('frustumShape', () => {
  const rnd = mulberry32(3301);
  it('corners equal an independent solve; edge directions: perspective 6, orthographic 3, a tilted near plane 8; every edge has its direction (seed 3301)', () => {
    for (const kind of ['perspective', 'ortho', 'oblique', 'perspective', 'ortho', 'oblique'] as const) {
      const planes = cameraPlanes(randomCamera(rnd, [0, 0, 0], kind));
      const shape = frustumShape(planes);
      const solved = cornersBySolve(planes);
      const reach = Math.max(...solved.map((c) => Math.hypot(...c)));
      for (let j = 0; j < 8; j++) {
        for (let k = 0; k < 3; k++) {
          expect(Math.abs(shape.corners[3 * j + k]! - solved[j]![k]!)).toBeLessThan(1e-11 * reach);
        }
      }
      // Perspective: 4 side edges and the near/far rectangles' 2; orthographic: the side edges are parallel.
      expect(shape.edgeCount).toBe({ perspective: 6, ortho: 3, oblique: 8 }[kind]);
      expect(shape.edgeCount).toBeLessThanOrEqual(FRUSTUM_EDGES);
      const dirs = Array.from({ length: shape.edgeCount }, (_, m): Vec3 => [shape.edges[3 * m]!, shape.edges[3 * m + 1]!, shape.edges[3 * m + 2]!]);
      for (const [a, z] of FRUSTUM_EDGE_CORNERS) {
        const e = [0, 1, 2].map((k) => solved[z]![k]! - solved[a]![k]!);
        const l = Math.hypot(e[0]!, e[1]!, e[2]!);
        const parallel = dirs.some((v) => Math.hypot(v[1] * e[2]! - v[2] * e[1]!, v[2] * e[0]! - v[0] * e[2]!, v[0] * e[1]! - v[1] * e[0]!) < 1e-9 * l);
        expect(parallel, `edge ${a}–${z} of a ${kind} frustum`).toBe(true);
      }
    }
  });

  it('refuses planes that bound no frustum: misordered, inverted, too few, not finite', () => {
    const planes = cameraPlanes(randomCamera(mulberry32(3302)));
    const misordered = [planes[0]!, planes[2]!, planes[1]!, planes[3]!, planes[4]!, planes[5]!];
    expect(() => frustumShape(misordered)).toThrow(ValidationError);
    expect(() => frustumShape(misordered)).toThrow(/planes do not bound a frustum/);
    // Near moved beyond far: empty.
    const inverted = planes.map((p, k) => (k === 4 ? [p[0], p[1], p[2], p[3] - 1e4] as const : p));
    expect(() => frustumShape(inverted)).toThrow(/lies outside plane/);
    expect(() => frustumShape(planes.slice(0, 5))).toThrow(/six planes/);
    expect(() => frustumShape(planes.map((p, k) => (k === 2 ? [NaN, 0, 0, 0] as const : p)))).toThrow(/six planes/);
    // Left parallel to bottom: a corner is no point.
    expect(() => frustumShape(planes.map((p, k) => (k === 2 ? planes[0]! : p)))).toThrow(/do not meet in a point/);
    expect(() => frustumCull({ count: 0, data: new Float64Array(0) }, misordered, { exact: true })).toThrow(ValidationError);
    expect(frustumCull({ count: 0, data: new Float64Array(0) }, misordered).length).toBe(0);
  });
});

describe('obbFrustumSat: axis names and order', () => {
  it('P0..P5, B0..B2, then E{m}xB{i} at 9 + 3m + i', () => {
    expect([0, 5, 6, 8, 9, 11, 12, OBB_FRUSTUM_AXES - 1].map(obbFrustumAxisName)).toEqual(['P0', 'P5', 'B0', 'B2', 'E0xB0', 'E0xB2', 'E1xB0', `E${FRUSTUM_EDGES - 1}xB2`]);
  });
});

describe('the twin against the independent edge-clipping test', () => {
  it('random frusta: 4 kinds × 3 cameras × 1,500 boxes, zero wrong, the rest touching within rounding (seed 3310)', () => {
    const t = fresh();
    for (const g of frustumSuite(3310, 3, 1500).filter((x) => x.name.startsWith('random/'))) {
      judgeGroup(g, t);
    }
    console.log(`random: ${t.total} boxes — ${t.robustMeet} meet, ${t.robustSeparate} outside (${t.planeOnly} of them kept by the plane test), ${t.touching} touching within rounding, ${t.skippedKeeps} kept by a skipped near-parallel axis`);
    expect(t.wrong.slice(0, 10)).toEqual([]);
    expect(t.total).toBe(18_000);
    expect(t.planeOnly).toBeGreaterThan(100);
    expect(t.touching).toBeLessThan(t.total * 1e-3);
  });

  it('adversarial groups (edges, corners, faces, containment, inside, flat, near-parallel edges) against 4 frusta: zero wrong (seed 3310)', () => {
    const groups = frustumSuite(3310, 0, 0).filter((x) => x.name.startsWith('adversarial/'));
    const lines: string[] = [];
    const all = fresh();
    for (const g of groups) {
      const t = fresh();
      judgeGroup(g, t);
      lines.push(`${g.name}: ${t.total} boxes — ${t.robustMeet} meet, ${t.robustSeparate} outside (${t.planeOnly} kept by the plane test), ${t.touching} touching, ${t.skippedKeeps} skipped-axis keeps`);
      for (const k of ['total', 'robustMeet', 'robustSeparate', 'touching', 'skippedKeeps', 'planeOnly'] as const) {
        all[k] += t[k];
      }
      all.wrong.push(...t.wrong);
    }
    console.log(lines.join('\n'));
    expect(all.wrong.slice(0, 10)).toEqual([]);
    // The plane test keeps most boxes just outside an edge or a corner; the exact test culls them all.
    const outside = groups.filter((g) => g.name.endsWith('/outside-edge-corner'));
    expect(outside.length).toBe(4);
    for (const g of outside) {
      const planeKept = frustumCull(g.boxes, g.planes).length;
      expect(planeKept).toBeGreaterThan(g.boxes.count / 5);
      expect(frustumCull(g.boxes, g.planes, { exact: true }).length).toBe(0);
    }
    // Boxes built to meet are all kept; containing boxes are.
    for (const g of groups.filter((x) => x.name.endsWith('/contain-inside') || x.name.endsWith('/overlapping-edge-corner'))) {
      expect(frustumCull(g.boxes, g.planes, { exact: true }).length).toBe(g.boxes.count);
    }
    expect(all.total).toBeGreaterThan(5000);
  });

  it('flat boxes and far-away frusta: a second seed of adversarial groups (seed 3311)', () => {
    const rnd = mulberry32(3311);
    const t = fresh();
    for (let k = 0; k < 4; k++) {
      const cam = randomCamera(rnd, [3e4, 1e4, -2e3], k % 2 ? 'ortho' : 'perspective');
      for (const g of adversarialGroups(`far-${k}`, cameraPlanes(cam), rnd)) {
        judgeGroup(g, t);
      }
    }
    console.log(`adversarial far from the origin: ${t.total} boxes — ${t.robustMeet} meet, ${t.robustSeparate} outside, ${t.touching} touching`);
    expect(t.wrong.slice(0, 10)).toEqual([]);
  });
});
