/**
 * The intensity of LiDAR returns on the CPU: the float64 twin (hitIncidence, the reference's
 * intensities) on hand-checked cases, and the judge (compareLidarIntensity) held to both sides:
 * the reference's own intensities rounded to float32 agree, and four classic bugs (a 2% gain,
 * the reflectivity ignored, the wrong face, an intensity where there is no return) are each
 * caught with the reason that names them.
 */
import { describe, expect, it } from 'vitest';
import { boxArrayFrom, linearElevations, type LidarDescription, type LidarPose } from '../../src/index.ts';
import { mulberry32, randomBoxes } from '../../src/judge/index.ts';
import { compareLidarIntensity } from '../../src/compare/lidar.ts';
import { lidarIntensity } from '../../src/core/lidar.ts';
import { hitAxes, hitIncidence, lidarRays, lidarSweepReference } from '../../src/reference/lidar.ts';

describe('hitIncidence', () => {
  const box = boxArrayFrom([{ center: [10, 0, 0], halfExtents: [1, 2, 3], rotation: [0, 0, 0, 1] }]);

  it('head-on: the face of the axis the point is out along, cosine 1', () => {
    expect(hitIncidence(box.data, 0, [9, 0.5, 0.5], [1, 0, 0])).toBe(1);
  });

  it('at 60° from the normal: cosine 1/2; the ratios say which face', () => {
    const d = [Math.cos(Math.PI / 3), Math.sin(Math.PI / 3), 0];
    expect(hitIncidence(box.data, 0, [9, 0, 0], d)).toBeCloseTo(0.5, 15);
    const out = { ratio: [0, 0, 0], cos: [0, 0, 0] };
    hitAxes(box.data, 0, [9, 1, 1.5], d, out);
    expect(out.ratio).toEqual([1, 0.5, 0.5]);
  });

  it('on an edge the first axis of the tie wins, as the GPU\'s loop does', () => {
    expect(hitIncidence(box.data, 0, [9, 2, 0], [0, -1, 0])).toBe(0);
    expect(hitIncidence(box.data, 0, [9, 2, 0], [-1, 0, 0])).toBe(1);
  });
});

describe('compareLidarIntensity holds both sides', () => {
  const rnd = mulberry32(41);
  const boxes = randomBoxes(250, rnd, { extent: 35, offset: [500, -200, 0], halfMin: 0.3, halfMax: 2.5 });
  const reflectivity = Float32Array.from({ length: boxes.count }, () => 0.05 + 0.9 * rnd());
  const desc: LidarDescription = { elevations: linearElevations(12, -20, 10), azimuthSteps: 400, maxRange: 90, intensity: { referenceRange: 8, atmosphere: 0.004 } };
  const pose: LidarPose = { origin: [500, -200, 0.5] };
  const origin: [number, number, number] = [500, -200, 0];
  const ref = lidarSweepReference(boxes, desc, pose, {}, { intensity: true, materials: { reflectivity } });
  const input = { boxes, desc, pose, origin, materials: { reflectivity } };
  const sweep = (intensity: Float64Array | Float32Array) => ({ range: Float32Array.from(ref.range), box: ref.box, intensity });
  const returns = ref.box.filter((b) => b >= 0).length;

  it(`the reference's own intensities, rounded to float32, agree (${returns} returns of ${ref.box.length} rays)`, () => {
    expect(returns).toBeGreaterThan(800);
    const cmp = compareLidarIntensity(input, sweep(Float32Array.from(ref.intensity!)));
    expect(cmp.mismatch).toBe(0);
    expect(cmp.agree).toBe(ref.box.length);
  });

  it('a 2% gain is caught (reason intensity)', () => {
    const cmp = compareLidarIntensity(input, sweep(Float32Array.from(ref.intensity!, (x) => Math.min(1, x * 1.02))));
    expect(cmp.mismatchByReason.intensity).toBeGreaterThan(0.8 * returns);
  });

  it('the reflectivity ignored is caught', () => {
    const cmp = compareLidarIntensity({ ...input, materials: {} }, sweep(Float32Array.from(ref.intensity!)));
    expect(cmp.mismatchByReason.intensity).toBeGreaterThan(0.8 * returns);
  });

  it('the wrong face (the axis with the second-largest ratio) is caught', () => {
    const rays = lidarRays(desc, pose);
    const out = { ratio: [0, 0, 0], cos: [0, 0, 0] };
    const wrong = Float32Array.from(ref.intensity!, (x, r) => {
      const i = ref.box[r]!;
      if (i < 0) {
        return x;
      }
      const t = ref.range[r]!;
      const d = [rays.data[7 * r + 3]!, rays.data[7 * r + 4]!, rays.data[7 * r + 5]!];
      hitAxes(boxes.data, i, [rays.data[7 * r]! + t * d[0]!, rays.data[7 * r + 1]! + t * d[1]!, rays.data[7 * r + 2]! + t * d[2]!], d, out);
      const order = [0, 1, 2].sort((a, b) => out.ratio[b]! - out.ratio[a]!);
      return lidarIntensity(desc.intensity, reflectivity[i]!, out.cos[order[1]!]!, t);
    });
    const cmp = compareLidarIntensity(input, sweep(wrong));
    expect(cmp.mismatchByReason.intensity).toBeGreaterThan(0.8 * returns);
  });

  it('an intensity without a return is caught (reason intensity-no-return)', () => {
    const r = ref.box.findIndex((b) => b < 0);
    const bad = Float32Array.from(ref.intensity!);
    bad[r] = 0.5;
    const cmp = compareLidarIntensity(input, sweep(bad));
    expect(cmp.mismatchByReason['intensity-no-return']).toBe(1);
    expect(cmp.mismatch).toBe(1);
  });
});
