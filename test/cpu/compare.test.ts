/**
 * The comparator must catch bugs. "GPU" results are simulated from the float64 reference: first
 * rounded to float32 (what a correct kernel returns; every case must agree), then corrupted in
 * the ways a buggy kernel would (wrong t, wrong box, flipped flag, dropped or extra entries, wrong
 * axis); each corruption of a robust case must be a mismatch. Genuinely fragile cases (a ray in a
 * face plane, touching boxes) must come out ambiguous instead.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { F32_MAX, SAT_AXIS_NAMES, SAT_TOLERANCE } from '../../src/constants.ts';
import { boxArrayFrom, rayArrayFrom } from '../../src/core/canonical.ts';
import type { BoxArray, RayArray } from '../../src/core/types.ts';
import {
  Tally, compareAllHits, compareAnyHits, compareClosestHits, comparePairLists, comparePairs, formatComparison,
  type Comparison,
} from '../../src/compare/compare.ts';
import { edgeSkipBand, F32_UNIT_ROUNDOFF, positionBound, rayDistanceBound, satGapBound } from '../../src/compare/errorModel.ts';
import { allPairs, obbPairs, type PairResults } from '../../src/reference/pairs.ts';
import { makeSatScratch, obbObbSatAt } from '../../src/reference/query/obbObbSat.ts';
import { makeRayObbScratch, rayObbAt } from '../../src/reference/query/rayObb.ts';
import { allHits, anyHit, closestHit, type AllHits, type ClosestHits } from '../../src/reference/raycast.ts';
import { mulberry32, randomBoxes, randomRays } from '../../src/scenes/generate.ts';

const RAY_SEED = 9001;
const PAIR_SEED = 9002;
/** Margin (world units / t units) that makes a decision robust in these scenes (scale ~ 30). */
const M = 1e-3;

// ---------------------------------------------------------------------------------------------
// "GPU" results: the reference rounded to float32 (copies, so corruptions stay local)

function gpuClosest(ref: ClosestHits): { count: number; box: Int32Array; t: Float32Array; face: Uint8Array; inside: Uint8Array } {
  return { count: ref.count, box: ref.box.slice(), t: Float32Array.from(ref.t), face: ref.face.slice(), inside: ref.inside.slice() };
}

function gpuAll(ref: AllHits, drop = -1): AllHits {
  const keep = Array.from({ length: ref.count }, (_, k) => k).filter((k) => k !== drop);
  return {
    count: keep.length,
    ray: Uint32Array.from(keep, (k) => ref.ray[k]!),
    box: Uint32Array.from(keep, (k) => ref.box[k]!),
    t: Float32Array.from(keep, (k) => ref.t[k]!),
    face: Uint8Array.from(keep, (k) => ref.face[k]!),
    inside: Uint8Array.from(keep, (k) => ref.inside[k]!),
  };
}

function gpuPairs(ref: PairResults): { count: number; overlap: Uint8Array; gap: Float32Array; axis: Uint8Array } {
  return { count: ref.count, overlap: ref.overlap.slice(), gap: Float32Array.from(ref.gap), axis: ref.axis.slice() };
}

// ---------------------------------------------------------------------------------------------
// Robustness, judged by the test itself (margins far above any float32 error in these scenes)

type State = { kind: 'hit'; t: number; slope: number } | { kind: 'miss' } | { kind: 'fragile' };

function rayBoxState(boxes: BoxArray, rays: RayArray, r: number, b: number): State {
  const s = makeRayObbScratch();
  const hit = rayObbAt(boxes.data, b, rays.data, r, true, s);
  if (s.parallelSlack !== F32_MAX && Math.abs(s.parallelSlack) < M) {
    return { kind: 'fragile' };
  }
  if (s.parallelSlack < 0) {
    return { kind: 'miss' };
  }
  if (Math.abs(s.tFar - s.tNear) < M || Math.abs(s.tFar) < M || Math.abs(s.tNear) < M) {
    return { kind: 'fragile' };
  }
  if (!hit) {
    return { kind: 'miss' };
  }
  const k = s.nearFace >> 1;
  const slope = s.tNear < 0 ? 1 : Math.abs(k === 0 ? s.dx : k === 1 ? s.dy : s.dz);
  return { kind: 'hit', t: s.t, slope };
}

/** Every box decision of ray r is robust, and the nearest hit is well ahead of the next. */
function robustRay(boxes: BoxArray, rays: RayArray, r: number): { hits: { b: number; t: number; slope: number }[]; misses: number[] } | undefined {
  const hits: { b: number; t: number; slope: number }[] = [];
  const misses: number[] = [];
  for (let b = 0; b < boxes.count; b++) {
    const st = rayBoxState(boxes, rays, r, b);
    if (st.kind === 'fragile') {
      return undefined;
    }
    if (st.kind === 'hit') {
      hits.push({ b, t: st.t, slope: st.slope });
    } else {
      misses.push(b);
    }
  }
  hits.sort((x, y) => x.t - y.t);
  if (hits.length > 1 && hits[1]!.t - hits[0]!.t < M) {
    return undefined;
  }
  return { hits, misses };
}

function expectOnly(c: Comparison, verdict: 'mismatch' | 'ambiguous', reason: string, count: number): void {
  expect(c[verdict], formatComparison(c)).toBe(count);
  const by = verdict === 'mismatch' ? c.mismatchByReason : c.ambiguousByReason;
  expect(by[reason], formatComparison(c)).toBe(count);
  const other = verdict === 'mismatch' ? c.ambiguous : c.mismatch;
  expect(other, formatComparison(c)).toBe(0);
  expect(c.ok).toBe(verdict !== 'mismatch');
  expect(c.agree).toBe(c.total - count);
}

