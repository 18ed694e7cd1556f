/**
 * Set queries of the reference: closestHit / anyHit / allHits (src/reference/raycast.ts) and
 * obbPairs / obbOneVsMany / obbCross / allPairs (src/reference/pairs.ts). Hand-built scenes check
 * the tie rule, the filters and the order of results; seeded random scenes check that the set
 * queries agree with the single-object queries and with each other.
 */
import { describe, expect, it } from 'vitest';
import { FACE_NEG_U, FACE_NONE, SAT_TOLERANCE } from '../../../src/constants.ts';
import { boxArrayFrom, boxAt, rayArrayFrom, rayAt } from '../../../src/core/canonical.ts';
import type { BoxArray, BoxInput, Ray, RayArray } from '../../../src/core/types.ts';
import { ValidationError } from '../../../src/errors.ts';
import { allPairs, checkPairs, obbCross, obbOneVsMany, obbPairs } from '../../../src/reference/pairs.ts';
import { obbObbSat } from '../../../src/reference/query/obbObbSat.ts';
import { rayObb } from '../../../src/reference/query/rayObb.ts';
import { allHits, anyHit, closestHit } from '../../../src/reference/raycast.ts';
import { mulberry32, randomBoxes, randomRays } from '../../../src/scenes/generate.ts';

const I3 = [[1, 0, 0], [0, 1, 0], [0, 0, 1]] as const;
const cube = (x: number, y = 0, z = 0, h = 1): BoxInput => ({ center: [x, y, z], halfExtents: [h, h, h], axes: I3 });
const alongX = (y = 0, z = 0, maxDistance?: number): Ray =>
  maxDistance === undefined
    ? { origin: [-10, y, z], direction: [1, 0, 0] }
    : { origin: [-10, y, z], direction: [1, 0, 0], maxDistance };

/** Runs `f`, expects a ValidationError and returns it. */
function caught(f: () => unknown): ValidationError {
  try {
    f();
  } catch (e) {
    expect(e).toBeInstanceOf(ValidationError);
    return e as ValidationError;
  }
  throw new Error('expected a ValidationError, nothing was thrown');
}

describe('closestHit', () => {
  it('two identical boxes tie: the smallest index wins, with equal t', () => {
    const boxes = boxArrayFrom([cube(0), cube(0)]);
    const rays = rayArrayFrom([alongX()]);
    const h = closestHit(boxes, rays);
    expect(h.box[0]).toBe(0);
    expect(h.t[0]).toBe(9);
    expect(h.face[0]).toBe(FACE_NEG_U);
    // The same with the tie in the middle of the list, behind a farther box.
    const h2 = closestHit(boxArrayFrom([cube(5), cube(0), cube(0), cube(-3, 5)]), rays);
    expect(h2.box[0]).toBe(1);
    expect(h2.t[0]).toBe(9);
    // Both tied boxes really are hit at the same t.
    const all = allHits(boxArrayFrom([cube(5), cube(0), cube(0)]), rays);
    expect(Array.from(all.box)).toEqual([1, 2, 0]);
    expect(all.t[0]).toBe(all.t[1]);
  });

  it('a nearer box with a larger index beats a farther box with a smaller one', () => {
    const h = closestHit(boxArrayFrom([cube(5), cube(-5)]), rayArrayFrom([alongX()]));
    expect(h.box[0]).toBe(1);
    expect(h.t[0]).toBe(4);
  });

  it('misses give box -1, t = Infinity, FACE_NONE; inside gives t = 0 and inside = 1', () => {
    const boxes = boxArrayFrom([cube(0)]);
    const rays = rayArrayFrom([alongX(5), { origin: [0, 0, 0], direction: [0, 1, 0] }]);
    const h = closestHit(boxes, rays);
    expect(h.box[0]).toBe(-1);
    expect(h.t[0]).toBe(Infinity);
    expect(h.face[0]).toBe(FACE_NONE);
    expect(h.box[1]).toBe(0);
    expect(h.t[1]).toBe(0);
    expect(h.inside[1]).toBe(1);
    expect(h.face[1]).toBe(FACE_NONE);
    // solid: false: the exit face instead.
    const open = closestHit(boxes, rays, { solid: false });
    expect(open.t[1]).toBe(1);
    expect(open.inside[1]).toBe(1);
  });

  it('respects maxDistance per ray (a hit at exactly maxDistance counts)', () => {
    const boxes = boxArrayFrom([cube(0), cube(20)]);
    const rays = rayArrayFrom([alongX(0, 0, 9), alongX(0, 0, 8.5), alongX(0, 0, Infinity)]);
    const h = closestHit(boxes, rays);
    expect(Array.from(h.box)).toEqual([0, -1, 0]);
  });
});

