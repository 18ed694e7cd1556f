/**
 * What the beam sees (issue 34), on the GPU (Dawn in Node): per-box materials and the intensity
 * of each return, computed after the sweep by shaders/lidar/intensity.wgsl, judged return by
 * return against the float64 model (compareLidarIntensity) on both methods, with motion, with
 * the range falloff and the atmospheric term; a sweep that does not ask for intensity runs none
 * of it and answers as before.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { linearElevations, type LidarDescription, type LidarPose, type ObbGpu } from '../../src/index.ts';
import { compareLidarSweep, mulberry32 } from '../../src/judge/index.ts';
import { compareLidarIntensity, compareLidarReturns } from '../../src/compare/lidar.ts';
import { lidarIntensity } from '../../src/core/lidar.ts';
import { lidarSweepReference } from '../../src/reference/index.ts';
import { gaussianOf, pcg4d } from '../../src/reference/lidar.ts';
import { expectClean, openNodeGpu, scoped, street } from './shared.ts';

let gpu: ObbGpu;
beforeAll(async () => {
  gpu = await openNodeGpu();
});
afterAll(() => {
  gpu?.destroy();
});

const deg = Math.PI / 180;


/** Reflectivities in [0.05, 0.95] and classes 0..9, seeded. */
function materialsOf(n: number, seed: number): { reflectivity: number[]; classId: number[] } {
  const rnd = mulberry32(seed);
  return { reflectivity: Array.from({ length: n }, () => 0.05 + 0.9 * rnd()), classId: Array.from({ length: n }, () => Math.floor(rnd() * 10)) };
}

const offset: [number, number, number] = [2.5e5, -1.2e5, 10];
const pose: LidarPose = { origin: [offset[0], offset[1], offset[2] + 1.8], rotation: [0, 0, Math.sin(0.3), Math.cos(0.3)] };

/** An Ouster-like sensor: per-channel offsets, the beam-origin circle, clockwise, a minimum range. */
const sensorDesc: LidarDescription = {
  elevations: Array.from({ length: 16 }, (_, c) => (-16.6 + c * 2.2) * deg),
  azimuthOffsets: Array.from({ length: 16 }, (_, c) => ((c % 4) - 1.5) * 1.4 * deg),
  beamOriginOffset: 0.01576,
  azimuthSteps: 512,
  azimuthStart: 2 * Math.PI,
  azimuthEnd: 0,
  minRange: 0.8,
  maxRange: 120,
  sweepTime: 0.1,
};