// ---------------------------------------------------------------------------------------------
// Rays

describe(`ray comparisons (mulberry32 seed ${RAY_SEED})`, () => {
  let boxes: BoxArray;
  let rays: RayArray;
  let refClosest: ClosestHits;
  let refAny: Uint8Array;
  let refAll: AllHits;
  /** Rays with a robust nearest hit (and every other decision robust). */
  let robustHitRays: { r: number; b: number; t: number; slope: number; miss: number }[];
  /** Rays that robustly miss every box. */
  let robustMissRays: number[];

  beforeAll(() => {
    const rnd = mulberry32(RAY_SEED);
    boxes = randomBoxes(120, rnd, { extent: 10 });
    rays = randomRays(1500, boxes, rnd, { extent: 15 });
    refClosest = closestHit(boxes, rays);
    refAny = anyHit(boxes, rays);
    refAll = allHits(boxes, rays);
    robustHitRays = [];
    robustMissRays = [];
    for (let r = 0; r < rays.count; r++) {
      const rr = robustRay(boxes, rays, r);
      if (!rr) {
        continue;
      }
      const first = rr.hits[0];
      if (first) {
        robustHitRays.push({ r, b: first.b, t: first.t, slope: first.slope, miss: rr.misses[0] ?? -1 });
      } else {
        robustMissRays.push(r);
      }
    }
  });

  it('the scene has enough robust hits and misses to corrupt', () => {
    expect(robustHitRays.length).toBeGreaterThan(100);
    expect(robustMissRays.length).toBeGreaterThan(100);
    expect(robustHitRays.every((x) => refClosest.box[x.r] === x.b)).toBe(true);
  });

  it('float32-rounded reference results all agree', () => {
    const input = { boxes, rays };
    const c1 = compareClosestHits(input, gpuClosest(refClosest));
    const c2 = compareAnyHits(input, refAny.slice());
    const c3 = compareAllHits(input, gpuAll(refAll));
    for (const c of [c1, c2, c3]) {
      expect(c.mismatch, formatComparison(c)).toBe(0);
      expect(c.ambiguous, formatComparison(c)).toBe(0);
      expect(c.agree).toBe(rays.count);
      expect(c.total).toBe(rays.count);
      expect(c.ok).toBe(true);
      expect(c.worstRatio).toBeLessThanOrEqual(1);
    }
    // Rounding to float32 does move t: the ratio is measured, not trivially zero.
    expect(c1.worstRatio).toBeGreaterThan(0);
  });

  it('(a) t off by 1e-2 on robust hits → t-error mismatches', () => {
    const gpu = gpuClosest(refClosest);
    const picked = robustHitRays.filter((x) => x.t > M && x.slope > 0.05).slice(0, 25);
    expect(picked.length).toBe(25);
    for (const x of picked) {
      // The corruption is far above the error bound of this hit.
      expect(1e-2).toBeGreaterThan(10 * rayDistanceBound(60, x.t, x.slope));
      gpu.t[x.r] = gpu.t[x.r]! + 1e-2;
    }
    const c = compareClosestHits({ boxes, rays }, gpu);
    expectOnly(c, 'mismatch', 't-error', picked.length);
    expect(new Set(c.cases.filter((k) => k.verdict === 'mismatch').map((k) => k.index)))
      .toEqual(new Set(picked.slice(0, 20).map((x) => x.r)));
    // allHits: the same corruption on a list entry.
    const all = gpuAll(refAll);
    const x = picked[0]!;
    const e = Array.from({ length: all.count }, (_, k) => k).find((k) => all.ray[k] === x.r && all.box[k] === x.b);
    expect(e).toBeDefined();
    all.t[e!] = all.t[e!]! + 1e-2;
    expectOnly(compareAllHits({ boxes, rays }, all), 'mismatch', 't-error', 1);
  });

  it('(b) a robustly missed box in place of the hit box → wrong-box mismatch', () => {
    const gpu = gpuClosest(refClosest);
    const picked = robustHitRays.filter((x) => x.miss >= 0).slice(0, 10);
    expect(picked.length).toBe(10);
    for (const x of picked) {
      gpu.box[x.r] = x.miss;
    }
    expectOnly(compareClosestHits({ boxes, rays }, gpu), 'mismatch', 'wrong-box', picked.length);
  });

  it('(b′) a robust hit reported as a miss, or a robust miss reported as a hit → mismatch', () => {
    const gpu = gpuClosest(refClosest);
    const hitRay = robustHitRays[0]!;
    gpu.box[hitRay.r] = -1;
    gpu.t[hitRay.r] = Infinity;
    const missRay = robustMissRays[0]!;
    gpu.box[missRay] = 0;
    gpu.t[missRay] = 5;
    gpu.face[missRay] = 0;
    const c = compareClosestHits({ boxes, rays }, gpu);
    expect(c.mismatch, formatComparison(c)).toBe(2);
    expect(c.mismatchByReason).toEqual({ 'missing-hit': 1, 'extra-hit': 1 });
    expect(c.ambiguous).toBe(0);
  });

  it('(b″) the second-nearest robust hit reported as the closest → wrong-box mismatch', () => {
    // The second-nearest hit is at least M behind the nearest: reporting it is wrong.
    const gpu = gpuClosest(refClosest);
    let changed = 0;
    for (const x of robustHitRays) {
      const rr = robustRay(boxes, rays, x.r)!;
      const second = rr.hits[1];
      if (second && second.t - x.t > 0.05 && second.slope > 0.05) {
        gpu.box[x.r] = second.b;
        gpu.t[x.r] = second.t;
        changed++;
      }
      if (changed === 10) {
        break;
      }
    }
    expect(changed).toBe(10);
    expectOnly(compareClosestHits({ boxes, rays }, gpu), 'mismatch', 'wrong-box', 10);
  });

  it('(c) a flipped anyHit flag on a robust ray → any-flag mismatch', () => {
    const gpu = refAny.slice();
    const hits = robustHitRays.slice(0, 7).map((x) => x.r);
    const misses = robustMissRays.slice(0, 5);
    for (const r of hits) {
      expect(gpu[r]).toBe(1);
      gpu[r] = 0;
    }
    for (const r of misses) {
      expect(gpu[r]).toBe(0);
      gpu[r] = 1;
    }
    expectOnly(compareAnyHits({ boxes, rays }, gpu), 'mismatch', 'any-flag', hits.length + misses.length);
  });

  it('(d) a robust entry dropped from allHits → missing-hit mismatch', () => {
    const x = robustHitRays[3]!;
    const k = Array.from({ length: refAll.count }, (_, i) => i).find((i) => refAll.ray[i] === x.r && refAll.box[i] === x.b);
    expect(k).toBeDefined();
    const c = compareAllHits({ boxes, rays }, gpuAll(refAll, k!));
    expectOnly(c, 'mismatch', 'missing-hit', 1);
    expect(c.cases[0]?.index).toBe(x.r);
    expect(c.cases[0]?.detail).toContain(`box ${x.b}`);
  });

  it('(d′) an extra robustly missed box in allHits → extra-hit mismatch', () => {
    const x = robustMissRays[0]!;
    const base = gpuAll(refAll);
    // Insert (x, box 0, t = 1) at its sorted place (ray x has no entries).
    const at = Array.from(base.ray).findIndex((r) => r > x);
    const pos = at < 0 ? base.count : at;
    const ins = <T extends Uint32Array | Float32Array | Uint8Array>(a: T, v: number): T => {
      const out = new (a.constructor as new (n: number) => T)(a.length + 1);
      out.set(a.subarray(0, pos));
      out[pos] = v;
      out.set(a.subarray(pos), pos + 1);
      return out;
    };
    const gpu: AllHits = {
      count: base.count + 1,
      ray: ins(base.ray, x), box: ins(base.box, 0), t: ins(base.t as Float32Array, 1), face: ins(base.face, 0), inside: ins(base.inside, 0),
    };
    expectOnly(compareAllHits({ boxes, rays }, gpu), 'mismatch', 'extra-hit', 1);
  });

  it('a box ruled out by masks or exclude → filtered-box mismatch', () => {
    const x = robustHitRays[5]!;
    const exclude = new Int32Array(rays.count).fill(-1);
    exclude[x.r] = x.b;
    const ref = closestHit(boxes, rays, { exclude });
    const gpu = gpuClosest(ref);
    gpu.box[x.r] = x.b;
    gpu.t[x.r] = x.t;
    expectOnly(compareClosestHits({ boxes, rays, options: { exclude } }, gpu, ref), 'mismatch', 'filtered-box', 1);
  });
});

