import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  boxArrayFrom,
  boxAt,
  makeBoxArray,
  makeRayArray,
  rayArrayFrom,
  rayAt,
  setBox,
  setRay,
  toObb,
  toRay,
  validateBoxArray,
  validateRayArray,
} from '../../../src/core/canonical.ts';
import { BOX_F64, RAY_F64 } from '../../../src/core/types.ts';
import type { BoxInput, Ray, Vec3 } from '../../../src/core/types.ts';
import { ValidationError } from '../../../src/errors.ts';
import { cornerSetDistance, finite, frameDefects, maxDiff, obbArb, quatArb, vec3Arb } from './fixtures.ts';

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

const I3 = [[1, 0, 0], [0, 1, 0], [0, 0, 1]] as const;
const box = (over: Record<string, unknown> = {}): BoxInput =>
  ({ center: [1, 2, 3], halfExtents: [1, 2, 3], axes: I3, ...over }) as unknown as BoxInput;

describe('toObb canonicalises', () => {
  it('re-orthonormalises slightly perturbed axes to ~1e-15 and makes them right-handed (seed 11)', () => {
    fc.assert(
      fc.property(obbArb, vec3Arb(-3e-5, 3e-5), vec3Arb(-3e-5, 3e-5), fc.boolean(), (b, du, dv, flip) => {
        const [u, v, w] = b.axes;
        const axes: [Vec3, Vec3, Vec3] = [
          [u[0] + du[0], u[1] + du[1], u[2] + du[2]],
          [v[0] + dv[0], v[1] + dv[1], v[2] + dv[2]],
          flip ? [-w[0], -w[1], -w[2]] : w,
        ];
        const c = toObb({ center: b.center, halfExtents: b.halfExtents, axes });
        const d = frameDefects(c);
        expect(d.unit).toBeLessThan(1e-15);
        expect(d.ortho).toBeLessThan(1e-15);
        expect(d.handed).toBe(0);
        // Gram–Schmidt moves u only by its normalisation, so it stays within the perturbation.
        expect(maxDiff(c.axes[0], u)).toBeLessThan(1e-4);
      }),
      { seed: 11, numRuns: 300 },
    );
  });

  it('flips w of a left-handed frame, which is the same box', () => {
    const input = box({ axes: [[0, 1, 0], [1, 0, 0], [0, 0, 1]] }); // u × v = −z
    const c = toObb(input);
    expect(c.axes).toEqual([[0, 1, 0], [1, 0, 0], [0, 0, -1]]);
    expect(c.halfExtents).toEqual([1, 2, 3]);
    const asIs = { center: [1, 2, 3], halfExtents: [1, 2, 3], axes: [[0, 1, 0], [1, 0, 0], [0, 0, 1]] } as const;
    expect(cornerSetDistance(c, asIs)).toBe(0);
  });

  it('moves canonical boxes by at most a few ulps (seed 12)', () => {
    fc.assert(
      fc.property(obbArb, (b) => {
        const c = toObb(b);
        expect(c.center).toEqual(b.center);
        expect(c.halfExtents).toEqual(b.halfExtents);
        expect(maxDiff(c.axes.flat(), b.axes.flat())).toBeLessThan(5e-16);
      }),
      { seed: 12, numRuns: 200 },
    );
  });

  it('normalises the quaternion: any positive multiple gives the same box (seed 13)', () => {
    fc.assert(
      fc.property(quatArb, fc.constantFrom(1e-250, 1e-3, 7, 1e250), (q, k) => {
        const a = toObb({ center: [0, 0, 0], halfExtents: [1, 2, 3], rotation: q });
        const b = toObb({ center: [0, 0, 0], halfExtents: [1, 2, 3], rotation: [q[0] * k, q[1] * k, q[2] * k, q[3] * k] });
        expect(maxDiff(a.axes.flat(), b.axes.flat())).toBeLessThan(1e-15);
        expect(frameDefects(b).ortho).toBeLessThan(1e-15);
      }),
      { seed: 13, numRuns: 200 },
    );
  });

  it('maps q and −q to the same axes', () => {
    const a = toObb(box({ axes: undefined, rotation: [0.1, 0.2, 0.3, 0.9] }));
    const b = toObb(box({ axes: undefined, rotation: [-0.1, -0.2, -0.3, -0.9] }));
    expect(maxDiff(a.axes.flat(), b.axes.flat())).toBeLessThan(3e-16);
  });

  it('accepts zero half extents and turns −0 into +0', () => {
    const c = toObb(box({ halfExtents: [0, -0, 2] }));
    expect(Object.is(c.halfExtents[1], 0)).toBe(true);
  });

  it('accepts axes just inside the tolerance, rejects just outside', () => {
    expect(() => toObb(box({ axes: [[1 + 0.9e-4, 0, 0], [0, 1, 0], [0, 0, 1]] }))).not.toThrow();
    expect(() => toObb(box({ axes: [[1 + 1.1e-4, 0, 0], [0, 1, 0], [0, 0, 1]] }))).toThrow(/axes\[0\] is not unit length/);
    const s = (e: number): number => Math.sqrt(1 - e * e);
    expect(() => toObb(box({ axes: [[1, 0, 0], [0.9e-4, s(0.9e-4), 0], [0, 0, 1]] }))).not.toThrow();
    expect(() => toObb(box({ axes: [[1, 0, 0], [1.1e-4, s(1.1e-4), 0], [0, 0, 1]] }))).toThrow(/\|u·v\|/);
  });

  it('accepts a Float32Array centre (typed arrays count as arrays)', () => {
    expect(toObb(box({ center: new Float32Array([1, 2, 3]) })).center).toEqual([1, 2, 3]);
  });
});