describe('masks and exclude', () => {
  // Three boxes in a row along the ray: 0 at x = 0, 1 at x = 5, 2 at x = 10.
  const boxes = boxArrayFrom([cube(0), cube(5), cube(10)]);
  const rays = rayArrayFrom([alongX(), alongX(), alongX()]);

  it('a box is tested only when (rayMask & boxMask) != 0', () => {
    const boxMasks = new Uint32Array([0b01, 0b10, 0b11]);
    const rayMasks = new Uint32Array([0b10, 0b100, 0b01]);
    const h = closestHit(boxes, rays, { boxMasks, rayMasks });
    expect(Array.from(h.box)).toEqual([1, -1, 0]);
    expect(Array.from(anyHit(boxes, rays, { boxMasks, rayMasks }))).toEqual([1, 0, 1]);
    const all = allHits(boxes, rays, { boxMasks, rayMasks });
    expect(Array.from(all.ray)).toEqual([0, 0, 2, 2]);
    expect(Array.from(all.box)).toEqual([1, 2, 0, 2]);
    // Only one side given: the other defaults to all bits.
    expect(Array.from(closestHit(boxes, rays, { boxMasks: new Uint32Array([0, 0, 4]) }).box)).toEqual([2, 2, 2]);
    expect(Array.from(closestHit(boxes, rays, { rayMasks: new Uint32Array([0, 1, 0xffffffff]) }).box)).toEqual([-1, 0, 0]);
    // The high bit counts like any other (unsigned AND).
    expect(closestHit(boxes, rayArrayFrom([alongX()]), {
      boxMasks: new Uint32Array([0x80000000, 0, 0]), rayMasks: new Uint32Array([0x80000000]),
    }).box[0]).toBe(0);
  });

  it('exclude skips one box per ray; -1 excludes nothing', () => {
    const exclude = new Int32Array([0, -1, 1]);
    expect(Array.from(closestHit(boxes, rays, { exclude }).box)).toEqual([1, 0, 0]);
    const all = allHits(boxes, rays, { exclude });
    expect(Array.from(all.box)).toEqual([1, 2, 0, 1, 2, 0, 2]);
    // Excluding the only box a ray hits leaves it without a hit.
    const one = boxArrayFrom([cube(0)]);
    const r = rayArrayFrom([alongX()]);
    expect(anyHit(one, r, { exclude: new Int32Array([0]) })[0]).toBe(0);
    expect(closestHit(one, r, { exclude: new Int32Array([0]) }).box[0]).toBe(-1);
  });
});