describe('fragile ray cases are ambiguous, robust ones next to them are not', () => {
  // A box of half extent 0.3 (not a float32 number: float32 rounds the face plane); ray 0 lies
  // exactly in the face plane y = 0.3 in float64; ray 1 passes through the middle.
  const boxes = boxArrayFrom([{ center: [0, 0, 0], halfExtents: [0.3, 0.3, 0.3], axes: [[1, 0, 0], [0, 1, 0], [0, 0, 1]] }]);
  const rays = rayArrayFrom([
    { origin: [-10, 0.3, 0], direction: [1, 0, 0] },
    { origin: [-10, 0.15, 0], direction: [1, 0, 0] },
  ]);
  const input = { boxes, rays };

  it('the reference hits both', () => {
    expect(Array.from(closestHit(boxes, rays).box)).toEqual([0, 0]);
  });

  it('closestHit: a miss in the face plane is ambiguous (in-face-plane); through the middle, a mismatch', () => {
    const ref = closestHit(boxes, rays);
    const gpu = gpuClosest(ref);
    gpu.box[0] = -1;
    gpu.t[0] = Infinity;
    expectOnly(compareClosestHits(input, gpu), 'ambiguous', 'in-face-plane', 1);
    gpu.box[1] = -1;
    gpu.t[1] = Infinity;
    const c = compareClosestHits(input, gpu);
    expect([c.ambiguous, c.mismatch]).toEqual([1, 1]);
    expect(c.ok).toBe(false);
  });

  it('anyHit and allHits: the same', () => {
    expectOnly(compareAnyHits(input, new Uint8Array([0, 1])), 'ambiguous', 'in-face-plane', 1);
    expectOnly(compareAnyHits(input, new Uint8Array([1, 0])), 'mismatch', 'any-flag', 1);
    const ref = allHits(boxes, rays);
    expect(ref.count).toBe(2);
    expectOnly(compareAllHits(input, gpuAll(ref, 0)), 'ambiguous', 'in-face-plane', 1);
    expectOnly(compareAllHits(input, gpuAll(ref, 1)), 'mismatch', 'missing-hit', 1);
  });

  it('a fragile box does not excuse a flipped flag when another box is hit robustly', () => {
    // Ray 0 lies in the face plane of box 0 and passes straight through box 1 further on.
    const two = boxArrayFrom([
      { center: [0, 0, 0], halfExtents: [0.3, 0.3, 0.3], axes: [[1, 0, 0], [0, 1, 0], [0, 0, 1]] },
      { center: [5, 0.3, 0], halfExtents: [1, 1, 1], axes: [[1, 0, 0], [0, 1, 0], [0, 0, 1]] },
    ]);
    const ray = rayArrayFrom([{ origin: [-10, 0.3, 0], direction: [1, 0, 0] }]);
    expect(anyHit(two, ray)[0]).toBe(1);
    expectOnly(compareAnyHits({ boxes: two, rays: ray }, new Uint8Array([0])), 'mismatch', 'any-flag', 1);
    // closestHit: reporting no hit at all is wrong too (box 1 is a robust hit behind it).
    const ref = closestHit(two, ray);
    expect(ref.box[0]).toBe(0);
    const gpu = gpuClosest(ref);
    gpu.box[0] = -1;
    gpu.t[0] = Infinity;
    expectOnly(compareClosestHits({ boxes: two, rays: ray }, gpu, ref), 'mismatch', 'missing-hit', 1);
    // …but reporting box 1 instead of the fragile box 0 is ambiguous.
    gpu.box[0] = 1;
    gpu.t[0] = 14;
    expectOnly(compareClosestHits({ boxes: two, rays: ray }, gpu, ref), 'ambiguous', 'in-face-plane', 1);
  });

  it('a grazing ray through an edge is ambiguous as well', () => {
    // Along the edge y = z = 0.3 (both slabs parallel and touching).
    const edge = rayArrayFrom([{ origin: [-10, 0.3, 0.3], direction: [1, 0, 0] }]);
    expectOnly(compareAnyHits({ boxes, rays: edge }, new Uint8Array([0])), 'ambiguous', 'in-face-plane', 1);
    // Through the edge x = -1, y = 1 of a unit box diagonally (entry and exit at the same t; the
    // direction (1, 1, 0)/√2 is not exact).
    const unit = boxArrayFrom([{ center: [0, 0, 0], halfExtents: [1, 1, 1], axes: [[1, 0, 0], [0, 1, 0], [0, 0, 1]] }]);
    const diag = rayArrayFrom([{ origin: [-2, 0, 0], direction: [1, 1, 0] }]);
    expect(anyHit(unit, diag)[0]).toBe(1);
    expectOnly(compareAnyHits({ boxes: unit, rays: diag }, new Uint8Array([0])), 'ambiguous', 'grazing-edge', 1);
  });
});

