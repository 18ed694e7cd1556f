/**
 * Per-laser data on the GPU (Dawn in Node): each channel's beam-origin height (verticalOffsets)
 * and firing time (firingTimeOffsets) in both sweep methods — every ray a frame of its own in the
 * setup table, the moving boxes at each firing time, the raster method's chunk bounds over every
 * ray (src/lidar/motionRecords.ts). Every sweep is judged ray by ray against the float64 oracle
 * (compareLidarSweep), the raster method equals the tree's ray by ray, and the offsets are shown
 * to change the answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boxArrayFrom, linearElevations, type BoxArray, type BoxMotion, type LidarDescription, type LidarPose, type ObbGpu } from '../../src/index.ts';
import { compareLidarSweep, mulberry32, randomBoxes } from '../../src/judge/index.ts';
import { compareLidarIntensity } from '../../src/compare/lidar.ts';
import { lidarPreset } from '../../src/lidar/index.ts';
import { lidarSweepReference } from '../../src/reference/index.ts';
import { expectClean, openNodeGpu, scoped } from './shared.ts';

let gpu: ObbGpu;
beforeAll(async () => {
  gpu = await openNodeGpu();
});
afterAll(() => {
  gpu?.destroy();
});

const deg = Math.PI / 180;

/** Random boxes in a ring 2–40 m around `offset`, their centres within ±3 m of its height. */
function street(n: number, seed: number, offset: readonly [number, number, number]): BoxArray {
  const rnd = mulberry32(seed);
  const boxes = randomBoxes(n, rnd, { extent: 40, offset: [offset[0], offset[1], offset[2]], halfMin: 0.3, halfMax: 2.5 });
  for (let i = 0; i < n; i++) {
    boxes.data[i * 15 + 2] = offset[2] + (rnd() - 0.5) * 6;
  }
  return boxes;
}

function differing(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let n = 0;
  for (let r = 0; r < a.length; r++) {
    n += a[r] === b[r] ? 0 : 1;
  }
  return n;
}

/** A random sensor with per-laser data: heights up to ±0.25 m, firings anywhere in the column's period. */
function randomSensor(seed: number): LidarDescription {
  const rnd = mulberry32(seed);
  const C = 8 + Math.floor(rnd() * 12);
  const A = [180, 256, 360][seed % 3]!;
  const T = 0.1;
  const clockwise = seed % 2 === 0;
  return {
    elevations: linearElevations(C, -25 + rnd() * 5, 10 + rnd() * 10),
    azimuthSteps: A,
    azimuthStart: clockwise ? 2 * Math.PI : 0,
    azimuthEnd: clockwise ? 0 : 2 * Math.PI,
    ...(seed % 3 === 1 ? { azimuthOffsets: Array.from({ length: C }, () => (rnd() - 0.5) * 6 * deg) } : {}),
    ...(seed % 4 === 1 ? { beamOriginOffset: 0.05 * rnd() } : {}),
    verticalOffsets: Array.from({ length: C }, () => (rnd() - 0.5) * 0.5),
    // Some channels fire together (a firing-time group of several channels).
    firingTimeOffsets: Array.from({ length: C }, (_, c) => (c % 3 === 0 ? 0 : Math.floor(rnd() * 4) * 0.24 * (T / A))),
    minRange: 0.3,
    maxRange: 100,
    sweepTime: T,
  };
}

const offset: [number, number, number] = [3.1e5, -2.2e5, 12];
const pose: LidarPose = { origin: [offset[0], offset[1], offset[2] + 1.8], rotation: [0, 0, Math.sin(0.35), Math.cos(0.35)] };
const poseEnd: LidarPose = { origin: [offset[0] + 2.5, offset[1] - 0.4, offset[2] + 1.8], rotation: [0.01, 0, Math.sin(0.6), Math.cos(0.6)] };