describe('materials and intensity', () => {
  it('setMaterials validates, copies, defaults boxes never given one, and orders with the set\'s calls', async () => {
    const set = gpu.createBoxSet(street(10, 1, [0, 0, 0]));
    expect(set.materials).toBeUndefined();
    await expect(set.setMaterials({ reflectivity: [0.5, 1.5] })).rejects.toThrow(/reflectivity.*\[1\] must be a number in \[0, 1\]/);
    await expect(set.setMaterials({ classId: [1, 70000] })).rejects.toThrow(/classId.*\[1\] must be an integer in \[0, 65535\]/);
    await expect(set.setMaterials({ reflectivity: [0.5], classId: [1, 2] })).rejects.toThrow(/one per box for both/);
    await expect(set.setMaterials({ reflectivity: [0.5, 0.5] }, 9)).rejects.toThrow(/outside the set/);
    await expect(set.setMaterials({ reflectivty: [0.5] } as never)).rejects.toThrow(/unknown key "reflectivty"/);
    expect(set.materialsVersion).toBe(0);
    const mine = [0.25, 0.75];
    await set.setMaterials({ reflectivity: mine, classId: [3, 4] }, 2);
    mine[0] = 0.9;
    expect([...set.materials!.reflectivity]).toEqual([1, 1, 0.25, 0.75, 1, 1, 1, 1, 1, 1]);
    expect([...set.materials!.classId]).toEqual([0, 0, 3, 4, 0, 0, 0, 0, 0, 0]);
    await set.setMaterials({ classId: [7] }, 3);
    expect(set.materials!.classId[3]).toBe(7);
    expect(set.materials!.reflectivity[3]).toBe(0.75);
    expect(set.materialsVersion).toBe(2);
    set.destroy();
  });

  it('the intensity model: reflectivity × incidence cosine, the range falloff normalised at r₀, the atmospheric term, saturation', () => {
    expect(lidarIntensity(undefined, 0.5, 0.8, 30)).toBeCloseTo(0.4, 15);
    expect(lidarIntensity({ referenceRange: 10 }, 0.5, 0.8, 20)).toBeCloseTo(0.1, 15);
    expect(lidarIntensity({ referenceRange: 10 }, 0.5, 0.8, 2)).toBe(1);
    expect(lidarIntensity({ atmosphere: 0.004 }, 1, 1, 50)).toBeCloseTo(Math.exp(-0.2), 15);
    expect(lidarIntensity({ referenceRange: 10 }, 1, 1, 0)).toBe(1);
  });

  it('raster and tree, static and moving: every return\'s intensity judged against the float64 model, the two methods equal where their hits are', async () => {
    const boxes = street(500, 21, offset);
    const set = gpu.createBoxSet(boxes);
    const materials = materialsOf(boxes.count, 22);
    await set.setMaterials(materials);
    const models: [string, LidarDescription][] = [
      ['cosine', sensorDesc],
      ['falloff + atmosphere', { ...sensorDesc, intensity: { referenceRange: 10, atmosphere: 0.004 } }],
    ];
    const motion = { poseEnd: { origin: [offset[0] + 2, offset[1] + 0.5, offset[2] + 1.8] as [number, number, number], rotation: pose.rotation! }, boxMotion: { boxes: [3, 40, 41], velocity: [10, 0, 0, 0, -5, 0, 2, 2, 0], angularVelocity: [0, 0, 1, 0, 0, 0, 0, 0, -0.5] } };
    for (const [name, desc] of models) {
      const raster = await gpu.createLidar(desc);
      const tree = await gpu.createLidar(desc, { method: 'bvh' });
      expect(raster.method).toBe('raster');
      for (const m of [{}, motion]) {
        const label = `${name}${'poseEnd' in m ? ', moving' : ''}`;
        const [a, b] = await scoped(gpu, () => gpu.lidarSweepMany(set, [
          { sensor: raster, pose, options: { ...m, intensity: true } }, { sensor: tree, pose, options: { ...m, intensity: true } },
        ]));
        for (const [method, sweep] of [['raster', a!], ['tree', b!]] as const) {
          const input = { boxes, desc, pose, motion: m, origin: set.origin, materials: set.materials! };
          const rays = compareLidarSweep(input, sweep);
          expectClean(rays, 1e-3, `${label} (${method}) rays`);
          const cmp = compareLidarIntensity(input, { ...sweep, intensity: sweep.intensity! }, rays.ambiguousRays);
          expectClean(cmp, 1e-3, `${label} (${method}) intensity`);
          expect(sweep.box.filter((x) => x >= 0).length).toBeGreaterThan(1500);
        }
        // Where the two methods hit the same box at the same t, the intensity is the same bits (the
        // raster method makes a static sweep's beam origins in f32 itself, so its t differ from the
        // tree's in the last bits on many rays; with motion both take the host's origins).
        let same = 0;
        for (let r = 0; r < a!.box.length; r++) {
          if (a!.box[r] === b!.box[r] && a!.range[r] === b!.range[r]) {
            expect(a!.intensity![r]).toBe(b!.intensity![r]);
            same++;
          }
        }
        expect(same).toBeGreaterThan(('poseEnd' in m ? 0.9 : 0.5) * a!.box.length);
      }
      raster.destroy();
      tree.destroy();
    }
    set.destroy();
  });

  it('each factor is visible: halving the reflectivities halves the intensity, the falloff and the atmosphere lower it with range; without `intensity` nothing changes', async () => {
    const boxes = street(300, 31, [0, 0, 0]);
    const set = gpu.createBoxSet(boxes);
    const desc: LidarDescription = { elevations: linearElevations(8, -15, 10), azimuthSteps: 360, maxRange: 100 };
    const p: LidarPose = { origin: [0, 0, 1.5] };
    const sensor = await gpu.createLidar(desc);
    const plain = await gpu.lidarSweep(sensor, set, p);
    expect(plain.intensity).toBeUndefined();
    const ones = await gpu.lidarSweep(sensor, set, p, { intensity: true });
    expect([...ones.range]).toEqual([...plain.range]);
    expect([...ones.box]).toEqual([...plain.box]);
    // Without materials the intensity is the incidence cosine the fields have.
    const withFields = await gpu.lidarSweep(sensor, set, p, { intensity: true, fields: true });
    let near = 0;
    for (let r = 0; r < ones.box.length; r++) {
      if (ones.box[r]! >= 0) {
        expect(Math.abs(ones.intensity![r]! - withFields.fields!.incidence[r]!)).toBeLessThan(1e-5);
        near++;
      } else {
        expect(ones.intensity![r]).toBe(0);
      }
    }
    expect(near).toBeGreaterThan(500);
    await set.setMaterials({ reflectivity: new Array(boxes.count).fill(0.5) });
    const half = await gpu.lidarSweep(sensor, set, p, { intensity: true });
    for (let r = 0; r < ones.box.length; r++) {
      expect(half.intensity![r]).toBe(Math.fround(ones.intensity![r]! * 0.5));
    }
    const far = await gpu.createLidar({ ...desc, intensity: { referenceRange: 5, atmosphere: 0.01 } });
    const falloff = await gpu.lidarSweep(far, set, p, { intensity: true });
    const ref = lidarSweepReference(boxes, { ...desc, intensity: { referenceRange: 5, atmosphere: 0.01 } }, p, {}, { intensity: true, materials: set.materials! });
    let lower = 0;
    for (let r = 0; r < ones.box.length; r++) {
      if (falloff.box[r]! >= 0 && falloff.range[r]! > 6) {
        expect(falloff.intensity![r]!).toBeLessThan(half.intensity![r]!);
        lower++;
      }
      if (ref.box[r] === falloff.box[r] && falloff.box[r]! >= 0) {
        expect(Math.abs(ref.intensity![r]! - falloff.intensity![r]!)).toBeLessThan(1e-4);
      }
    }
    expect(lower).toBeGreaterThan(300);
    far.destroy();
    sensor.destroy();
    set.destroy();
  });
});