describe('exact ray cases are decided exactly (float32 computes every step of them exactly)', () => {
  // Box ±1; rays along x in the face plane y = 1, along the edge y = z = 1, through the middle.
  const I3 = [[1, 0, 0], [0, 1, 0], [0, 0, 1]] as const;
  const unit = boxArrayFrom([{ center: [0, 0, 0], halfExtents: [1, 1, 1], axes: I3 }]);
  const rays = rayArrayFrom([
    { origin: [-10, 1, 0], direction: [1, 0, 0] },
    { origin: [-10, 1, 1], direction: [1, 0, 0] },
    { origin: [10, 1, 1], direction: [-2, 0, 0] },
  ]);

  it('a hit in a face plane or along an edge reported as a miss is a mismatch, in every family', () => {
    const ref = closestHit(unit, rays);
    expect(Array.from(ref.box)).toEqual([0, 0, 0]);
    const gpu = gpuClosest(ref);
    gpu.box.fill(-1);
    gpu.t.fill(Infinity);
    expectOnly(compareClosestHits({ boxes: unit, rays }, gpu, ref), 'mismatch', 'missing-hit', 3);
    expectOnly(compareAnyHits({ boxes: unit, rays }, new Uint8Array(3)), 'mismatch', 'any-flag', 3);
    const all = allHits(unit, rays);
    const none: AllHits = { count: 0, ray: new Uint32Array(0), box: new Uint32Array(0), t: new Float64Array(0), face: new Uint8Array(0), inside: new Uint8Array(0) };
    expectOnly(compareAllHits({ boxes: unit, rays }, none, all), 'mismatch', 'missing-hit', 3);
    // Under a unit roundoff that is no binary format's, nothing is claimed exact.
    expectOnly(compareAnyHits({ boxes: unit, rays, unitRoundoff: 1e-7 }, new Uint8Array(3)), 'ambiguous', 'in-face-plane', 3);
  });

  it('an origin exactly on a face: t = 0 and outside, decided (not origin-on-surface)', () => {
    const on = rayArrayFrom([{ origin: [-1, 0.5, 0.25], direction: [1, 0, 0] }, { origin: [-1, 0.5, 0.25], direction: [-1, 0, 0] }]);
    const ref = closestHit(unit, on);
    expect([ref.box[0], ref.t[0], ref.inside[0], ref.box[1]]).toEqual([0, 0, 0, 0]);
    const gpu = gpuClosest(ref);
    gpu.box[1] = -1;
    gpu.t[1] = Infinity;
    expectOnly(compareClosestHits({ boxes: unit, rays: on }, gpu, ref), 'mismatch', 'missing-hit', 1);
  });

  it('NaN, infinite and negative distances never agree', () => {
    const ref = closestHit(unit, rays);
    for (const [t, reason] of [[NaN, 'not-finite'], [Infinity, 'not-finite'], [-1, 'negative-t']] as const) {
      const gpu = gpuClosest(ref);
      gpu.t.fill(t);
      expectOnly(compareClosestHits({ boxes: unit, rays }, gpu, ref), 'mismatch', reason, 3);
      const all = allHits(unit, rays);
      expectOnly(compareAllHits({ boxes: unit, rays }, { ...all, t: new Float64Array(all.count).fill(t) }, all), 'mismatch', reason, 3);
    }
  });

  it('an exact tie goes to the smallest index: inside two boxes (t = 0), and the same box listed twice', () => {
    const two = boxArrayFrom([
      { center: [0, 0, 0], halfExtents: [1, 1, 1], axes: I3 },
      { center: [0.5, 0, 0], halfExtents: [1, 1, 1], axes: I3 },
      { center: [0, 0, 0], halfExtents: [1, 1, 1], axes: I3 },
    ]);
    const ins = rayArrayFrom([{ origin: [0.25, 0, 0], direction: [0, 1, 0] }, { origin: [-5, 0.5, 0.5], direction: [1, 0, 0] }]);
    const ref = closestHit(two, ins);
    expect([ref.box[0], ref.t[0], ref.box[1], ref.t[1]]).toEqual([0, 0, 0, 4]);
    const gpu = gpuClosest(ref);
    gpu.box[0] = 1;
    gpu.box[1] = 2;
    const c = compareClosestHits({ boxes: two, rays: ins }, gpu, ref);
    expectOnly(c, 'mismatch', 'tie-rule', 2);
  });

  it('a flat box: the face entered follows the direction\'s sign along the zero axis', () => {
    const flat = boxArrayFrom([{ center: [0, 0, 0], halfExtents: [1, 0, 1], axes: I3 }]);
    const down = rayArrayFrom([{ origin: [0.25, 5, 0.5], direction: [0, -1, 0] }, { origin: [0.3, -5, 0.1], direction: [0.1, 1, 0.1] }]);
    const ref = closestHit(flat, down);
    expect([ref.face[0], ref.face[1]]).toEqual([2, 3]); // +v from above, −v from below
    const gpu = gpuClosest(ref);
    gpu.face[0] = 3;
    gpu.face[1] = 2;
    expectOnly(compareClosestHits({ boxes: flat, rays: down }, gpu, ref), 'mismatch', 'face', 2);
  });

  it('an exact corner: either face entered there agrees (both hold the hit point)', () => {
    // Origin exactly on the edge x = -1, y = -1, moving along +x: enters -u at t = 0, and the
    // -v slab's plane holds the origin too (a parallel slab with slack exactly 0: not entered).
    const corner = rayArrayFrom([{ origin: [-2, -2, 0], direction: [1, 1, 0] }]);
    const ref = closestHit(unit, corner);
    expect(ref.box[0]).toBe(0);
    const gpu = gpuClosest(ref);
    gpu.face[0] = ref.face[0] === 1 ? 3 : 1;
    const c = compareClosestHits({ boxes: unit, rays: corner }, gpu, ref);
    // The direction (1, 1, 0)/√2 is not exact, so the two crossings tie within error only.
    expectOnly(c, 'ambiguous', 'edge-or-corner-face', 1);
  });
});