function movingBoxes(boxes: BoxArray, seed: number): BoxMotion {
  const list = Array.from({ length: boxes.count }, (_, i) => i).filter((i) => i % 4 === 1);
  const rnd = mulberry32(seed);
  return {
    boxes: list,
    velocity: list.flatMap(() => [(rnd() - 0.5) * 80, (rnd() - 0.5) * 80, (rnd() - 0.5) * 4]),
    angularVelocity: list.flatMap(() => [0, 0, (rnd() - 0.5) * 10]),
  };
}

describe('per-laser beam origins and firing times, GPU against the float64 oracle', () => {
  it.each([[20261201], [20261202], [20261203]])('random sensor, seed %i: static, moving sensor, moving boxes — raster equals tree, both judged clean', async (seed) => {
    const desc = randomSensor(seed);
    const boxes = street(400, seed, offset);
    const set = gpu.createBoxSet(boxes);
    const raster = await gpu.createLidar(desc);
    const tree = await gpu.createLidar(desc, { method: 'bvh' });
    expect(raster.method).toBe('raster');
    const boxMotion = movingBoxes(boxes, seed + 1);
    const cases: [string, { poseEnd?: LidarPose; boxMotion?: BoxMotion }][] = [
      ['static', {}], ['moving sensor', { poseEnd }], ['moving sensor and boxes', { poseEnd, boxMotion }], ['moving boxes', { boxMotion }],
    ];
    for (const [label, motion] of cases) {
      const [a, b] = await scoped(gpu, () => gpu.lidarSweepMany(set, [{ sensor: raster, pose, options: motion }, { sensor: tree, pose, options: motion }]));
      const input = { boxes, desc, pose, motion, origin: set.origin };
      const ca = compareLidarSweep(input, a!);
      expectClean(ca, 1e-3, `seed ${seed}, ${label} (raster)`);
      expectClean(compareLidarSweep(input, b!), 1e-3, `seed ${seed}, ${label} (tree)`);
      // Both methods read every ray's frame from the same setup table: the same t.
      expect(differing(a!.box, b!.box), label).toBe(0);
      expect(differing(a!.range, b!.range), label).toBe(0);
      expect(a!.box.filter((x) => x >= 0).length, label).toBeGreaterThan(300);
      // The per-laser data changes the answer: the oracle without it disagrees somewhere.
      const plain = { ...desc, verticalOffsets: desc.verticalOffsets!.map(() => 0), firingTimeOffsets: desc.firingTimeOffsets!.map(() => 0) };
      expect(differing(lidarSweepReference(boxes, plain, pose, motion).box, a!.box), label).toBeGreaterThan(0);
    }
    raster.destroy();
    tree.destroy();
    set.destroy();
  });

  it('the VLP-32C and VLS-128 presets with their tables, moving: judged clean, raster equals tree, intensities judged', async () => {
    const boxes = street(600, 31, offset);
    const set = gpu.createBoxSet(boxes);
    const boxMotion = movingBoxes(boxes, 32);
    for (const name of ['velodyne-vlp32c', 'velodyne-vls128'] as const) {
      const desc = lidarPreset(name, { columns: 240 });
      expect(desc.firingTimeOffsets).toBeDefined();
      const raster = await gpu.createLidar(desc);
      const tree = await gpu.createLidar(desc, { method: 'bvh' });
      const options = { poseEnd, boxMotion, intensity: true };
      const [a, b] = await scoped(gpu, () => gpu.lidarSweepMany(set, [{ sensor: raster, pose, options }, { sensor: tree, pose, options }]));
      const input = { boxes, desc, pose, motion: { poseEnd, boxMotion }, origin: set.origin };
      const cmp = compareLidarSweep(input, a!);
      expectClean(cmp, 1e-3, name);
      expect(differing(a!.box, b!.box), name).toBe(0);
      expectClean(compareLidarIntensity(input, { range: a!.range, box: a!.box, intensity: a!.intensity! }, cmp.ambiguousRays), 1e-3, `${name} intensity`);
      raster.destroy();
      tree.destroy();
    }
    set.destroy();
  });
});