describe('toObb rejects, naming index and field', () => {
  const cases: { name: string; input: unknown; field: string; message: string }[] = [
    { name: 'NaN centre', input: box({ center: [0, NaN, 0] }), field: 'center[1]', message: 'box 7: center[1] is not finite (NaN)' },
    { name: 'infinite half extent', input: box({ halfExtents: [1, 1, Infinity] }), field: 'halfExtents[2]', message: 'box 7: halfExtents[2] is not finite (Infinity)' },
    { name: 'negative half extent', input: box({ halfExtents: [1, 1, -0.5] }), field: 'halfExtents[2]', message: 'box 7: halfExtents[2] is negative (-0.5)' },
    { name: 'non-unit axis', input: box({ axes: [[1, 0, 0], [0, 1.2, 0], [0, 0, 1]] }), field: 'axes[1]', message: 'box 7: axes[1] is not unit length (|v| = 1.2, tolerance 0.0001)' },
    { name: 'u·v too large', input: box({ axes: [[1, 0, 0], [0.013, Math.sqrt(1 - 0.013 ** 2), 0], [0, 0, 1]] }), field: 'axes', message: 'box 7: axes are not orthonormal (|u·v| = 0.013, tolerance 0.0001)' },
    { name: 'w not orthogonal', input: box({ axes: [[1, 0, 0], [0, 1, 0], [0, 0.6, 0.8]] }), field: 'axes', message: 'box 7: axes are not orthonormal (|v·w| = 0.6' },
    { name: 'axis NaN', input: box({ axes: [[1, 0, 0], [0, 1, 0], [0, 0, NaN]] }), field: 'axes[2][2]', message: 'box 7: axes[2][2] is not finite (NaN)' },
    { name: 'zero quaternion', input: box({ axes: undefined, rotation: [0, 0, 0, 0] }), field: 'rotation', message: 'box 7: rotation is the zero quaternion' },
    { name: 'infinite quaternion', input: box({ axes: undefined, rotation: [0, 0, 0, -Infinity] }), field: 'rotation[3]', message: 'box 7: rotation[3] is not finite (-Infinity)' },
    { name: 'quaternion of 3', input: box({ axes: undefined, rotation: [0, 0, 1] }), field: 'rotation', message: 'box 7: rotation must be an array of 4 numbers (got an array of length 3)' },
    { name: 'both forms', input: box({ rotation: [0, 0, 0, 1] }), field: 'axes', message: 'box 7: axes and rotation are both given' },
    { name: 'neither form', input: box({ axes: undefined }), field: 'axes', message: 'box 7: axes are missing' },
    { name: 'centre of length 2', input: box({ center: [1, 2] }), field: 'center', message: 'box 7: center must be an array of 3 numbers (got an array of length 2)' },
    { name: 'string coordinate', input: box({ center: ['1', 2, 3] }), field: 'center[0]', message: 'box 7: center[0] is not a number (got string "1")' },
    { name: 'centre as string', input: box({ center: '1,2,3' }), field: 'center', message: 'box 7: center must be an array of 3 numbers (got string "1,2,3")' },
    { name: 'missing half extents', input: box({ halfExtents: undefined }), field: 'halfExtents', message: 'box 7: halfExtents is missing' },
    { name: 'two axes', input: box({ axes: [[1, 0, 0], [0, 1, 0]] }), field: 'axes', message: 'box 7: axes must be an array of 3 vectors [u, v, w] (got an array of length 2)' },
    { name: 'axis of length 4', input: box({ axes: [[1, 0, 0, 0], [0, 1, 0], [0, 0, 1]] }), field: 'axes[0]', message: 'box 7: axes[0] must be an array of 3 numbers' },
    { name: 'null box', input: null, field: 'value', message: 'box 7: value is not an object (got null)' },
    { name: 'array as box', input: [1, 2, 3], field: 'value', message: 'box 7: value is not an object (got an array of length 3)' },
  ];
  it.each(cases)('$name', ({ input, field, message }) => {
    const e = caught(() => toObb(input as BoxInput, 7));
    expect(e.kind).toBe('box');
    expect(e.index).toBe(7);
    expect(e.field).toBe(field);
    expect(e.message.startsWith(message)).toBe(true);
  });

  it('reads untrusted JSON', () => {
    const scene = JSON.parse('[{"center":[0,0,0],"halfExtents":[1,1,1],"axes":[[1,0,0],[0,1,0],[0,0,1]]},{"center":[0,0],"halfExtents":[1,1,1],"rotation":[0,0,0,1]}]') as BoxInput[];
    expect(toObb(scene[0] as BoxInput, 0).center).toEqual([0, 0, 0]);
    expect(caught(() => boxArrayFrom(scene)).message).toMatch(/^box 1: center must be an array of 3 numbers/);
  });

  it('omits the index when none is given', () => {
    expect(caught(() => toObb(box({ halfExtents: [-1, 1, 1] }))).message).toMatch(/^box: halfExtents\[0\] is negative/);
  });
});