describe('random scene: set queries agree with rayObb (mulberry32 seed 4242)', () => {
  const rnd = mulberry32(4242);
  const boxes = randomBoxes(60, rnd, { extent: 8 });
  const rays = randomRays(400, boxes, rnd, { extent: 12 });
  const rayMasks = Uint32Array.from({ length: rays.count }, () => 1 + Math.floor(rnd() * 7));
  const boxMasks = Uint32Array.from({ length: boxes.count }, () => 1 + Math.floor(rnd() * 7));
  const exclude = Int32Array.from({ length: rays.count }, () => (rnd() < 0.3 ? Math.floor(rnd() * boxes.count) : -1));

  const reference = (filtered: boolean, solid: boolean): { r: number; b: number; t: number; face: number; inside: boolean }[] => {
    const out: { r: number; b: number; t: number; face: number; inside: boolean }[] = [];
    for (let r = 0; r < rays.count; r++) {
      for (let b = 0; b < boxes.count; b++) {
        if (filtered && (((rayMasks[r]! & boxMasks[b]!) >>> 0) === 0 || exclude[r] === b)) {
          continue;
        }
        const h = rayObb(rayAt(rays, r), boxAt(boxes, b), { solid });
        if (h.hit) {
          out.push({ r, b, t: h.t, face: h.face, inside: h.inside });
        }
      }
    }
    return out;
  };

  for (const filtered of [false, true]) {
    for (const solid of [true, false]) {
      const label = `${filtered ? 'with' : 'without'} masks/exclude, solid ${solid}`;
      const opts = filtered ? { solid, rayMasks, boxMasks, exclude } : { solid };

      it(`allHits is exactly the set of rayObb hits, sorted by ray, t, box (${label})`, () => {
        const all = allHits(boxes, rays, opts);
        const ref = reference(filtered, solid);
        expect(all.count).toBe(ref.length);
        expect(all.count).toBeGreaterThan(50);
        ref.sort((x, y) => x.r - y.r || x.t - y.t || x.b - y.b);
        for (let k = 0; k < all.count; k++) {
          const e = ref[k]!;
          expect([all.ray[k], all.box[k], all.t[k], all.face[k], all.inside[k]], `entry ${k}`)
            .toEqual([e.r, e.b, e.t, e.face, e.inside ? 1 : 0]);
          if (k > 0) {
            const pr = all.ray[k - 1]!, pt = all.t[k - 1]!, pb = all.box[k - 1]!;
            expect(pr < all.ray[k]! || (pr === all.ray[k] && (pt < all.t[k]! || (pt === all.t[k] && pb < all.box[k]!)))).toBe(true);
          }
        }
      });

      it(`closestHit is the first allHits entry of each ray and anyHit its existence (${label})`, () => {
        const all = allHits(boxes, rays, opts);
        const closest = closestHit(boxes, rays, opts);
        const any = anyHit(boxes, rays, opts);
        const first = new Map<number, number>();
        for (let k = all.count - 1; k >= 0; k--) {
          first.set(all.ray[k]!, k);
        }
        let hitRays = 0;
        for (let r = 0; r < rays.count; r++) {
          const k = first.get(r);
          if (k === undefined) {
            expect(closest.box[r]).toBe(-1);
            expect(any[r]).toBe(0);
            continue;
          }
          hitRays++;
          expect(closest.box[r], `ray ${r}`).toBe(all.box[k]);
          expect(closest.t[r]).toBe(all.t[k]);
          expect(closest.face[r]).toBe(all.face[k]);
          expect(closest.inside[r]).toBe(all.inside[k]);
          expect(any[r]).toBe(1);
        }
        expect(hitRays).toBeGreaterThan(50);
        expect(hitRays).toBeLessThan(rays.count);
      });
    }
  }

  it('the filters change the answer on this scene (the filtered tests are not vacuous)', () => {
    const a = closestHit(boxes, rays);
    const b = closestHit(boxes, rays, { rayMasks, boxMasks, exclude });
    let differ = 0;
    for (let r = 0; r < rays.count; r++) {
      if (a.box[r] !== b.box[r]) {
        differ++;
      }
    }
    expect(differ).toBeGreaterThan(10);
  });
});