describe('seeded noise and dropout', () => {
  const noisy: LidarDescription = { ...sensorDesc, beamOriginOffset: 0, noise: { azimuthStdDev: 0.002, elevationStdDev: 0.002 } };

  it('angular noise: the beams jitter by the seed, raster and tree cast the same perturbed rays, both judged clean against the reference\'s perturbed rays', async () => {
    const boxes = street(500, 51, offset);
    const set = gpu.createBoxSet(boxes);
    const raster = await gpu.createLidar(noisy);
    const tree = await gpu.createLidar(noisy, { method: 'bvh' });
    const plain = await gpu.createLidar({ ...noisy, noise: {} });
    expect(raster.method).toBe('raster');
    const motion = { poseEnd: { origin: [offset[0] + 2, offset[1] + 0.5, offset[2] + 1.8] as [number, number, number], rotation: pose.rotation! }, boxMotion: { boxes: [3, 40], velocity: [10, 0, 0, 0, -5, 0] } };
    for (const m of [{}, motion]) {
      const label = 'poseEnd' in m ? 'moving' : 'static';
      const [a, b, p] = await scoped(gpu, () => gpu.lidarSweepMany(set, [
        { sensor: raster, pose, options: { ...m, seed: 7 } }, { sensor: tree, pose, options: { ...m, seed: 7 } }, { sensor: plain, pose, options: m },
      ]));
      expect(a!.seed).toBe(7);
      expectClean(compareLidarSweep({ boxes, desc: noisy, pose, motion: m, origin: set.origin, seed: 7 }, a!), 1e-3, `angular noise, ${label} (raster)`);
      expectClean(compareLidarSweep({ boxes, desc: noisy, pose, motion: m, origin: set.origin, seed: 7 }, b!), 1e-3, `angular noise, ${label} (tree)`);
      let differ = 0;
      for (let r = 0; r < a!.box.length; r++) {
        differ += a!.box[r] === b!.box[r] && a!.range[r] === b!.range[r] ? 0 : 1;
      }
      expect(differ, `${label}: raster and tree`).toBe(0);
      // The noise is visible: the same sensor without it answers differently, as does another seed.
      let moved = 0;
      for (let r = 0; r < a!.box.length; r++) {
        moved += a!.range[r] === p!.range[r] ? 0 : 1;
      }
      expect(moved).toBeGreaterThan(0.3 * a!.box.filter((x) => x >= 0).length);
      const again = await gpu.lidarSweep(raster, set, pose, { ...m, seed: 7 });
      expect([...again.range]).toEqual([...a!.range]);
      const other = await gpu.lidarSweep(raster, set, pose, { ...m, seed: 8 });
      expect(differing(other.range, a!.range)).toBeGreaterThan(1000);
    }
    await expect(gpu.lidarSweep(raster, set, pose, { seed: -1 })).rejects.toThrow(/seed/);
    // The footprints' widening, tried hard: σ = 0.01 rad (the most allowed), small boxes 1–4 m
    // away (a jitter of 0.06 rad moves a ray across a whole box there), a turning sensor.
    const rnd = mulberry32(52);
    const near = Array.from({ length: 300 }, () => {
      const r = 1 + 3 * rnd();
      const t = 2 * Math.PI * rnd();
      return { center: [offset[0] + r * Math.cos(t), offset[1] + r * Math.sin(t), offset[2] + 1.8 + (rnd() - 0.5) * 2] as [number, number, number], halfExtents: [0.02 + 0.05 * rnd(), 0.02 + 0.05 * rnd(), 0.05 + 0.2 * rnd()] as [number, number, number], rotation: [0, 0, Math.sin(rnd()), Math.cos(rnd())] as [number, number, number, number] };
    });
    const small = gpu.createBoxSet(near);
    const wide: LidarDescription = { ...noisy, noise: { azimuthStdDev: 0.01, elevationStdDev: 0.01 }, minRange: 0, azimuthSteps: 720 };
    const r2 = await gpu.createLidar(wide);
    const t2 = await gpu.createLidar(wide, { method: 'bvh' });
    const turning = { poseEnd: { origin: pose.origin, rotation: [0, 0, Math.sin(0.4), Math.cos(0.4)] as [number, number, number, number] } };
    for (const m of [{}, turning]) {
      const [a, b] = await scoped(gpu, () => gpu.lidarSweepMany(small, [{ sensor: r2, pose, options: { ...m, seed: 3 } }, { sensor: t2, pose, options: { ...m, seed: 3 } }]));
      expect(a!.box.filter((x) => x >= 0).length).toBeGreaterThan(500);
      expect(differing(a!.box, b!.box), 'poseEnd' in m ? 'turning' : 'static').toBe(0);
      expect(differing(a!.range, b!.range)).toBe(0);
      expectClean(compareLidarSweep({ boxes: small.boxes, desc: wide, pose, motion: m, origin: small.origin, seed: 3 }, a!), 1e-3, `σ 0.01 near boxes${'poseEnd' in m ? ', turning' : ''}`);
    }
    r2.destroy();
    t2.destroy();
    small.destroy();
    raster.destroy();
    tree.destroy();
    plain.destroy();
    set.destroy();
  });
});

