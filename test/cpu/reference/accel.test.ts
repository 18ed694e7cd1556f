/**
 * The accelerated reference (grid for rays, sort-and-sweep for pairs) must give exactly the
 * brute-force reference's answers: it is what checks the GPU's BVH at 100,000 × 100,000.
 */
import { describe, expect, it } from 'vitest';
import { allHitsGrid, allPairsSweep, anyHitGrid, BoxGrid, closestHitGrid } from '../../../src/reference/accel.ts';
import { allHits, anyHit, closestHit } from '../../../src/reference/raycast.ts';
import { allPairs, obbCross } from '../../../src/reference/pairs.ts';
import { checkReferenceSweep, columnBoxes, lidarRays, lidarSweepReference } from '../../../src/reference/lidar.ts';
import { obbObbSatAt, makeSatScratch } from '../../../src/reference/query/obbObbSat.ts';
import { adversarialRayGroups } from '../../../src/scenes/adversarial.ts';
import { mulberry32, randomBoxes, randomRays, writeRandomRotation } from '../../../src/scenes/generate.ts';
import { boxArrayFrom } from '../../../src/core/canonical.ts';
import { linearElevations, type BoxMotion, type LidarDescription } from '../../../src/core/lidar.ts';
import { BOX_F64, RAY_F64, type BoxArray, type RayArray } from '../../../src/core/types.ts';
import { CapacityError } from '../../../src/errors.ts';

function same(a: { box: Int32Array; t: ArrayLike<number>; face: Uint8Array; inside: Uint8Array }, b: typeof a): number {
  let diff = 0;
  for (let r = 0; r < a.box.length; r++) {
    if (a.box[r] !== b.box[r] || (a.box[r]! >= 0 && (a.t[r] !== b.t[r] || a.face[r] !== b.face[r] || a.inside[r] !== b.inside[r]))) {
      diff++;
    }
  }
  return diff;
}

describe('grid reference equals brute force', { timeout: 60_000 }, () => {
  it.each([[1], [2], [500], [1500]])('random scene of %i boxes, 2,000 rays (seed 61)', (n) => {
    const rnd = mulberry32(61);
    const boxes = randomBoxes(n, rnd, { extent: 30, halfMin: 0.05, halfMax: 3 });
    const rays = randomRays(2000, boxes, rnd, { extent: 40 });
    expect(same(closestHitGrid(boxes, rays), closestHit(boxes, rays))).toBe(0);
    expect(anyHitGrid(boxes, rays)).toEqual(anyHit(boxes, rays));
    const ga = allHitsGrid(boxes, rays);
    const ba = allHits(boxes, rays);
    expect(ga.count).toBe(ba.count);
    expect(Array.from(ga.box)).toEqual(Array.from(ba.box));
    expect(Array.from(ga.ray)).toEqual(Array.from(ba.ray));
  });

  it('with masks, exclusion, max distance and solid: false (seed 62)', () => {
    const rnd = mulberry32(62);
    const boxes = randomBoxes(800, rnd, { extent: 10, halfMin: 0.2, halfMax: 2 });
    const rays = randomRays(3000, boxes, rnd, { extent: 15, maxDistance: 8 });
    const options = {
      solid: false,
      boxMasks: Uint32Array.from({ length: 800 }, (_, i) => 1 << (i % 3)),
      rayMasks: Uint32Array.from({ length: 3000 }, (_, i) => 3 << (i % 2)),
      exclude: Int32Array.from({ length: 3000 }, (_, i) => (i % 4 === 0 ? i % 800 : -1)),
    };
    expect(same(closestHitGrid(boxes, rays, options), closestHit(boxes, rays, options))).toBe(0);
    expect(anyHitGrid(boxes, rays, options)).toEqual(anyHit(boxes, rays, options));
  });

  it('adversarial ray groups (seed 7), including rays in face planes and axis-aligned rays', () => {
    for (const g of adversarialRayGroups(7)) {
      const options = {
        solid: g.solid,
        ...(g.boxMasks ? { boxMasks: g.boxMasks } : {}),
        ...(g.rayMasks ? { rayMasks: g.rayMasks } : {}),
        ...(g.exclude ? { exclude: g.exclude } : {}),
      };
      expect(same(closestHitGrid(g.boxes, g.rays, options), closestHit(g.boxes, g.rays, options)), g.name).toBe(0);
    }
  });

  it('identical boxes and boxes in a plane (seed 63)', () => {
    const rnd = mulberry32(63);
    const boxes = randomBoxes(600, rnd, { extent: 10 });
    const identical: BoxArray = { count: 600, data: boxes.data.slice() };
    const plane: BoxArray = { count: 600, data: boxes.data.slice() };
    for (let i = 0; i < 600; i++) {
      identical.data.set(boxes.data.subarray(0, 15), i * BOX_F64.STRIDE);
      plane.data[i * BOX_F64.STRIDE + 2] = 0;
    }
    for (const b of [identical, plane]) {
      const rays = randomRays(2000, b, rnd, { extent: 15 });
      expect(same(closestHitGrid(b, rays), closestHit(b, rays))).toBe(0);
    }
  });
});