describe('box-pair set queries agree with each other (mulberry32 seed 777)', () => {
  // Dense enough that many pairs overlap.
  const boxes = randomBoxes(80, mulberry32(777), { extent: 4, halfMin: 0.2, halfMax: 1.5 });
  const n = boxes.count;
  const everyPair = (): Uint32Array => {
    const p: number[] = [];
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        p.push(i, j);
      }
    }
    return Uint32Array.from(p);
  };

  for (const faceOnly of [false, true]) {
    const opts = { faceOnly };
    const label = faceOnly ? 'face axes only' : 'full SAT';

    it(`allPairs == obbPairs over all i < j, filtered by overlap (${label})`, () => {
      const ij: number[] = [];
      for (let i = 0; i < n; i++) {
        for (let j = i + 1; j < n; j++) {
          ij.push(i, j);
        }
      }
      const pairs = Uint32Array.from(ij);
      const r = obbPairs(boxes, pairs, opts);
      const expected: number[] = [];
      for (let k = 0; k < r.count; k++) {
        expect(r.overlap[k]).toBe(r.gap[k]! <= SAT_TOLERANCE ? 1 : 0);
        if (r.overlap[k]) {
          expected.push(pairs[2 * k]!, pairs[2 * k + 1]!);
        }
      }
      const list = allPairs(boxes, opts);
      expect(Array.from(list)).toEqual(expected);
      expect(list.length / 2).toBeGreaterThan(20);
      expect(list.length / 2).toBeLessThan((n * (n - 1)) / 2);
    });

    it(`obbCross(a, a) holds each unordered overlapping pair twice plus every (i, i) (${label})`, () => {
      const cross = obbCross(boxes, boxes, opts);
      const list = allPairs(boxes, opts);
      const set = new Set<string>();
      for (let k = 0; k < cross.length / 2; k++) {
        const i = cross[2 * k]!, j = cross[2 * k + 1]!;
        if (k > 0) {
          const pi = cross[2 * k - 2]!, pj = cross[2 * k - 1]!;
          expect(pi < i || (pi === i && pj < j)).toBe(true);
        }
        set.add(`${i},${j}`);
      }
      expect(cross.length / 2).toBe(2 * (list.length / 2) + n);
      for (let i = 0; i < n; i++) {
        expect(set.has(`${i},${i}`)).toBe(true);
      }
      for (let k = 0; k < list.length / 2; k++) {
        const i = list[2 * k]!, j = list[2 * k + 1]!;
        expect(set.has(`${i},${j}`) && set.has(`${j},${i}`)).toBe(true);
      }
    });

    it(`obbOneVsMany(box i) is row i of obbPairs over every (i, j), and matches obbObbSat (${label})`, () => {
      const all = obbPairs(boxes, everyPair(), opts);
      for (const i of [0, 7, 41, n - 1]) {
        const row = obbOneVsMany(boxAt(boxes, i), boxes, opts);
        expect(row.count).toBe(n);
        for (let j = 0; j < n; j++) {
          const k = i * n + j;
          expect([row.overlap[j], row.gap[j], row.axis[j]]).toEqual([all.overlap[k], all.gap[k], all.axis[k]]);
          const one = obbObbSat(boxAt(boxes, i), boxAt(boxes, j), opts);
          expect([one.overlap ? 1 : 0, one.gap, one.axis]).toEqual([row.overlap[j], row.gap[j], row.axis[j]]);
        }
      }
    });
  }

  it('faceOnly pair sets contain the full ones (face-only is conservative)', () => {
    const full = new Set<string>();
    const list = allPairs(boxes);
    for (let k = 0; k < list.length / 2; k++) {
      full.add(`${list[2 * k]},${list[2 * k + 1]}`);
    }
    const face = allPairs(boxes, { faceOnly: true });
    const faceSet = new Set<string>();
    for (let k = 0; k < face.length / 2; k++) {
      faceSet.add(`${face[2 * k]},${face[2 * k + 1]}`);
    }
    for (const p of full) {
      expect(faceSet.has(p), p).toBe(true);
    }
    expect(faceSet.size).toBeGreaterThanOrEqual(full.size);
  });

  it('a tolerance option moves pairs in and out of the list', () => {
    const tight = allPairs(boxes, { tolerance: -0.1 });
    const loose = allPairs(boxes, { tolerance: 0.5 });
    const def = allPairs(boxes);
    expect(tight.length).toBeLessThan(def.length);
    expect(loose.length).toBeGreaterThan(def.length);
  });
});

describe('checkPairs', () => {
  it('names the pair index and the field of the first bad pair', () => {
    const e = caught(() => checkPairs([[0, 1], [2, 0], [0, 5]], 3, 3));
    expect(e.kind).toBe('pair');
    expect(e.index).toBe(2);
    expect(e.field).toBe('j');
    expect(e.message).toContain('pair 2');
    expect(e.message).toContain('5');
    const ei = caught(() => checkPairs(new Uint32Array([0, 1, 1, 2, 9, 0]), 3, 3));
    expect(ei.index).toBe(2);
    expect(ei.field).toBe('i');
    expect(ei.message).toMatch(/^pair 2: i /);
    const neg = caught(() => checkPairs([[0, 1], [-1, 0]], 3, 3));
    expect(neg.index).toBe(1);
    const frac = caught(() => checkPairs([[0.5, 1]], 3, 3));
    expect(frac.index).toBe(0);
  });

  it('checks i against set A and j against set B separately', () => {
    expect(() => checkPairs([[4, 1]], 5, 2)).not.toThrow();
    expect(caught(() => checkPairs([[1, 4]], 5, 2)).field).toBe('j');
  });

  it('rejects an odd flat array, and obbPairs validates before computing', () => {
    const e = caught(() => checkPairs(new Uint32Array([0, 1, 2]), 3, 3));
    expect(e.field).toBe('pairs');
    const boxes: BoxArray = boxArrayFrom([cube(0), cube(1)]);
    const bad = caught(() => obbPairs(boxes, new Uint32Array([0, 1, 1, 2])));
    expect(bad.index).toBe(1);
    expect(bad.message).toContain('pair 1');
  });

  it('accepts an empty list and returns empty results', () => {
    const boxes = boxArrayFrom([cube(0)]);
    expect(obbPairs(boxes, new Uint32Array(0)).count).toBe(0);
    const none: RayArray = rayArrayFrom([]);
    expect(closestHit(boxes, none).count).toBe(0);
    expect(allPairs(boxes).length).toBe(0);
  });
});