// ---------------------------------------------------------------------------------------------
// Box pairs

describe(`pair comparisons (mulberry32 seed ${PAIR_SEED})`, () => {
  let boxes: BoxArray;
  let pairs: Uint32Array;
  let ref: PairResults;
  let refList: Uint32Array;

  beforeAll(() => {
    boxes = randomBoxes(70, mulberry32(PAIR_SEED), { extent: 4, halfMin: 0.2, halfMax: 1.5 });
    const ij: number[] = [];
    for (let i = 0; i < boxes.count; i++) {
      for (let j = i + 1; j < boxes.count; j++) {
        ij.push(i, j);
      }
    }
    pairs = Uint32Array.from(ij);
    ref = obbPairs(boxes, pairs);
    refList = allPairs(boxes);
  });

  const robustPairs = (overlap: boolean): number[] => {
    const out: number[] = [];
    for (let k = 0; k < ref.count; k++) {
      const g = ref.gap[k]!;
      if (overlap ? g < SAT_TOLERANCE - 0.05 : g > SAT_TOLERANCE + 0.05) {
        out.push(k);
      }
    }
    return out;
  };

  it('float32-rounded reference results all agree', () => {
    expect(robustPairs(true).length).toBeGreaterThan(50);
    expect(robustPairs(false).length).toBeGreaterThan(50);
    const c = comparePairs({ a: boxes, pairs }, gpuPairs(ref));
    expect(c.mismatch, formatComparison(c)).toBe(0);
    expect(c.ambiguous, formatComparison(c)).toBe(0);
    expect(c.total).toBe(ref.count);
    expect(c.worstRatio).toBeGreaterThan(0);
    expect(c.worstRatio).toBeLessThanOrEqual(1);
    const l = comparePairLists({ a: boxes }, refList.slice());
    expect(l.mismatch + l.ambiguous, formatComparison(l)).toBe(0);
    expect(l.total).toBe((boxes.count * (boxes.count - 1)) / 2);
  });

  it('(e) a flipped overlap flag on a robust pair → overlap mismatch (both directions)', () => {
    const gpu = gpuPairs(ref);
    const over = robustPairs(true).slice(0, 4);
    const apart = robustPairs(false).slice(0, 4);
    for (const k of [...over, ...apart]) {
      gpu.overlap[k] = 1 - gpu.overlap[k]!;
    }
    expectOnly(comparePairs({ a: boxes, pairs }, gpu), 'mismatch', 'overlap', 8);
  });

  it('(e) a clearly non-maximal axis → mismatch (its own gap: not-largest-gap; the max gap: gap-error)', () => {
    const s = makeSatScratch();
    const gpuOwn = gpuPairs(ref);
    const gpuMax = gpuPairs(ref);
    let changed = 0;
    for (const k of robustPairs(true)) {
      obbObbSatAt(boxes.data, pairs[2 * k]!, boxes.data, pairs[2 * k + 1]!, false, s);
      // A tested axis whose gap is far below the largest one.
      const low = Array.from({ length: 15 }, (_, id) => id).find((id) => s.tested[id] && s.axisGap[id]! < s.gap - 0.2);
      if (low === undefined) {
        continue;
      }
      gpuOwn.axis[k] = low;
      gpuOwn.gap[k] = s.axisGap[low]!;
      gpuMax.axis[k] = low;
      changed++;
      if (changed === 6) {
        break;
      }
    }
    expect(changed).toBe(6);
    expectOnly(comparePairs({ a: boxes, pairs }, gpuOwn), 'mismatch', 'not-largest-gap', 6);
    expectOnly(comparePairs({ a: boxes, pairs }, gpuMax), 'mismatch', 'gap-error', 6);
  });

  it('a gap far off on the right axis, or a flag that contradicts its own gap → mismatch', () => {
    const gpu = gpuPairs(ref);
    const k = robustPairs(false)[0]!;
    gpu.gap[k] = gpu.gap[k]! + 0.05;
    expectOnly(comparePairs({ a: boxes, pairs }, gpu), 'mismatch', 'gap-error', 1);
    const g2 = gpuPairs(ref);
    const k2 = robustPairs(true)[0]!;
    g2.gap[k2] = 0.5; // overlap flag still 1
    expectOnly(comparePairs({ a: boxes, pairs }, g2), 'mismatch', 'inconsistent', 1);
  });

  it('(f) a clearly separated pair added to the list → extra-pair; a robust pair dropped → missing-pair', () => {
    const k = robustPairs(false)[0]!;
    const i = pairs[2 * k]!, j = pairs[2 * k + 1]!;
    const list: [number, number][] = [];
    for (let m = 0; m < refList.length / 2; m++) {
      list.push([refList[2 * m]!, refList[2 * m + 1]!]);
    }
    list.push([i, j]);
    list.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
    const extra = comparePairLists({ a: boxes }, Uint32Array.from(list.flat()));
    expectOnly(extra, 'mismatch', 'extra-pair', 1);
    expect(extra.cases[0]?.detail).toContain(`(${i}, ${j})`);
    const o = robustPairs(true)[0]!;
    const oi = pairs[2 * o]!, oj = pairs[2 * o + 1]!;
    const dropped = list.filter(([a, b]) => !(a === oi && b === oj) && !(a === i && b === j));
    expect(dropped.length).toBe(refList.length / 2 - 1);
    expectOnly(comparePairLists({ a: boxes }, Uint32Array.from(dropped.flat())), 'mismatch', 'missing-pair', 1);
  });

  it('malformed GPU lists are rejected outright (unsorted, duplicate, i >= j)', () => {
    expect(() => comparePairLists({ a: boxes }, new Uint32Array([3, 4, 1, 2]))).toThrow(RangeError);
    expect(() => comparePairLists({ a: boxes }, new Uint32Array([1, 2, 1, 2]))).toThrow(RangeError);
    expect(() => comparePairLists({ a: boxes }, new Uint32Array([4, 3]))).toThrow(RangeError);
  });
});