describe('sort-and-sweep pairs equal brute force', { timeout: 60_000 }, () => {
  it.each([[2, 3], [400, 5], [2000, 20], [2000, 60]])('%i boxes in a cube of half-size %i (seed 64)', (n, extent) => {
    const boxes = randomBoxes(n, mulberry32(64), { extent, halfMin: 0.1, halfMax: 2 });
    expect(Array.from(allPairsSweep(boxes))).toEqual(Array.from(allPairs(boxes)));
  });

  it('two sets (seed 65)', () => {
    const rnd = mulberry32(65);
    const a = randomBoxes(700, rnd, { extent: 12 });
    const b = randomBoxes(500, rnd, { extent: 12 });
    expect(Array.from(allPairsSweep(a, {}, b))).toEqual(Array.from(obbCross(a, b)));
  });
});

/** `boxes` with box `i`'s record replaced through `edit(data, offset)`. */
function edited(boxes: BoxArray, edit: (d: Float64Array, o: number, i: number) => void): BoxArray {
  const data = boxes.data.slice();
  for (let i = 0; i < boxes.count; i++) {
    edit(data, i * BOX_F64.STRIDE, i);
  }
  return { count: boxes.count, data };
}

function identity(d: Float64Array, o: number): void {
  d.set([1, 0, 0, 0, 1, 0, 0, 0, 1], o + BOX_F64.U);
}

/** The grid and the sweep against brute force on one box set: closest and any hit, all pairs. */
function expectExact(boxes: BoxArray, rays: RayArray, label: string): void {
  expect(same(closestHitGrid(boxes, rays), closestHit(boxes, rays)), `${label}: closest hit`).toBe(0);
  expect(anyHitGrid(boxes, rays), `${label}: any hit`).toEqual(anyHit(boxes, rays));
  expect(Array.from(allPairsSweep(boxes)), `${label}: all pairs`).toEqual(Array.from(allPairs(boxes)));
}