describe('toRay', () => {
  it('normalises the direction and defaults maxDistance to +∞', () => {
    expect(toRay({ origin: [1, 2, 3], direction: [0, 0, -4] })).toEqual({ origin: [1, 2, 3], direction: [0, 0, -1], maxDistance: Infinity });
    expect(toRay({ origin: [0, 0, 0], direction: [3, 4, 0], maxDistance: 5 }).direction).toEqual([0.6, 0.8, 0]);
  });

  it('normalises any finite non-zero direction, however tiny or huge', () => {
    expect(toRay({ origin: [0, 0, 0], direction: [1e-300, 0, 0] }).direction).toEqual([1, 0, 0]);
    const d = toRay({ origin: [0, 0, 0], direction: [5e-324, 5e-324, 0] }).direction;
    expect(maxDiff(d, [Math.SQRT1_2, Math.SQRT1_2, 0])).toBeLessThan(3e-16);
    const h = toRay({ origin: [0, 0, 0], direction: [1e308, -1e308, 1e308] }).direction;
    expect(maxDiff(h, [1, -1, 1].map((x) => x / Math.sqrt(3)))).toBeLessThan(3e-16);
  });

  it('gives unit directions (seed 21)', () => {
    fc.assert(
      fc.property(vec3Arb(-1e6, 1e6).filter((d) => d.some((x) => x !== 0)), (d) => {
        const r = toRay({ origin: [0, 0, 0], direction: d });
        expect(Math.abs(Math.hypot(...r.direction) - 1)).toBeLessThan(3e-16);
      }),
      { seed: 21, numRuns: 300 },
    );
  });

  it('reads a JSON null maxDistance (what JSON.stringify makes of Infinity) as +∞', () => {
    const r = JSON.parse(JSON.stringify({ origin: [0, 0, 0], direction: [1, 0, 0], maxDistance: Infinity })) as Ray;
    expect(toRay(r).maxDistance).toBe(Infinity);
  });

  it('accepts maxDistance 0 and +∞', () => {
    expect(toRay({ origin: [0, 0, 0], direction: [1, 0, 0], maxDistance: 0 }).maxDistance).toBe(0);
    expect(toRay({ origin: [0, 0, 0], direction: [1, 0, 0], maxDistance: Infinity }).maxDistance).toBe(Infinity);
  });

  const cases: { name: string; input: unknown; field: string; message: string }[] = [
    { name: 'zero direction', input: { origin: [0, 0, 0], direction: [0, -0, 0] }, field: 'direction', message: 'ray 4: direction is the zero vector' },
    { name: 'NaN origin', input: { origin: [0, 0, NaN], direction: [1, 0, 0] }, field: 'origin[2]', message: 'ray 4: origin[2] is not finite (NaN)' },
    { name: 'infinite direction', input: { origin: [0, 0, 0], direction: [Infinity, 0, 0] }, field: 'direction[0]', message: 'ray 4: direction[0] is not finite (Infinity)' },
    { name: 'negative maxDistance', input: { origin: [0, 0, 0], direction: [1, 0, 0], maxDistance: -1 }, field: 'maxDistance', message: 'ray 4: maxDistance is negative (-1)' },
    { name: 'NaN maxDistance', input: { origin: [0, 0, 0], direction: [1, 0, 0], maxDistance: NaN }, field: 'maxDistance', message: 'ray 4: maxDistance is NaN' },
    { name: 'string maxDistance', input: { origin: [0, 0, 0], direction: [1, 0, 0], maxDistance: '5' }, field: 'maxDistance', message: 'ray 4: maxDistance is not a number (got string "5")' },
    { name: 'missing direction', input: { origin: [0, 0, 0] }, field: 'direction', message: 'ray 4: direction is missing' },
    { name: 'not an object', input: 'ray', field: 'value', message: 'ray 4: value is not an object (got string "ray")' },
  ];
  it.each(cases)('rejects $name', ({ input, field, message }) => {
    const e = caught(() => toRay(input as Ray, 4));
    expect(e.kind).toBe('ray');
    expect(e.index).toBe(4);
    expect(e.field).toBe(field);
    expect(e.message.startsWith(message)).toBe(true);
  });
});