describe('per-laser data, adversarial', () => {
  it('a beam origin inside a box (a 0.3 m lift into a box over the sensor) and firing times at the column\'s end past fast boxes', async () => {
    const A = 90;
    const T = 0.1;
    const desc: LidarDescription = {
      elevations: [-0.2, 0, 0.05, 0.2], azimuthSteps: A, maxRange: 60, minRange: 0.05, sweepTime: T,
      verticalOffsets: [0, 0.3, -0.3, 0],
      firingTimeOffsets: [0, (T / A) * (1 - 2 ** -40), 0.5 * (T / A), (T / A) * (1 - 1e-9)],
    };
    const o = pose.origin;
    // A slab over the sensor whose inside holds channel 1's beam origins (0.3 m up, 0.25–0.35 m;
    // 10 m long, so the moving sensor's 3 m stay inside it);
    // a ring of fast boxes crossing the view; a room around it all.
    const inputs = [
      { center: [o[0], o[1], o[2] + 0.3] as [number, number, number], halfExtents: [5, 0.5, 0.05] as [number, number, number], rotation: [0, 0, 0, 1] as [number, number, number, number] },
      ...Array.from({ length: 24 }, (_, k) => {
        const phi = (2 * Math.PI * k) / 24;
        return { center: [o[0] + 8 * Math.cos(phi), o[1] + 8 * Math.sin(phi), o[2]] as [number, number, number], halfExtents: [0.6, 0.6, 2] as [number, number, number], rotation: [0, 0, Math.sin(phi / 2), Math.cos(phi / 2)] as [number, number, number, number] };
      }),
      // A closed room 20 m out: every ray that misses the ring meets a wall.
      ...[[20, 0, 1, 25], [-20, 0, 1, 25], [0, 20, 25, 1], [0, -20, 25, 1]].map(([x, y, hx, hy]) => ({
        center: [o[0] + x!, o[1] + y!, o[2]] as [number, number, number], halfExtents: [hx!, hy!, 15] as [number, number, number], rotation: [0, 0, 0, 1] as [number, number, number, number],
      })),
    ];
    const boxes = boxArrayFrom(inputs);
    const set = gpu.createBoxSet(boxes);
    // The ring spins fast (its boxes cross a column's width in well under a column's time).
    const ring = Array.from({ length: 24 }, (_, k) => 1 + k);
    const boxMotion: BoxMotion = { boxes: ring, velocity: ring.flatMap((i) => [-300 * Math.sin((2 * Math.PI * (i - 1)) / 24), 300 * Math.cos((2 * Math.PI * (i - 1)) / 24), 0]), angularVelocity: ring.flatMap(() => [0, 0, 40]) };
    for (const method of ['raster', 'bvh'] as const) {
      const sensor = await gpu.createLidar(desc, { method });
      for (const motion of [{}, { boxMotion }, { boxMotion, poseEnd: { origin: [o[0] + 3, o[1], o[2]] as [number, number, number], rotation: pose.rotation! } }]) {
        const sweep = await scoped(gpu, () => gpu.lidarSweep(sensor, set, pose, { ...motion, fields: true }));
        const cmp = compareLidarSweep({ boxes, desc, pose, motion, origin: set.origin }, sweep);
        expectClean(cmp, 0.05, `${method}, ${Object.keys(motion).join('+') || 'static'}`);
        // Channel 1 starts inside the slab: it occludes at t = 0 (nearer than minRange), so no return.
        for (let a = 0; a < A; a++) {
          expect(sweep.box[A + a]).toBe(-1);
        }
        // Channel 2, 0.3 m down, is out of the slab and sees the ring or the wall.
        expect(sweep.box.subarray(2 * A, 3 * A).filter((x) => x >= 0).length).toBe(A);
        // Each point's time is its firing time.
        expect(sweep.fields!.time[3 * A + 5]).toBeCloseTo((5 * T) / A + desc.firingTimeOffsets![3]!, 15);
      }
      sensor.destroy();
    }
    set.destroy();
  });
});