describe('the accelerated reference on every layout the scene format allows', { timeout: 120_000 }, () => {
  it('far rays nearly parallel to a box face, 1e6 to 1e9 away (the slab test\'s parallel branch lets them drift; seed 66)', () => {
    // A local direction component under EPS_DIR counts as 0: the ray hits when its origin is in
    // the slab, though at t = 1e9 it has drifted up to 1 unit out of it.
    const rnd = mulberry32(66);
    const boxes = randomBoxes(2000, rnd, { extent: 20, halfMin: 0.2, halfMax: 1, axisAligned: 0.5 });
    const n = 3000;
    const data = new Float64Array(n * RAY_F64.STRIDE);
    for (let r = 0; r < n; r++) {
      const b = Math.floor(rnd() * boxes.count) * BOX_F64.STRIDE;
      const along = Math.floor(rnd() * 3);
      const across = (along + 1 + Math.floor(rnd() * 2)) % 3;
      const u = boxes.data.subarray(b + BOX_F64.U + 3 * along, b + BOX_F64.U + 3 * along + 3);
      const v = boxes.data.subarray(b + BOX_F64.U + 3 * across, b + BOX_F64.U + 3 * across + 3);
      const far = [1e6, 1e7, 1e9][r % 3]!;
      const eps = (2 * rnd() - 1) * 9e-10;
      const offset = 2 * rnd() - 1;
      const o = r * RAY_F64.STRIDE;
      for (let k = 0; k < 3; k++) {
        data[o + k] = boxes.data[b + k]! - far * u[k]! + offset * v[k]!;
        data[o + 3 + k] = u[k]! + eps * v[k]!;
      }
      const len = Math.hypot(data[o + 3]!, data[o + 4]!, data[o + 5]!);
      for (let k = 3; k < 6; k++) {
        data[o + k]! /= len;
      }
      data[o + RAY_F64.MAX] = r % 2 ? Infinity : 2 * far;
    }
    const rays = { count: n, data };
    const brute = closestHit(boxes, rays);
    expect(brute.box.filter((b) => b >= 0).length).toBeGreaterThan(n / 2);
    expect(same(closestHitGrid(boxes, rays), brute)).toBe(0);
    expect(anyHitGrid(boxes, rays)).toEqual(anyHit(boxes, rays));
  });

  it('identical boxes (the grid would hold n² entries: it coarsens to brute force; seed 67)', () => {
    const rnd = mulberry32(67);
    const one = randomBoxes(1, rnd);
    for (const n of [600, 20_000]) {
      const boxes = edited(randomBoxes(n, rnd), (d, o) => d.set(one.data, o));
      const grid = new BoxGrid(boxes);
      expect(grid.dims[0] * grid.dims[1] * grid.dims[2]).toBeLessThanOrEqual(8 * n + 64);
      const rays = randomRays(n === 600 ? 2000 : 50, boxes, rnd, { extent: 3 });
      expect(same(closestHitGrid(boxes, rays, {}, grid), closestHit(boxes, rays)), `${n} boxes`).toBe(0);
      if (n === 600) {
        expect(Array.from(allPairsSweep(boxes))).toEqual(Array.from(allPairs(boxes)));
      } else {
        // Every pair overlaps: 2 × 10^8 of them. A list with a limit refuses, it does not exhaust memory.
        expect(() => allPairsSweep(boxes, { maxPairs: 10_000 })).toThrow(CapacityError);
      }
    }
  });

  it('one huge box among small ones stays out of the grid; 300 wide ones make it coarsen (seed 68)', () => {
    const rnd = mulberry32(68);
    const small = randomBoxes(1500, rnd, { extent: 15, halfMin: 0.1, halfMax: 1 });
    const huge = edited(small, (d, o, i) => {
      if (i === 700) {
        d.set([400, 300, 500], o + BOX_F64.HALF);
      }
    });
    expect(Array.from(new BoxGrid(huge).large)).toEqual([700]);
    const wide = edited(small, (d, o, i) => {
      if (i % 5 === 0) {
        d.set([12, 9, 14], o + BOX_F64.HALF);
      }
    });
    for (const [name, boxes] of [['one huge', huge], ['300 wide', wide]] as const) {
      expectExact(boxes, randomRays(2000, boxes, rnd, { extent: name === 'one huge' ? 600 : 25 }), name);
    }
  });

  it('flat boxes, segments and points: zero half extents, in a plane and anywhere (seed 69)', () => {
    const rnd = mulberry32(69);
    const base = randomBoxes(1200, rnd, { extent: 8, halfMin: 0.2, halfMax: 1.5 });
    const planar = edited(base, (d, o, i) => {
      d[o + 2] = 0;
      d[o + BOX_F64.HALF + 2] = 0;
      if (i % 2) {
        identity(d, o);
      }
    });
    const mixed = edited(base, (d, o, i) => {
      for (let k = 0; k < i % 4; k++) {
        d[o + BOX_F64.HALF + k] = 0;
      }
    });
    for (const [name, boxes] of [['flat in the plane z = 0', planar], ['flat, segments and points', mixed]] as const) {
      const rays = randomRays(2000, boxes, rnd, { extent: 10, maxDistance: name === 'flat in the plane z = 0' ? Infinity : 9 });
      expectExact(boxes, rays, name);
    }
  });

  it('coordinates of 1e6 and more, small boxes, rays from there and from the origin (seed 70)', () => {
    const rnd = mulberry32(70);
    const offset: [number, number, number] = [1.5e6, -2e6, 3e6];
    const boxes = randomBoxes(1500, rnd, { extent: 20, halfMin: 0.01, halfMax: 1, offset });
    const near = randomRays(1500, boxes, rnd, { extent: 25, offset });
    const fromOrigin = randomRays(500, boxes, rnd, { extent: 1, aimed: 1 });
    const rays = { count: 2000, data: Float64Array.of(...near.data, ...fromOrigin.data) };
    expectExact(boxes, rays, '1e6');
  });

  it('one box, no boxes, no rays', () => {
    const rnd = mulberry32(71);
    const one = randomBoxes(1, rnd, { extent: 0 });
    expectExact(one, randomRays(500, one, rnd, { extent: 3 }), 'one box');
    const none: BoxArray = { count: 0, data: new Float64Array(0) };
    expectExact(none, randomRays(100, one, rnd), 'no boxes');
    expect(closestHitGrid(one, { count: 0, data: new Float64Array(0) }).count).toBe(0);
  });

  it('reports progress: (done, total, found), done rising, ending at (total, total, the count)', () => {
    const rnd = mulberry32(72);
    const boxes = randomBoxes(9000, rnd, { extent: 30 });
    const rays = randomRays(9000, boxes, rnd, { extent: 35 });
    for (const run of [
      (onProgress: (d: number, t: number, f: number) => void) => allPairsSweep(boxes, { onProgress }).length / 2,
      (onProgress: (d: number, t: number, f: number) => void) => closestHitGrid(boxes, rays, { onProgress }).box.filter((b) => b >= 0).length,
    ]) {
      const calls: [number, number, number][] = [];
      const found = run((d, t, f) => calls.push([d, t, f]));
      expect(calls.length).toBeGreaterThan(2);
      expect(calls.every(([d], k) => k === 0 || d > calls[k - 1]![0])).toBe(true);
      expect(calls.at(-1)).toEqual([9000, 9000, found]);
    }
  });
});