/** Raw BOX_F64 records of random boxes with perturbed, sometimes left-handed axes. */
const rawBoxesArb = fc
  .array(fc.tuple(obbArb, vec3Arb(-2e-5, 2e-5), fc.boolean()), { minLength: 1, maxLength: 40 })
  .map((items) => {
    const data = new Float64Array(items.length * BOX_F64.STRIDE);
    items.forEach(([b, du, flip], i) => {
      const w = b.axes[2];
      const rec = [
        ...b.center, ...b.halfExtents,
        b.axes[0][0] + du[0], b.axes[0][1] + du[1], b.axes[0][2] + du[2],
        ...b.axes[1],
        ...(flip ? [-w[0], -w[1], -w[2]] : w),
      ];
      data.set(rec, i * BOX_F64.STRIDE);
    });
    return data;
  });

function recordToInput(data: ArrayLike<number>, i: number): BoxInput {
  const o = i * BOX_F64.STRIDE;
  const v = (k: number): Vec3 => [data[o + k] as number, data[o + k + 1] as number, data[o + k + 2] as number];
  return { center: v(BOX_F64.CENTER), halfExtents: v(BOX_F64.HALF), axes: [v(BOX_F64.U), v(BOX_F64.V), v(BOX_F64.W)] };
}

describe('validateBoxArray', () => {
  it('equals the per-item result bit for bit and leaves its input alone (seed 31)', () => {
    fc.assert(
      fc.property(rawBoxesArb, (data) => {
        const copy = data.slice();
        const arr = validateBoxArray(data);
        expect(data).toEqual(copy);
        expect(arr.count).toBe(data.length / BOX_F64.STRIDE);
        const perItem = boxArrayFrom(Array.from({ length: arr.count }, (_, i) => recordToInput(data, i)));
        expect(arr.data).toEqual(perItem.data);
        for (let i = 0; i < arr.count; i++) {
          expect(boxAt(arr, i)).toEqual(toObb(recordToInput(data, i), i));
        }
      }),
      { seed: 31, numRuns: 100 },
    );
  });

  it('names the first bad index (seed 32)', () => {
    // Each breaks one rule of record o and no earlier one.
    const bad = [
      { name: 'NaN', spoil: (d: Float64Array, o: number) => { d[o + 1] = NaN; }, message: 'center[1] is not finite (NaN)' },
      { name: 'negative', spoil: (d: Float64Array, o: number) => { d[o + 4] = -1; }, message: 'halfExtents[1] is negative (-1)' },
      { name: 'long u', spoil: (d: Float64Array, o: number) => { for (let c = 0; c < 3; c++) { d[o + 6 + c] = 1.5 * (d[o + 6 + c] as number); } }, message: 'axes[0] is not unit length (|u| = 1.5' },
      { name: 'w = v', spoil: (d: Float64Array, o: number) => { d.copyWithin(o + 12, o + 9, o + 12); }, message: 'axes are not orthonormal (|v·w| = 1' },
      { name: 'infinite w', spoil: (d: Float64Array, o: number) => { d[o + 14] = Infinity; }, message: 'axes[2][2] is not finite (Infinity)' },
    ] as const;
    fc.assert(
      fc.property(rawBoxesArb, fc.nat(), fc.constantFrom(...bad), (data, pick, b) => {
        const n = data.length / BOX_F64.STRIDE;
        const i = pick % n;
        b.spoil(data, i * BOX_F64.STRIDE);
        const e = caught(() => validateBoxArray(data));
        expect(e.index).toBe(i);
        expect(e.kind).toBe('box');
        expect(e.message).toContain(`box ${i}: ${b.message}`);
        // The object path says exactly the same.
        expect(caught(() => toObb(recordToInput(data, i), i)).message).toBe(e.message);
      }),
      { seed: 32, numRuns: 100 },
    );
  });

  it('reports box 1532 by index in a larger array', () => {
    const arr = makeBoxArray(2000);
    const data = arr.data.slice();
    data[1532 * BOX_F64.STRIDE + BOX_F64.V] = 0.013; // v gains a u component
    data[1532 * BOX_F64.STRIDE + BOX_F64.V + 1] = Math.sqrt(1 - 0.013 ** 2);
    expect(caught(() => validateBoxArray(data)).message).toBe('box 1532: axes are not orthonormal (|u·v| = 0.013, tolerance 0.0001)');
  });

  it('writes into options.out (in place too) and leaves it untouched on error (seed 33)', () => {
    fc.assert(
      fc.property(rawBoxesArb, (data) => {
        const n = data.length / BOX_F64.STRIDE;
        const expected = validateBoxArray(data).data;
        const out = new Float64Array(data.length);
        expect(validateBoxArray(data, n, { out }).data).toBe(out);
        expect(out).toEqual(expected);
        const inPlace = data.slice();
        expect(validateBoxArray(inPlace, n, { out: inPlace }).data).toEqual(expected);
        // A bad last box: nothing is written, not even the good boxes before it.
        const bad = data.slice();
        bad[bad.length - 1] = NaN;
        const before = bad.slice();
        expect(() => validateBoxArray(bad, n, { out: bad })).toThrow(ValidationError);
        expect(bad).toEqual(before);
      }),
      { seed: 33, numRuns: 50 },
    );
    expect(caught(() => validateBoxArray(makeBoxArray(2).data, 2, { out: new Float64Array(29) })).field).toBe('out');
  });

  it('accepts Float32Array input', () => {
    const raw = new Float32Array([1, 2, 3, 1, 1, 1, Math.SQRT1_2, Math.SQRT1_2, 0, -Math.SQRT1_2, Math.SQRT1_2, 0, 0, 0, 1]);
    const arr = validateBoxArray(raw);
    expect(arr.data).toBeInstanceOf(Float64Array);
    expect(frameDefects(boxAt(arr, 0)).ortho).toBeLessThan(1e-15);
  });

  it('honours a custom axisTolerance and validates it', () => {
    const data = makeBoxArray(1).data.slice();
    data[BOX_F64.U] = 1.01;
    expect(() => validateBoxArray(data)).toThrow(ValidationError);
    expect(validateBoxArray(data, 1, { axisTolerance: 0.02 }).data[BOX_F64.U]).toBe(1);
    expect(caught(() => validateBoxArray(data, 1, { axisTolerance: NaN })).field).toBe('axisTolerance');
  });

  it('checks the length against the stride and the count', () => {
    const e = caught(() => validateBoxArray(new Float64Array(16)));
    expect(e.kind).toBe('argument');
    expect(e.message).toMatch(/length 16 is not a multiple of the BOX_F64 stride 15/);
    expect(caught(() => validateBoxArray(makeBoxArray(2).data, 3)).message).toMatch(/does not match count 3/);
    expect(caught(() => validateBoxArray(makeBoxArray(2).data, -1)).field).toBe('count');
    expect(caught(() => validateBoxArray([1, 2, 3] as unknown as Float64Array)).field).toBe('data');
    expect(validateBoxArray(new Float64Array(0)).count).toBe(0);
  });
});

