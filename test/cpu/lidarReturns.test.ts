/**
 * Multiple returns and beam divergence on the CPU: the sub-ray pattern (beamSubRays, RGL's
 * ellipses) and the descriptions of the sub-ray passes; the description's validation; and the
 * judge of a beam's returns (compareLidarReturns) held to both sides: the reference's own
 * returns, rounded to float32, agree; returns chosen by another rule (the nearest hit for the
 * strongest, one return where dual keeps two, the range noise left out, the dropout ignored) are
 * each caught.
 */
import { describe, expect, it } from 'vitest';
import { linearElevations, type LidarDescription, type LidarPose } from '../../src/index.ts';
import { mulberry32, randomBoxes } from '../../src/judge/index.ts';
import { compareLidarReturns } from '../../src/compare/lidar.ts';
import { beamSubRayDescription, beamSubRays, checkLidar } from '../../src/core/lidar.ts';
import { beamPassDescriptions, lidarRays, lidarSweepReference } from '../../src/reference/lidar.ts';

describe('the beam as a cone of sub-rays', () => {
  it('the centre, then each ring\'s ellipse of the full divergences, outermost first', () => {
    expect(beamSubRays(undefined)).toEqual([[0, 0]]);
    expect(beamSubRays({ divergence: [0, 0], rings: 3 })).toEqual([[0, 0]]);
    const rays = beamSubRays({ divergence: [0.004, 0.002], rings: 2, samplesPerRing: 4 });
    expect(rays).toHaveLength(9);
    expect(rays[0]).toEqual([0, 0]);
    expect(rays[1]![0]).toBeCloseTo(0.002, 15);
    expect(rays[2]![1]).toBeCloseTo(0.001, 15);
    expect(rays[5]![0]).toBeCloseTo(0.001, 15);
    expect(rays[6]![1]).toBeCloseTo(0.0005, 15);
    expect(beamSubRays({ divergence: [0.003, 0.0015] })).toHaveLength(9);
  });

  it('sub-ray k is a sensor whose elevations are e + v and whose offsets are δ + h / cos e: its rays are h and v off the beam\'s', () => {
    const desc: LidarDescription = {
      elevations: [-0.3, 0, 0.2], azimuthOffsets: [0.01, 0, -0.02], azimuthSteps: 16, maxRange: 50,
      beam: { divergence: [0.01, 0.006], samplesPerRing: 4 }, noise: { azimuthStdDev: 0.001, rangeStdDev: 0.1, dropout: 0.2 },
    };
    const passes = beamPassDescriptions(desc);
    expect(passes).toHaveLength(5);
    // Only the beam's jitter reaches the passes; range noise and dropout act on its returns.
    expect(passes[0]!.noise).toEqual({ azimuthStdDev: 0.001 });
    expect(passes[0]!.beam).toBeUndefined();
    const sub = beamSubRayDescription(desc, 1);
    const centre = lidarRays(passes[0]!, { origin: [0, 0, 0] });
    const side = lidarRays(sub, { origin: [0, 0, 0] });
    for (let r = 0; r < 48; r++) {
      const d = [centre.data[7 * r + 3]!, centre.data[7 * r + 4]!, centre.data[7 * r + 5]!];
      const e = [side.data[7 * r + 3]!, side.data[7 * r + 4]!, side.data[7 * r + 5]!];
      // 0.005 rad horizontally off the beam's axis (to first order in the small angle).
      const angle = Math.acos(Math.min(1, d[0]! * e[0]! + d[1]! * e[1]! + d[2]! * e[2]!));
      expect(angle).toBeCloseTo(0.005, 6);
    }
  });

  it('validates the beam by name', () => {
    const base: LidarDescription = { elevations: linearElevations(4, -10, 10), azimuthSteps: 32, maxRange: 50 };
    expect(() => checkLidar({ ...base, beam: { divergence: [0.1, 0] } })).toThrow(/beam.divergence/);
    expect(() => checkLidar({ ...base, beam: { divergence: [0.003, 0.001], rings: 4 } })).toThrow(/beam.rings/);
    expect(() => checkLidar({ ...base, beam: { divergence: [0.003, 0.001], samplesPerRing: 2 } })).toThrow(/beam.samplesPerRing/);
    expect(() => checkLidar({ ...base, beam: { divergence: [0.003, 0.001], returns: 'first' as never } })).toThrow(/beam.returns/);
    expect(() => checkLidar({ ...base, beam: { divergence: [0.003, 0.001], minSeparation: 0 } })).toThrow(/beam.minSeparation/);
    expect(() => checkLidar({ ...base, elevations: [1.5705], beam: { divergence: [0, 0.01] } })).toThrow(/to ±90°/);
    expect(() => checkLidar({ ...base, beam: { divergence: [0.003, 0.0015], rings: 3, samplesPerRing: 19, returns: 'dual', minSeparation: 0.3 } })).not.toThrow();
  });
});