describe('all pairs where a skipped edge-cross axis calls separated boxes overlapping', { timeout: 60_000 }, () => {
  /** Axis `v` turned by `angle` about unit axis `k` (Rodrigues). */
  function turn(v: readonly number[], k: readonly number[], angle: number): number[] {
    const c = Math.cos(angle), s = Math.sin(angle);
    const dot = k[0]! * v[0]! + k[1]! * v[1]! + k[2]! * v[2]!;
    const cross = [k[1]! * v[2]! - k[2]! * v[1]!, k[2]! * v[0]! - k[0]! * v[2]!, k[0]! * v[1]! - k[1]! * v[0]!];
    return [0, 1, 2].map((i) => v[i]! * c + cross[i]! * s + k[i]! * dot * (1 - c));
  }

  it('two rods with edges 0.03° apart, 0.5–4 mm apart along their cross axis', () => {
    // The gap is on A0 × B0 alone, skipped (|A0 × B0|² = 2.5e-7 < SAT_EDGE_EPS_SQ): SAT reports
    // contact, though the AABBs are that far apart in z.
    const q = (x: number, z: number): number[] => [x, 0, z, Math.sqrt(1 - x * x - z * z)];
    const roll = Math.sin(Math.PI / 8), yaw = Math.sin(2.5e-4);
    const qb = [roll * Math.cos(2.5e-4), roll * yaw, Math.cos(Math.PI / 8) * yaw, Math.cos(Math.PI / 8) * Math.cos(2.5e-4)];
    for (const delta of [5e-4, 1e-3, 2e-3, 4e-3]) {
      const boxes = boxArrayFrom([
        { center: [0, 0, 0], halfExtents: [10, 0.1, 0.1], rotation: q(roll, 0) as [number, number, number, number] },
        { center: [0, 0, 0.2 * Math.SQRT2 + delta], halfExtents: [10, 0.1, 0.1], rotation: qb as [number, number, number, number] },
      ]);
      expect(Array.from(allPairs(boxes)), `${delta}`).toEqual([0, 1]);
      expect(Array.from(allPairsSweep(boxes)), `${delta}`).toEqual([0, 1]);
    }
  });

  it('random near-parallel frames placed at contact along the cross axis (seed 73)', () => {
    const rnd = mulberry32(73);
    const s = makeSatScratch();
    let overlapping = 0;
    for (let trial = 0; trial < 6000; trial++) {
      const data = new Float64Array(2 * BOX_F64.STRIDE);
      writeRandomRotation(data, 0, rnd);
      const a = [0, 1, 2].map((k) => Array.from(data.subarray(BOX_F64.U + 3 * k, BOX_F64.U + 3 * k + 3)));
      const axis = turn([1, 0, 0], [0, 0, 1], 2 * Math.PI * rnd());
      let b = a.map((v) => turn(v, turn(axis, [0, 1, 0], Math.PI * rnd()), 1.3e-3 * rnd()));
      if (rnd() < 0.5) {
        const spin = Math.PI * rnd();
        b = b.map((v) => turn(v, b[0]!, spin));
      }
      // Turn both so that A0 × B0 is world z, where the boxes' AABBs see the separation.
      const cross = [a[0]![1]! * b[0]![2]! - a[0]![2]! * b[0]![1]!, a[0]![2]! * b[0]![0]! - a[0]![0]! * b[0]![2]!, a[0]![0]! * b[0]![1]! - a[0]![1]! * b[0]![0]!];
      const len = Math.hypot(...cross);
      const l = cross.map((x) => x / len);
      const pivot = Math.hypot(l[1]!, l[0]!);
      if (pivot > 1e-12) {
        const k = [l[1]! / pivot, -l[0]! / pivot, 0];
        const angle = Math.acos(Math.max(-1, Math.min(1, l[2]!)));
        for (const frame of [a, b]) {
          frame.forEach((v, i) => {
            frame[i] = turn(v, k, angle);
          });
        }
      }
      a.forEach((v, k) => data.set(v, BOX_F64.U + 3 * k));
      b.forEach((v, k) => data.set(v, BOX_F64.STRIDE + BOX_F64.U + 3 * k));
      for (const o of [0, BOX_F64.STRIDE]) {
        data.set([Math.exp(Math.log(1000) * rnd()), 0.1 + rnd(), 0.1 + rnd()], o + BOX_F64.HALF);
      }
      // B along ±z at the largest distance SAT still calls contact (bisection), or a little nearer.
      const sign = rnd() < 0.5 ? 1 : -1;
      let lo = 0, hi = 3000;
      for (let it = 0; it < 60; it++) {
        const mid = (lo + hi) / 2;
        data[BOX_F64.STRIDE + 2] = sign * mid;
        if (obbObbSatAt(data, 0, data, 1, false, s) <= 1e-6) {
          lo = mid;
        } else {
          hi = mid;
        }
      }
      data[BOX_F64.STRIDE + 2] = sign * (lo - (rnd() < 0.3 ? 1e-3 * rnd() : 0));
      const boxes = { count: 2, data };
      const brute = Array.from(allPairs(boxes));
      overlapping += brute.length / 2;
      expect(Array.from(allPairsSweep(boxes)), `trial ${trial}`).toEqual(brute);
    }
    expect(overlapping).toBeGreaterThan(3000);
  });

  it('tolerances 0.1 and 0, and a list limit (seed 74)', () => {
    const boxes = randomBoxes(1500, mulberry32(74), { extent: 12, halfMin: 0.1, halfMax: 1 });
    for (const tolerance of [0.1, 0]) {
      expect(Array.from(allPairsSweep(boxes, { tolerance }))).toEqual(Array.from(allPairs(boxes, { tolerance })));
    }
    const count = allPairs(boxes).length / 2;
    expect(allPairsSweep(boxes, { maxPairs: count }).length / 2).toBe(count);
    expect(() => allPairsSweep(boxes, { maxPairs: count - 1 })).toThrow(/more than \d+ overlapping pairs/);
  });
});