describe('validateRayArray', () => {
  it('normalises directions and equals the per-item result (seed 41)', () => {
    const rayArb = fc.record({
      origin: vec3Arb(-1e3, 1e3),
      direction: vec3Arb(-5, 5).filter((d) => d.some((x) => x !== 0)),
      maxDistance: fc.oneof(finite(0, 1e4), fc.constant(Infinity)),
    });
    fc.assert(
      fc.property(fc.array(rayArb, { minLength: 1, maxLength: 30 }), (rays) => {
        const data = new Float64Array(rays.flatMap((r) => [...r.origin, ...r.direction, r.maxDistance]));
        const arr = validateRayArray(data);
        expect(arr.data).toEqual(rayArrayFrom(rays).data);
        rays.forEach((r, i) => expect(rayAt(arr, i)).toEqual(toRay(r, i)));
      }),
      { seed: 41, numRuns: 100 },
    );
  });

  it('writes into options.out and leaves it untouched on error', () => {
    const data = new Float64Array([1, 2, 3, 0, 0, 2, 5, 0, 0, 0, 3, 0, 0, Infinity]);
    const out = new Float64Array(14).fill(7);
    validateRayArray(data, 2, { out });
    expect(Array.from(out)).toEqual([1, 2, 3, 0, 0, 1, 5, 0, 0, 0, 1, 0, 0, Infinity]);
    const bad = data.slice();
    bad[13] = -1;
    out.fill(7);
    expect(caught(() => validateRayArray(bad, 2, { out })).index).toBe(1);
    expect(out.every((x) => x === 7)).toBe(true);
    expect(caught(() => validateRayArray(data, 2, { out: new Float64Array(7) })).field).toBe('out');
  });

  it('names the bad ray', () => {
    const data = makeRayArray(10).data.slice();
    data[6 * RAY_F64.STRIDE + RAY_F64.DIR + 2] = 0;
    expect(caught(() => validateRayArray(data)).message).toBe('ray 6: direction is the zero vector; a ray needs a non-zero direction');
    data[6 * RAY_F64.STRIDE + RAY_F64.DIR] = 1;
    data[2 * RAY_F64.STRIDE + RAY_F64.MAX] = NaN;
    expect(caught(() => validateRayArray(data)).message).toMatch(/^ray 2: maxDistance is NaN/);
    expect(caught(() => validateRayArray(new Float32Array(8))).kind).toBe('argument');
  });
});