describe('range noise and dropout', () => {
  const desc: LidarDescription = {
    ...sensorDesc,
    intensity: { referenceRange: 15 },
    noise: { rangeStdDev: 0.02, rangeStdDevPerUnit: 0.001, azimuthStdDev: 0.001, dropout: 0.1, intensityDropout: { limit: 0.3, atZero: 0.5 } },
  };

  it('every pass and every beam judged clean against the reference with the same seed; the draws have their distributions; a sweep without the noise would fail', async () => {
    const boxes = street(500, 61, offset);
    const set = gpu.createBoxSet(boxes);
    await set.setMaterials(materialsOf(boxes.count, 62));
    const motion = { poseEnd: { origin: [offset[0] + 1, offset[1], offset[2] + 1.8] as [number, number, number], rotation: pose.rotation! }, boxMotion: { boxes: [5], velocity: [0, 8, 0] } };
    for (const method of ['raster', 'bvh'] as const) {
      const sensor = await gpu.createLidar(desc, { method });
      for (const m of [{}, motion]) {
        const label = `${method}${'poseEnd' in m ? ', moving' : ''}`;
        const sweep = await scoped(gpu, () => gpu.lidarSweep(sensor, set, pose, { ...m, seed: 11, passes: true, intensity: true, points: true, fields: true }));
        const input = { boxes, desc, pose, motion: m, origin: set.origin, materials: set.materials!, seed: 11 };
        const cmp = compareLidarReturns(input, { ...sweep, intensity: sweep.intensity!, passes: sweep.passes! });
        expectClean(cmp.passes[0]!.rays, 1e-3, `${label}: pass rays`);
        expectClean(cmp.passes[0]!.intensity, 1e-3, `${label}: pass intensity`);
        expectClean(cmp.returns, 1e-3, `${label}: returns`);
        // The draws: about 10% dropped at random plus the weak returns' share; the range noise's
        // deviates (r′ − r) / σ(r) of the kept returns are standard normal.
        const pass = sweep.passes![0]!;
        let hits = 0;
        let kept = 0;
        const z: number[] = [];
        for (let r = 0; r < pass.box.length; r++) {
          if (pass.box[r]! < 0) {
            continue;
          }
          hits++;
          if (sweep.box[r]! >= 0) {
            kept++;
            const t = pass.range[r]!;
            z.push((sweep.range[r]! - t) / (0.02 + 0.001 * t));
            // The point is on the beam's ray at the noisy range (no beam-origin offset here... but
            // the fields' range is the noisy one whatever the origin).
            expect(sweep.fields!.range[r]).toBe(sweep.range[r]);
          }
        }
        const mean = z.reduce((x, y) => x + y, 0) / z.length;
        const sd = Math.sqrt(z.reduce((x, y) => x + (y - mean) ** 2, 0) / z.length);
        console.log(`[${label}] ${hits} hits, ${kept} kept (${(100 * (1 - kept / hits)).toFixed(1)}% dropped); range deviates mean ${mean.toFixed(3)} sd ${sd.toFixed(3)}`);
        expect(1 - kept / hits).toBeGreaterThan(0.1);
        expect(1 - kept / hits).toBeLessThan(0.35);
        expect(Math.abs(mean)).toBeLessThan(0.06);
        expect(Math.abs(sd - 1)).toBeLessThan(0.06);
        // The deviates are the reference's bit for bit: float32's r′ = r + (σ₀ + σ₁ r) · z, emulated
        // with the reference's z, is the GPU's r′ exactly.
        const f = Math.fround;
        let exact = 0;
        let returns = 0;
        for (let r = 0; r < pass.box.length; r++) {
          const slot = sweep.box[r]! >= 0 && pass.box[r]! >= 0 ? 0 : -1;
          if (slot < 0 || sweep.range[r] === pass.range[r]) {
            continue;
          }
          const c = Math.floor(r / desc.azimuthSteps);
          const a = r % desc.azimuthSteps;
          // Return 0 kept: drawn with slot 0 (return 1 exists only in dual mode).
          const h = pcg4d(c, a, 11, 1);
          const t = pass.range[r]!;
          const sigma = f(f(0.02) + f(f(0.001) * t));
          const want = Math.max(0, f(t + f(sigma * gaussianOf(h[0]))));
          returns++;
          exact += want === sweep.range[r] ? 1 : 0;
        }
        expect(exact).toBe(returns);
        // Without the noise the returns are the passes' hits: judged, they fail.
        const bare = compareLidarReturns(input, { range: pass.range, box: pass.box, intensity: pass.intensity, passes: sweep.passes! });
        expect(bare.returns.mismatch).toBeGreaterThan(0.5 * hits);
      }
      sensor.destroy();
    }
    set.destroy();
  });
});