describe('LiDAR sweeps through the grid equal brute force', { timeout: 60_000 }, () => {
  /** The sweep as the brute-force reference computes it: every column's rays against every box at its time. */
  function bruteSweep(boxes: BoxArray, desc: LidarDescription, motion: BoxMotion | undefined, boxMasks?: Uint32Array, mask = 0xffffffff): { box: Int32Array; t: Float64Array } {
    const pose = { origin: [0.3, -0.2, 1.8] as [number, number, number], rotation: [0, 0, 0.2, 0.98] as [number, number, number, number] };
    const rays = lidarRays(desc, pose, { origin: [2, 0.5, 1.8] });
    const C = desc.elevations.length;
    const A = desc.azimuthSteps;
    const timed = columnBoxes(boxes, desc, motion);
    const box = new Int32Array(C * A);
    const t = new Float64Array(C * A);
    const column = { count: C, data: new Float64Array(C * RAY_F64.STRIDE) };
    for (let a = 0; a < A; a++) {
      for (let c = 0; c < C; c++) {
        column.data.set(rays.data.subarray((c * A + a) * RAY_F64.STRIDE, (c * A + a + 1) * RAY_F64.STRIDE), c * RAY_F64.STRIDE);
      }
      const hits = closestHit(timed.at(a), column, boxMasks ? { boxMasks, rayMasks: new Uint32Array(C).fill(mask) } : {});
      for (let c = 0; c < C; c++) {
        box[c * A + a] = hits.box[c]!;
        t[c * A + a] = hits.t[c]!;
      }
    }
    return { box, t };
  }

  it.each([['still', false], ['moving and spinning', true]])('%s boxes, 16 channels × 360 columns (seed 75)', (_, moves) => {
    const rnd = mulberry32(75);
    const boxes = randomBoxes(1500, rnd, { extent: 30, halfMin: 0.2, halfMax: 2.5 });
    const listed = Array.from({ length: 500 }, (_, k) => 3 * k);
    const motion: BoxMotion | undefined = moves
      ? { boxes: listed, velocity: listed.flatMap(() => [20 * rnd() - 10, 20 * rnd() - 10, rnd()]), angularVelocity: listed.flatMap((i) => (i % 2 ? [0, 0, 4 * rnd()] : [0, 0, 0])) }
      : undefined;
    const desc: LidarDescription = { elevations: linearElevations(16, -15, 15), azimuthSteps: 360, maxRange: 60, minRange: 0.5, sweepTime: 0.1 };
    const boxMasks = Uint32Array.from({ length: boxes.count }, (_, i) => 1 << (i % 3));
    for (const filters of [{}, { boxMasks, mask: 0b101 }]) {
      const pose = { origin: [0.3, -0.2, 1.8] as [number, number, number], rotation: [0, 0, 0.2, 0.98] as [number, number, number, number] };
      const ref = lidarSweepReference(boxes, desc, pose, { poseEnd: { origin: [2, 0.5, 1.8] }, ...(motion ? { boxMotion: motion } : {}) }, filters);
      const brute = bruteSweep(boxes, desc, motion, 'boxMasks' in filters ? boxMasks : undefined, 0b101);
      expect(Array.from(ref.closestBox)).toEqual(Array.from(brute.box));
      expect(Array.from(ref.closestT)).toEqual(Array.from(brute.t));
      expect(ref.closestBox.filter((b) => b >= 0).length).toBeGreaterThan(1000);
    }
  });

  it('refuses a sweep larger than the CPU holds, before allocating, naming its size', () => {
    expect(() => checkReferenceSweep({ elevations: linearElevations(64, -20, 20), azimuthSteps: 2 ** 19, maxRange: 100 }))
      .toThrow('64 channels × 524288 columns = 33554432 rays per sweep is more than the CPU reference holds (16777216 = 2^24)');
    expect(() => lidarSweepReference({ count: 0, data: new Float64Array(0) }, { elevations: [0], azimuthSteps: 5_000_000, maxRange: 1 }, { origin: [0, 0, 0] }))
      .toThrow(/1 channel × 5000000 columns = 5000000 rays per sweep: more columns than the CPU reference holds \(4194304 = 2\^22\)/);
  });
});