describe('touching boxes are ambiguous, robust pairs next to them are not', () => {
  // Two cubes of half extent 0.3 (not a float32 number) sharing the face x = 0.3 (gap exactly 0
  // on A0 in float64, not in float32), and a clearly overlapping pair.
  const I3 = [[1, 0, 0], [0, 1, 0], [0, 0, 1]] as const;
  const boxes = boxArrayFrom([
    { center: [0, 0, 0], halfExtents: [0.3, 0.3, 0.3], axes: I3 },
    { center: [0.6, 0, 0], halfExtents: [0.3, 0.3, 0.3], axes: I3 },
    { center: [0.15, 0.15, 0], halfExtents: [0.3, 0.3, 0.3], axes: I3 },
  ]);
  const pairs = new Uint32Array([0, 1, 0, 2]);

  it('the reference calls the touching pair overlapping with gap exactly 0 on A0', () => {
    const r = obbPairs(boxes, pairs);
    expect(r.gap[0]).toBe(0);
    expect(SAT_AXIS_NAMES[r.axis[0]!]).toBe('A0');
    expect(Array.from(r.overlap)).toEqual([1, 1]);
  });

  it('comparePairs: the touching pair flipped to separate is ambiguous (touching); the robust one a mismatch', () => {
    const ref = obbPairs(boxes, pairs);
    const gpu = gpuPairs(ref);
    gpu.overlap[0] = 0;
    gpu.gap[0] = 2e-6;
    expectOnly(comparePairs({ a: boxes, pairs }, gpu), 'ambiguous', 'touching', 1);
    gpu.overlap[1] = 0;
    const c = comparePairs({ a: boxes, pairs }, gpu);
    expect([c.ambiguous, c.mismatch]).toEqual([1, 1]);
    expect(c.mismatchByReason['overlap']).toBe(1);
  });

  it('comparePairLists: the touching pair missing is ambiguous; the robust pair missing a mismatch', () => {
    const ref = allPairs(boxes);
    expect(Array.from(ref)).toEqual([0, 1, 0, 2, 1, 2]);
    expectOnly(comparePairLists({ a: boxes }, new Uint32Array([0, 2, 1, 2])), 'ambiguous', 'touching', 1);
    expectOnly(comparePairLists({ a: boxes }, new Uint32Array([0, 1, 1, 2])), 'mismatch', 'missing-pair', 1);
  });
});

