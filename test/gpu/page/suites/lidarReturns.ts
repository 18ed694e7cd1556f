/**
 * Suite `lidarReturns`: what the beam sees (issue 34) in the browser's WebGPU: materials and
 * intensity, seeded noise and dropout, a beam of sub-rays in dual mode, with the sensor moving,
 * each sweep judged against the float64 reference (compareLidarIntensity, compareLidarReturns).
 */
import { linearElevations, type BoxArray, type LidarDescription, type LidarPose } from '../../../../src/index.ts';
import { compareLidarSweep, mulberry32, randomBoxes } from '../../../../src/judge/index.ts';
import { compareLidarIntensity, compareLidarReturns } from '../../../../src/compare/lidar.ts';
import { scoped, summarize } from '../shared.ts';

/** Random boxes 2–40 m around `offset`, their centres within ±3 m of its height. */
function street(n: number, seed: number, offset: readonly [number, number, number]): BoxArray {
  const rnd = mulberry32(seed);
  const boxes = randomBoxes(n, rnd, { extent: 40, offset: [offset[0], offset[1], offset[2]], halfMin: 0.3, halfMax: 2.5 });
  for (let i = 0; i < n; i++) {
    boxes.data[i * 15 + 2] = offset[2] + (rnd() - 0.5) * 6;
  }
  return boxes;
}

/**
 * One sweep per feature over 500 boxes far from the origin, by the given method: intensity
 * (materials, range falloff, atmosphere), noise (angular, range, dropout, intensity dropout),
 * and a dual-return beam of 9 sub-rays with noise and motion. Returns each comparison's summary.
 */
export async function beamSees(seed: number, method: 'raster' | 'bvh') {
  return scoped(async (gpu) => {
    const offset: [number, number, number] = [2.5e5, -1.2e5, 10];
    const boxes = street(500, seed, offset);
    const set = gpu.createBoxSet(boxes);
    const rnd = mulberry32(seed + 1);
    await set.setMaterials({ reflectivity: Array.from({ length: boxes.count }, () => 0.05 + 0.9 * rnd()) });
    const pose: LidarPose = { origin: [offset[0], offset[1], offset[2] + 1.8], rotation: [0, 0, Math.sin(0.3), Math.cos(0.3)] };
    const base: LidarDescription = {
      elevations: linearElevations(16, -16, 16), azimuthSteps: 256, beamOriginOffset: 0.015, minRange: 0.5, maxRange: 120, sweepTime: 0.1,
      intensity: { referenceRange: 10, atmosphere: 0.004 },
    };
    const input = { boxes, pose, origin: set.origin, materials: set.materials! };
    const out: Record<string, ReturnType<typeof summarize>> = {};
    // Intensity.
    const plain = await gpu.createLidar(base, { method });
    const a = await gpu.lidarSweep(plain, set, pose, { intensity: true });
    const rays = compareLidarSweep({ ...input, desc: base }, a);
    out['intensity rays'] = summarize(rays);
    out['intensity'] = summarize(compareLidarIntensity({ ...input, desc: base }, { ...a, intensity: a.intensity! }, rays.ambiguousRays));
    plain.destroy();
    // Noise and dropout.
    const noisy: LidarDescription = { ...base, noise: { azimuthStdDev: 0.002, elevationStdDev: 0.001, rangeStdDev: 0.02, rangeStdDevPerUnit: 0.001, dropout: 0.1, intensityDropout: { limit: 0.3, atZero: 0.5 } } };
    const n = await gpu.createLidar(noisy, { method });
    const b = await gpu.lidarSweep(n, set, pose, { seed: 21, passes: true, intensity: true });
    const nc = compareLidarReturns({ ...input, desc: noisy, seed: 21 }, { ...b, intensity: b.intensity!, passes: b.passes! });
    out['noise pass rays'] = summarize(nc.passes[0]!.rays);
    out['noise returns'] = summarize(nc.returns);
    n.destroy();
    // A dual-return beam with noise, the sensor moving.
    const beam: LidarDescription = { ...noisy, beam: { divergence: [0.02, 0.012], rings: 1, samplesPerRing: 8, returns: 'dual', minSeparation: 0.5 } };
    const s = await gpu.createLidar(beam, { method });
    const motion = { poseEnd: { origin: [offset[0] + 1.5, offset[1], offset[2] + 1.8] as [number, number, number], rotation: [0, 0, Math.sin(0.35), Math.cos(0.35)] as [number, number, number, number] } };
    const c = await gpu.lidarSweep(s, set, pose, { ...motion, seed: 22, passes: true, intensity: true });
    const bc = compareLidarReturns({ ...input, desc: beam, motion, seed: 22 }, { ...c, intensity: c.intensity!, passes: c.passes! });
    out['beam pass mismatches'] = summarize(bc.passes.map((p) => p.rays).reduce((x, y) => (y.mismatch > x.mismatch ? y : x)));
    out['beam returns'] = summarize(bc.returns);
    const twoReturns = c.returnCount!.filter((x) => x === 2).length;
    s.destroy();
    set.destroy();
    return { summaries: out, twoReturns, passes: c.passes!.length };
  });
}
