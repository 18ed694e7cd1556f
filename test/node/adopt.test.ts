/**
 * `createBoxSet(boxes, { adopt: true })` (issue #19, the host's part of a build): the set takes
 * the caller's Float64Array as its host copy, validated and canonicalised in place, instead of
 * copying it. Observed through the public API: the array the set holds is the one given, its
 * contents are what a copy would have held, queries answer exactly as over a copied set, and a
 * rejected array is left untouched.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BOX_F64, ValidationError, validateBoxArray, type BoxArray, type ObbGpu } from '../../src/index.ts';
import { mulberry32, randomBoxes, randomRays } from '../../src/judge/index.ts';
import { openNodeGpu } from './shared.ts';

let gpu: ObbGpu;
beforeAll(async () => {
  gpu = await openNodeGpu();
});
afterAll(() => {
  gpu?.destroy();
});

/** n valid boxes that are not canonical: axes perturbed by ~1e-7, half of them left-handed (w = −u × v). */
function rawBoxes(n: number, seed: number): BoxArray {
  const rng = mulberry32(seed);
  const boxes = randomBoxes(n, rng, { extent: 200 });
  const data = boxes.data.slice();
  for (let i = 0; i < n; i++) {
    const o = i * BOX_F64.STRIDE;
    for (let k = BOX_F64.U; k < BOX_F64.STRIDE; k++) {
      data[o + k] = data[o + k]! + (rng() - 0.5) * 2e-7;
    }
    if (i % 2 === 1) {
      for (let k = 0; k < 3; k++) {
        data[o + BOX_F64.W + k] = -data[o + BOX_F64.W + k]!;
      }
    }
  }
  return { count: n, data };
}

describe('createBoxSet with adopt: the caller\'s array, canonicalised in place', () => {
  it('holds the given array, canonical as a copy would be, and answers as a copied set does (brute force and tree)', async () => {
    const raw = rawBoxes(3000, 19);
    const before = raw.data.slice();
    const copied = gpu.createBoxSet(raw);
    // Without adopt: a copy, the caller's array untouched.
    expect(copied.boxes.data).not.toBe(raw.data);
    expect(raw.data).toEqual(before);
    const adopted = gpu.createBoxSet(raw, { adopt: true });
    try {
      expect(adopted.boxes.data).toBe(raw.data);
      const canonical = validateBoxArray(before);
      let differing = 0;
      for (let k = 0; k < raw.data.length; k++) {
        differing += Object.is(raw.data[k], canonical.data[k]) ? 0 : 1;
      }
      expect(differing).toBe(0);
      // The input really was not canonical: canonicalising changed it.
      expect(raw.data).not.toEqual(before);
      expect(adopted.origin).toEqual(copied.origin);
      const rays = randomRays(2000, adopted.boxes, mulberry32(20), { extent: 250 });
      for (const accel of ['brute', 'bvh'] as const) {
        const [a, c] = await Promise.all([gpu.closestHit(adopted, rays, { accel }), gpu.closestHit(copied, rays, { accel })]);
        expect(Array.from(a.box)).toEqual(Array.from(c.box));
        expect(Array.from(a.t)).toEqual(Array.from(c.t));
        expect(a.box.some((b) => b >= 0)).toBe(true);
      }
    } finally {
      adopted.destroy();
      copied.destroy();
    }
  });

  it('a rejected array is left as it was, and the error names the box', async () => {
    const raw = rawBoxes(500, 21);
    const o = 317 * BOX_F64.STRIDE;
    raw.data[o + BOX_F64.HALF + 1] = -1;
    const before = raw.data.slice();
    expect(() => gpu.createBoxSet(raw, { adopt: true })).toThrow(ValidationError);
    expect(() => gpu.createBoxSet(raw, { adopt: true })).toThrow(/box 317/);
    expect(raw.data).toEqual(before);
    // Valid boxes with masks of the wrong length: refused before the boxes are canonicalised.
    const valid = rawBoxes(200, 28);
    const untouched = valid.data.slice();
    expect(() => gpu.createBoxSet(valid, { adopt: true, masks: new Uint32Array(3) })).toThrow(/masks/);
    const set = gpu.createBoxSet(rawBoxes(10, 29));
    try {
      await expect(set.set(valid, new Uint32Array(3), { adopt: true })).rejects.toThrow(/masks/);
    } finally {
      set.destroy();
    }
    expect(valid.data).toEqual(untouched);
  });

  it('needs a BoxArray of float64: object boxes, float32 data and a non-boolean adopt are refused by name', () => {
    const boxes = randomBoxes(4, mulberry32(22));
    const objects = [{ center: [0, 0, 0] as [number, number, number], halfExtents: [1, 1, 1] as [number, number, number], rotation: [0, 0, 0, 1] as [number, number, number, number] }];
    expect(() => gpu.createBoxSet(objects, { adopt: true })).toThrow(/adopt.*Float64Array.*array of box objects/);
    expect(() => gpu.createBoxSet({ count: 4, data: Float32Array.from(boxes.data) } as unknown as BoxArray, { adopt: true })).toThrow(/Float64Array/);
    expect(() => gpu.createBoxSet(boxes, { adopt: 1 as unknown as boolean })).toThrow(/adopt.*true or false/);
  });

  it('set() adopts too; a set\'s host copy (its own, another set\'s, one replaced since) is never adopted, only copied', async () => {
    const first = rawBoxes(800, 23);
    const set = gpu.createBoxSet(first, { adopt: true });
    const other = gpu.createBoxSet(rawBoxes(300, 24));
    try {
      const next = rawBoxes(1200, 25);
      const expected = validateBoxArray(next.data.slice());
      await set.set(next, undefined, { adopt: true });
      expect(set.boxes.data).toBe(next.data);
      expect(Array.from(next.data)).toEqual(Array.from(expected.data));
      // On the same floating origin (set() keeps the first boxes' one), so the float32 answers are the same.
      const copy = gpu.createBoxSet(expected, { origin: set.origin });
      try {
        const rays = randomRays(1000, expected, mulberry32(26), { extent: 250 });
        const [a, c] = await Promise.all([gpu.closestHit(set, rays, { accel: 'bvh' }), gpu.closestHit(copy, rays, { accel: 'bvh' })]);
        expect(Array.from(a.box)).toEqual(Array.from(c.box));
        expect(Array.from(a.t)).toEqual(Array.from(c.t));
      } finally {
        copy.destroy();
      }
      // Held arrays: the set's own, another set's, and the one this set replaced.
      for (const data of [set.boxes.data, other.boxes.data, first.data]) {
        const held = { count: data.length / BOX_F64.STRIDE, data };
        const before = data.slice();
        expect(() => gpu.createBoxSet(held, { adopt: true })).toThrow(/adopt.*host copy/);
        await expect(set.set(held, undefined, { adopt: true })).rejects.toThrow(/adopt.*host copy/);
        expect(data).toEqual(before);
        // Copied, it is fine.
        const copied = gpu.createBoxSet(held);
        expect(copied.boxes.data).not.toBe(data);
        copied.destroy();
      }
      // After update() the host is a new array: held as well.
      await set.update(0, rawBoxes(10, 27));
      expect(() => gpu.createBoxSet(set.boxes, { adopt: true })).toThrow(/adopt.*host copy/);
    } finally {
      set.destroy();
      other.destroy();
    }
  });
});