describe('multiple returns and beam divergence', () => {
  const beamDesc = (returns: 'strongest' | 'last' | 'dual'): LidarDescription => ({
    ...sensorDesc, beamOriginOffset: 0, azimuthSteps: 256, intensity: { referenceRange: 10 },
    beam: { divergence: [0.02, 0.012], rings: 2, samplesPerRing: 6, returns, minSeparation: 0.5 },
  });

  it('strongest, last and dual over 13 sub-rays per beam: raster equals tree, every pass and every beam judged clean, the modes keep what they say', async () => {
    const boxes = street(600, 71, offset);
    const set = gpu.createBoxSet(boxes);
    await set.setMaterials(materialsOf(boxes.count, 72));
    const results = new Map<string, import('../../src/index.ts').LidarSweep>();
    for (const returns of ['strongest', 'last', 'dual'] as const) {
      const desc = beamDesc(returns);
      const raster = await gpu.createLidar(desc);
      const tree = await gpu.createLidar(desc, { method: 'bvh' });
      expect(raster.passCount).toBe(13);
      const options = { passes: true, intensity: true, points: true } as const;
      const [a, b] = await scoped(gpu, () => gpu.lidarSweepMany(set, [{ sensor: raster, pose, options }, { sensor: tree, pose, options }]));
      expect(a!.passes).toHaveLength(13);
      expect(differing(a!.box, b!.box), returns).toBe(0);
      expect(differing(a!.range, b!.range), returns).toBe(0);
      const cmp = compareLidarReturns({ boxes, desc, pose, origin: set.origin, materials: set.materials! }, { ...a!, intensity: a!.intensity!, passes: a!.passes! });
      for (const [p, x] of cmp.passes.entries()) {
        expect(x.rays.mismatch, `${returns}: pass ${p} rays`).toBe(0);
        expect(x.intensity.mismatch, `${returns}: pass ${p} intensity`).toBe(0);
      }
      expectClean(cmp.passes[5]!.rays, 1e-3, `${returns}: pass 5 rays`);
      expectClean(cmp.returns, 2e-3, `${returns}: beams`);
      results.set(returns, a!);
      raster.destroy();
      tree.destroy();
    }
    const strongest = results.get('strongest')!;
    const last = results.get('last')!;
    const dual = results.get('dual')!;
    const passes = strongest.passes!;
    let split = 0;
    let two = 0;
    for (let r = 0; r < strongest.box.length; r++) {
      const hits = passes.filter((p) => p.box[r]! >= 0);
      if (hits.length === 0) {
        expect(strongest.box[r]).toBe(-1);
        expect(dual.returnCount![r]).toBe(0);
        continue;
      }
      // Strongest: the largest intensity of the sub-rays; last: the largest range.
      expect(strongest.intensity![r]).toBe(Math.max(...hits.map((p) => p.intensity[r]!)));
      expect(last.range[r]).toBe(Math.max(...hits.map((p) => p.range[r]!)));
      split += new Set(hits.map((p) => p.box[r])).size > 1 ? 1 : 0;
      // Dual: two returns at least minSeparation apart, the second the last.
      if (dual.returnCount![r] === 2) {
        two++;
        expect(dual.second!.range[r]).toBe(last.range[r]);
        expect(dual.second!.range[r]! - dual.range[r]!).toBeGreaterThanOrEqual(0.5 - 1e-6);
      } else {
        expect(dual.returnCount![r]).toBe(1);
        expect(dual.second!.box[r]).toBe(-1);
      }
    }
    console.log(`beams over several boxes: ${split}; dual beams with two returns: ${two}`);
    expect(split).toBeGreaterThan(200);
    expect(two).toBeGreaterThan(100);
    // Both returns count per box.
    const counted = new Uint32Array(boxes.count);
    for (let r = 0; r < dual.box.length; r++) {
      for (const b of [dual.box[r]!, dual.second!.box[r]!]) {
        if (b >= 0) {
          counted[b]!++;
        }
      }
    }
    expect([...dual.returnsPerBox]).toEqual([...counted]);
    set.destroy();
  });

  it('tile lists too small for every sub-ray: the beam\'s sweep runs again with lists of its size, and answers as with room to spare; destroy frees the sub-rays', async () => {
    const boxes = street(400, 75, offset);
    const set = gpu.createBoxSet(boxes);
    const desc = beamDesc('dual');
    const roomy = await gpu.createLidar(desc);
    const tight = await gpu.createLidar(desc, { listCapacity: 100 });
    const [a, b] = await scoped(gpu, () => gpu.lidarSweepMany(set, [{ sensor: roomy, pose, options: { intensity: true } }, { sensor: tight, pose, options: { intensity: true } }]));
    expect(tight.listCapacity).toBeGreaterThan(1000);
    expect(b!.overflowed).toBe(0);
    for (const key of ['range', 'box', 'intensity', 'returnCount'] as const) {
      expect(differing(b![key]!, a![key]!), key).toBe(0);
    }
    expect(differing(b!.second!.range, a!.second!.range)).toBe(0);
    roomy.destroy();
    tight.destroy();
    await expect(gpu.lidarSweep(tight, set, pose)).rejects.toThrow(/destroyed|stale/i);
    set.destroy();
  });

  it('a beam with noise and motion: the sub-rays jitter with their beam, and the returns stage judges clean', async () => {
    const boxes = street(500, 81, offset);
    const set = gpu.createBoxSet(boxes);
    const desc: LidarDescription = {
      ...beamDesc('dual'), beamOriginOffset: 0.02,
      noise: { azimuthStdDev: 0.001, elevationStdDev: 0.001, rangeStdDev: 0.01, dropout: 0.05 },
    };
    const sensor = await gpu.createLidar(desc);
    const motion = { poseEnd: { origin: [offset[0] + 1.5, offset[1], offset[2] + 1.8] as [number, number, number], rotation: [0, 0, Math.sin(0.35), Math.cos(0.35)] as [number, number, number, number] }, boxMotion: { boxes: [2, 9], velocity: [6, 0, 0, 0, 6, 0] } };
    const sweep = await scoped(gpu, () => gpu.lidarSweep(sensor, set, pose, { ...motion, seed: 99, passes: true, intensity: true, fields: true }));
    const cmp = compareLidarReturns({ boxes, desc, pose, motion, origin: set.origin, seed: 99 }, { ...sweep, intensity: sweep.intensity!, passes: sweep.passes! });
    expect(cmp.passes.every((x) => x.rays.mismatch === 0 && x.intensity.mismatch === 0)).toBe(true);
    expectClean(cmp.returns, 2e-3, 'beam, noise, motion: beams');
    expect(sweep.returnCount!.filter((x) => x === 2).length).toBeGreaterThan(50);
    sensor.destroy();
    set.destroy();
  });
});

function differing(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let n = 0;
  for (let r = 0; r < a.length; r++) {
    n += a[r] === b[r] ? 0 : 1;
  }
  return n;
}