describe('compareLidarReturns holds both sides', () => {
  const rnd = mulberry32(91);
  const boxes = randomBoxes(300, rnd, { extent: 30, offset: [0, 0, 0], halfMin: 0.2, halfMax: 2 });
  const pose: LidarPose = { origin: [0, 0, 0.3] };
  const base: LidarDescription = { elevations: linearElevations(8, -12, 8), azimuthSteps: 180, maxRange: 80, intensity: { referenceRange: 10 } };
  const f32 = (x: ArrayLike<number>): Float32Array => Float32Array.from(x);
  /** The reference's sweep as an implementation would report it: float32 images and passes. */
  function asImplementation(desc: LidarDescription, seed: number) {
    const ref = lidarSweepReference(boxes, desc, pose, {}, { seed, intensity: true });
    return {
      ref,
      sweep: {
        range: f32(ref.range), box: ref.box, intensity: f32(ref.intensity!),
        passes: ref.passes!.map((p) => ({ range: f32(p.range), box: p.box, intensity: f32(p.intensity!) })),
        second: { range: f32(ref.second!.range), box: ref.second!.box, intensity: f32(ref.second!.intensity) },
        returnCount: ref.returnCount!,
      },
    };
  }

  it('the reference\'s own dual returns over 9 sub-rays, with noise and dropout, agree; with two returns on many beams', () => {
    const desc: LidarDescription = { ...base, beam: { divergence: [0.03, 0.02], returns: 'dual', minSeparation: 0.4 }, noise: { rangeStdDev: 0.02, dropout: 0.05 } };
    const { ref, sweep } = asImplementation(desc, 5);
    const cmp = compareLidarReturns({ boxes, desc, pose, seed: 5 }, sweep);
    expect(cmp.returns.mismatch).toBe(0);
    expect(cmp.returns.ambiguous).toBe(0);
    expect(cmp.passes.every((p) => p.rays.mismatch === 0 && p.intensity.mismatch === 0)).toBe(true);
    expect(ref.returnCount!.filter((x) => x === 2).length).toBeGreaterThan(50);
  });

  it('the nearest hit reported as the strongest is caught', () => {
    // No range falloff: the strongest sub-ray hit is the one meeting its face most squarely.
    const desc: LidarDescription = { ...base, intensity: {}, beam: { divergence: [0.03, 0.02], returns: 'strongest' } };
    const { sweep } = asImplementation(desc, 0);
    const range = sweep.range.slice();
    const box = sweep.box.slice();
    const intensity = sweep.intensity.slice();
    let changed = 0;
    for (let r = 0; r < range.length; r++) {
      let best = -1;
      for (const [p, pass] of sweep.passes.entries()) {
        if (pass.box[r]! >= 0 && (best < 0 || pass.range[r]! < sweep.passes[best]!.range[r]!)) {
          best = p;
        }
      }
      if (best >= 0 && sweep.passes[best]!.box[r] !== box[r]) {
        changed++;
      }
      if (best >= 0) {
        range[r] = sweep.passes[best]!.range[r]!;
        box[r] = sweep.passes[best]!.box[r]!;
        intensity[r] = sweep.passes[best]!.intensity[r]!;
      }
    }
    expect(changed).toBeGreaterThan(20);
    const cmp = compareLidarReturns({ boxes, desc, pose }, { ...sweep, range, box, intensity, second: undefined, returnCount: undefined });
    expect(cmp.returns.mismatch).toBeGreaterThanOrEqual(0.8 * changed);
  });

  it('dual reduced to one return, the range noise left out, the dropout ignored: each caught', () => {
    const desc: LidarDescription = { ...base, beam: { divergence: [0.03, 0.02], returns: 'dual', minSeparation: 0.4 }, noise: { rangeStdDev: 0.05, dropout: 0.2 } };
    const { ref, sweep } = asImplementation(desc, 9);
    const input = { boxes, desc, pose, seed: 9 };
    const one = compareLidarReturns(input, { ...sweep, returnCount: Uint8Array.from(sweep.returnCount, (x) => Math.min(x, 1)) });
    expect(one.returns.mismatchByReason['return-count']).toBe(ref.returnCount!.filter((x) => x === 2).length);
    // Without noise: the returns' ranges are their passes' hits.
    const plain = lidarSweepReference(boxes, { ...desc, noise: { dropout: 0.2 } }, pose, {}, { seed: 9, intensity: true });
    const noNoise = compareLidarReturns(input, { ...sweep, range: f32(plain.range), second: { ...sweep.second, range: f32(plain.second!.range) } });
    expect(noNoise.returns.mismatchByReason['return']).toBeGreaterThan(0.5 * ref.box.filter((b) => b >= 0).length);
    // Without dropout: more returns than the seed leaves.
    const kept = lidarSweepReference(boxes, { ...desc, noise: { rangeStdDev: 0.05 } }, pose, {}, { seed: 9, intensity: true });
    const noDropout = compareLidarReturns(input, {
      ...sweep, range: f32(kept.range), box: kept.box, intensity: f32(kept.intensity!),
      second: { range: f32(kept.second!.range), box: kept.second!.box, intensity: f32(kept.second!.intensity) }, returnCount: kept.returnCount!,
    });
    expect(noDropout.returns.mismatch).toBeGreaterThan(0.1 * ref.box.filter((b) => b >= 0).length);
  });
});

describe('the return stages\' parameters', () => {
  it('LidarReturnParams (shaders/lidar/returns_common.wgsl) has RETURN_PARAMS\' size and offsets in every module that links it', async () => {
    const { WgslReflect } = await import('wgsl_reflect/wgsl_reflect.module.js');
    const { MODULES } = await import('../../src/runtime/shaders.ts');
    const { RETURN_PARAMS } = await import('../../src/lidar/returnStage.ts');
    const camel = (key: string): string => key.toLowerCase().replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase());
    for (const module of ['lidarIntensity', 'lidarNoiseRays', 'lidarReturns'] as const) {
      const st = new WgslReflect(MODULES[module]().code).structs.find((x) => x.name === 'LidarReturnParams');
      expect(st, module).toBeDefined();
      expect(st!.size).toBe(RETURN_PARAMS.SIZE);
      for (const [key, offset] of Object.entries(RETURN_PARAMS)) {
        if (key !== 'SIZE') {
          expect(st!.members.find((m) => m.name === camel(key))?.offset, `${module}: ${key}`).toBe(offset);
        }
      }
      // The table names every member but the padding.
      expect(st!.members.filter((m) => !m.name.startsWith('pad')).length).toBe(Object.keys(RETURN_PARAMS).length - 1);
    }
  });
});