describe('exact pair cases are decided exactly', () => {
  const I3 = [[1, 0, 0], [0, 1, 0], [0, 0, 1]] as const;
  // Unit cubes in face contact at x = 1 (gap exactly 0 in every precision), and 0.5 apart.
  const boxes = boxArrayFrom([
    { center: [0, 0, 0], halfExtents: [1, 1, 1], axes: I3 },
    { center: [2, 0, 0], halfExtents: [1, 1, 1], axes: I3 },
    { center: [0, 2.5, 0], halfExtents: [1, 1, 1], axes: [[0, 1, 0], [-1, 0, 0], [0, 0, 1]] },
  ]);
  const pairs = new Uint32Array([0, 1, 0, 2]);

  it('touching at an exact distance is overlap, 0.5 apart is separate: flipping either is a mismatch', () => {
    const ref = obbPairs(boxes, pairs);
    expect(Array.from(ref.overlap)).toEqual([1, 0]);
    expect(ref.gap[1]).toBe(0.5);
    const gpu = gpuPairs(ref);
    gpu.overlap[0] = 0;
    gpu.gap[0] = 2e-6;
    expectOnly(comparePairs({ a: boxes, pairs }, gpu), 'mismatch', 'overlap', 1);
    expectOnly(comparePairLists({ a: boxes }, new Uint32Array(0)), 'mismatch', 'missing-pair', 1);
  });

  it('an exact gap gets a point interval; an equal-gap axis other than the library\'s agrees', () => {
    const ref = obbPairs(boxes, pairs);
    const off = gpuPairs(ref);
    off.gap[1] = 0.5 + 2 ** -20;
    expectOnly(comparePairs({ a: boxes, pairs }, off), 'mismatch', 'gap-error', 1);
    // Pair 0: gap 0 on A0 and on B0 (the same face normal): naming B0 is a valid choice.
    const other = gpuPairs(ref);
    expect(ref.axis[0]).toBe(0);
    other.axis[0] = 3;
    const c = comparePairs({ a: boxes, pairs }, other);
    expect([c.agree, c.ambiguous, c.mismatch]).toEqual([2, 0, 0]);
  });

  it('a NaN or infinite gap never agrees', () => {
    const ref = obbPairs(boxes, pairs);
    for (const g of [NaN, Infinity, -Infinity]) {
      const gpu = gpuPairs(ref);
      gpu.gap.fill(g);
      expectOnly(comparePairs({ a: boxes, pairs }, gpu), 'mismatch', 'not-finite', 2);
    }
  });
});

// ---------------------------------------------------------------------------------------------
// Reports and the error model