describe('packed arrays', () => {
  it('makeBoxArray / makeRayArray start canonical', () => {
    const boxes = makeBoxArray(3);
    expect(validateBoxArray(boxes.data).data).toEqual(boxes.data);
    const rays = makeRayArray(3);
    expect(validateRayArray(rays.data).data).toEqual(rays.data);
    expect(rayAt(rays, 2)).toEqual({ origin: [0, 0, 0], direction: [0, 0, 1], maxDistance: Infinity });
  });

  it('setBox / boxAt and setRay / rayAt round-trip (seed 51)', () => {
    fc.assert(
      fc.property(obbArb, (b) => {
        const arr = makeBoxArray(4);
        setBox(arr, 2, b);
        expect(boxAt(arr, 2)).toEqual(b);
        expect(boxAt(arr, 1)).toEqual({ center: [0, 0, 0], halfExtents: [0, 0, 0], axes: I3 });
      }),
      { seed: 51, numRuns: 50 },
    );
    const rays = makeRayArray(2);
    const r = toRay({ origin: [1, 2, 3], direction: [0, 2, 0], maxDistance: 9 });
    setRay(rays, 1, r);
    expect(rayAt(rays, 1)).toEqual(r);
  });

  it('rejects out-of-range indices and counts', () => {
    const arr = makeBoxArray(2);
    expect(caught(() => boxAt(arr, 2)).message).toBe('argument: index 2 is out of range for 2 boxes');
    expect(caught(() => rayAt(makeRayArray(1), -1)).kind).toBe('argument');
    expect(caught(() => makeBoxArray(1.5)).field).toBe('count');
  });

  it('boxArrayFrom names the bad box and accepts both forms', () => {
    const ok = boxArrayFrom([box(), box({ axes: undefined, rotation: [0, 0, 1, 1] })]);
    expect(ok.count).toBe(2);
    expect(maxDiff(boxAt(ok, 1).axes[0], [0, 1, 0])).toBeLessThan(3e-16);
    const e = caught(() => boxArrayFrom([box(), box(), box({ halfExtents: [1, -2, 1] })]));
    expect(e.index).toBe(2);
    expect(caught(() => boxArrayFrom('x' as unknown as BoxInput[])).kind).toBe('argument');
  });
});