describe('formatComparison', () => {
  it('mentions the family, every count, the reasons and the mismatching input', () => {
    const boxes = boxArrayFrom([{ center: [0, 0, 0], halfExtents: [1, 0.3, 1], axes: [[1, 0, 0], [0, 1, 0], [0, 0, 1]] }]);
    const rays = rayArrayFrom([
      { origin: [-10, 0.3, 0], direction: [1, 0, 0] },
      { origin: [-10, 0.15, 0], direction: [1, 0, 0] },
      { origin: [-10, 0, 0], direction: [1, 0, 0] },
      { origin: [-10, 5, 0], direction: [1, 0, 0] },
    ]);
    const c = compareAnyHits({ boxes, rays }, new Uint8Array([0, 0, 1, 0]));
    expect([c.total, c.agree, c.ambiguous, c.mismatch]).toEqual([4, 2, 1, 1]);
    const text = formatComparison(c);
    expect(text).toContain('anyHit: 4 cases');
    expect(text).toContain('2 agree');
    expect(text).toContain('1 ambiguous (in-face-plane 1)');
    expect(text).toContain('1 mismatch (any-flag 1)');
    expect(text).toContain('MISMATCH any-flag: ray 1');
    expect(text).toContain('AMBIGUOUS in-face-plane: ray 0');
    expect(text).toMatch(/input: \{"ray":\{"index":1,"origin":\[-10,0\.15,0\]/);
    // Mismatches are listed before ambiguous cases, and maxCases limits the list.
    expect(text.indexOf('MISMATCH')).toBeLessThan(text.indexOf('AMBIGUOUS'));
    expect(formatComparison(c, 0).split('\n')).toHaveLength(1);
  });

  it('keeps at most maxCases cases of each verdict but counts them all', () => {
    const boxes = boxArrayFrom([{ center: [0, 0, 0], halfExtents: [1, 1, 1], axes: [[1, 0, 0], [0, 1, 0], [0, 0, 1]] }]);
    const rays = rayArrayFrom(Array.from({ length: 30 }, (_, k) => ({ origin: [-10, k / 100, 0], direction: [1, 0, 0] })));
    const c = compareAnyHits({ boxes, rays }, new Uint8Array(30), undefined, { maxCases: 3 });
    expect(c.mismatch).toBe(30);
    expect(c.cases).toHaveLength(3);
    expect(formatComparison(c)).toContain('30 mismatch (any-flag 30)');
  });
});

describe('error model', () => {
  const scales = [0, 1, 10, 1e3, 1e6];
  const ts = [0, 0.5, 10, 1e4];
  const slopes = [1, 0.5, 1e-3, 1e-9, 0];

  it('bounds are positive and finite (even for zero slopes and zero-length axes)', () => {
    for (const s of scales.slice(1)) {
      expect(positionBound(s)).toBeGreaterThan(0);
      for (const t of ts) {
        for (const d of slopes) {
          const b = rayDistanceBound(s, t, d);
          expect(b).toBeGreaterThan(0);
          expect(Number.isFinite(b)).toBe(true);
        }
      }
      for (const l of [1, 1e-3, 1e-6, 1e-12, 0]) {
        expect(satGapBound(s, l)).toBeGreaterThan(0);
        expect(Number.isFinite(satGapBound(s, l))).toBe(true);
      }
    }
    expect(edgeSkipBand(0)).toBeGreaterThan(0);
  });

  it('rayDistanceBound grows with scale and |t|, shrinks as |d_k| grows, ignores the sign of d_k and t', () => {
    for (let i = 1; i < scales.length; i++) {
      expect(rayDistanceBound(scales[i]!, 1, 0.5)).toBeGreaterThan(rayDistanceBound(scales[i - 1]!, 1, 0.5));
    }
    for (let i = 1; i < ts.length; i++) {
      expect(rayDistanceBound(10, ts[i]!, 0.5)).toBeGreaterThan(rayDistanceBound(10, ts[i - 1]!, 0.5));
    }
    for (let i = 1; i < slopes.length - 1; i++) {
      expect(rayDistanceBound(10, 1, slopes[i]!)).toBeGreaterThan(rayDistanceBound(10, 1, slopes[i - 1]!));
    }
    expect(rayDistanceBound(10, 1, 0)).toBeGreaterThanOrEqual(rayDistanceBound(10, 1, 1e-9));
    expect(rayDistanceBound(10, 3, -0.25)).toBe(rayDistanceBound(10, 3, 0.25));
    expect(rayDistanceBound(10, -3, 0.25)).toBe(rayDistanceBound(10, 3, 0.25));
    expect(rayDistanceBound(100, 42, 0.5)).toBeCloseTo(5.4e-4, 5);
  });

  it('satGapBound grows as lenSq shrinks and as scale grows; a face axis at scale 10 is ≈ 1.9e-5', () => {
    const lens = [1, 0.5, 1e-2, 1e-4, 1e-6, 1e-10];
    for (let i = 1; i < lens.length; i++) {
      expect(satGapBound(10, lens[i]!)).toBeGreaterThan(satGapBound(10, lens[i - 1]!));
    }
    for (let i = 1; i < scales.length; i++) {
      expect(satGapBound(scales[i]!, 1)).toBeGreaterThan(satGapBound(scales[i - 1]!, 1));
    }
    expect(satGapBound(10, 1)).toBeCloseTo(1.9e-5, 6);
    // Linear in scale, 1/|L| in the axis length.
    expect(satGapBound(20, 1)).toBeCloseTo(2 * satGapBound(10, 1), 15);
    expect(satGapBound(10, 0.25)).toBeCloseTo(2 * satGapBound(10, 1), 15);
  });

  it('positionBound is linear in scale; edgeSkipBand grows with lenSq and stays tiny', () => {
    expect(positionBound(0)).toBe(0);
    expect(positionBound(20)).toBeCloseTo(2 * positionBound(10), 15);
    const lens = [0, 1e-8, 1e-6, 1e-3, 1];
    for (let i = 1; i < lens.length; i++) {
      expect(edgeSkipBand(lens[i]!)).toBeGreaterThan(edgeSkipBand(lens[i - 1]!));
    }
    expect(edgeSkipBand(1e-6)).toBeLessThan(1e-6 * 1e-2);
  });

  it('float32 rounding of any t is inside the bound (the model covers a correct kernel)', () => {
    const rnd = mulberry32(31337);
    for (let k = 0; k < 10_000; k++) {
      const t = 10 ** (rnd() * 8 - 3);
      const scale = 10 ** (rnd() * 6 - 2);
      const d = rnd() * 2 - 1;
      expect(Math.abs(Math.fround(t) - t)).toBeLessThanOrEqual(rayDistanceBound(scale, t, d));
    }
    expect(F32_UNIT_ROUNDOFF).toBe(2 ** -24);
  });
});

describe('honest counts', () => {
  it('a case no path tallies fails the comparison (an internal error), instead of counting as agreeing', () => {
    const t = new Tally(5);
    t.ok();
    t.add({ index: 1, verdict: 'mismatch', reason: 'test', detail: '', input: {} });
    // Three cases compared, two decided: before, agree was total − ambiguous − mismatch = 2.
    expect(() => t.result('closestHit', 3)).toThrow(/closestHit: 1 agree \+ 0 ambiguous \+ 1 mismatch tallied, but 3 cases compared/);
    t.ok();
    expect(t.result('closestHit', 3)).toMatchObject({ total: 3, agree: 2, ambiguous: 0, mismatch: 1 });
  });

  it('every comparator adds up on random suites: agree + ambiguous + mismatch = total, each counted where decided', () => {
    const rnd = mulberry32(4242);
    const boxes = randomBoxes(60, rnd, { extent: 8, halfMin: 0.3, halfMax: 1.5 });
    const rays = randomRays(500, boxes, rnd, { extent: 12, aimed: 0.7 });
    const pairs = Uint32Array.from({ length: 2 * 400 }, () => Math.floor(rnd() * 60));
    const ref = closestHit(boxes, rays);
    const asF32 = { ...ref, t: Float32Array.from(ref.t) };
    const results = [
      compareClosestHits({ boxes, rays }, asF32),
      compareAnyHits({ boxes, rays }, anyHit(boxes, rays)),
      compareAllHits({ boxes, rays }, allHits(boxes, rays)),
      comparePairs({ a: boxes, pairs }, obbPairs(boxes, pairs)),
      comparePairLists({ a: boxes }, allPairs(boxes)),
    ];
    for (const c of results) {
      expect(c.agree + c.ambiguous + c.mismatch, c.family).toBe(c.total);
      expect(c.agree, c.family).toBeGreaterThan(0);
    }
  });
});
