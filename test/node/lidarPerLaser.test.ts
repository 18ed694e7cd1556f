/**
 * Per-laser data on the GPU (Dawn in Node): each channel's beam-origin height (verticalOffsets)
 * and firing time (firingTimeOffsets) in both sweep methods — every ray a frame of its own in the
 * setup table, the moving boxes at each firing time, the raster method's chunk bounds over every
 * ray (src/lidar/motionRecords.ts); still, the raster method's static path with each channel's
 * beam origin lifted (LIDAR_LIFT), nothing per ray uploaded. Every sweep is judged ray by ray against the float64 oracle
 * (compareLidarSweep), the raster method equals the tree's ray by ray, and the offsets are shown
 * to change the answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boxArrayFrom, linearElevations, type BoxArray, type BoxMotion, type LidarDescription, type LidarPose, type ObbGpu } from '../../src/index.ts';
import { compareLidarSweep, mulberry32 } from '../../src/judge/index.ts';
import { compareLidarIntensity } from '../../src/compare/lidar.ts';
import { lidarPreset } from '../../src/lidar/index.ts';
import { lidarSweepReference } from '../../src/reference/index.ts';
import { expectClean, openNodeGpu, scoped, street } from './shared.ts';

let gpu: ObbGpu;
beforeAll(async () => {
  gpu = await openNodeGpu();
});
afterAll(() => {
  gpu?.destroy();
});

const deg = Math.PI / 180;


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
      // With motion (or a beam-origin circle with firing times) both methods read every ray's
      // frame from the same setup table: the same t. Still, the raster method lifts its rays in
      // float32 (LIDAR_LIFT): the same boxes wherever the oracle is not ambiguous.
      if (label === 'static' && (desc.beamOriginOffset ?? 0) === 0) {
        expect(Array.from(a!.box).filter((x, r) => x !== b!.box[r] && !ca.ambiguousRays.has(r)).length, label).toBe(0);
      } else {
        expect(differing(a!.box, b!.box), label).toBe(0);
        expect(differing(a!.range, b!.range), label).toBe(0);
      }
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

describe('per-laser data, nothing moving: the static raster path', () => {
  /** Bytes handed to queue.writeBuffer while `body` runs. */
  async function uploaded<T>(body: () => Promise<T>): Promise<{ result: T; bytes: number }> {
    const queue = gpu.ctx.device.queue;
    const write = queue.writeBuffer;
    let bytes = 0;
    queue.writeBuffer = function (this: GPUQueue, buffer: GPUBuffer, offset: number, data: BufferSource | SharedArrayBuffer, dataOffset?: number, size?: number): void {
      bytes += size ?? ('byteLength' in data ? data.byteLength : 0);
      (write as (...a: unknown[]) => void).call(this, buffer, offset, data, dataOffset, size);
    } as GPUQueue['writeBuffer'];
    try {
      return { result: await body(), bytes };
    } finally {
      queue.writeBuffer = write;
    }
  }

  it.each([['velodyne-vlp16'], ['velodyne-vlp32c']] as const)('%s still (and with poseEnd = pose): no frame per ray uploaded (raster: none, tree: one per channel), judged clean, the lifts matter', async (name) => {
    const boxes = street(500, 16, offset);
    const set = gpu.createBoxSet(boxes);
    const desc = lidarPreset(name, { columns: 600 });
    expect(desc.verticalOffsets!.some((v) => v !== 0) && desc.firingTimeOffsets!.some((f) => f !== 0)).toBe(true);
    const raster = await gpu.createLidar(desc);
    const tree = await gpu.createLidar(desc, { method: 'bvh' });
    const C = desc.elevations.length;
    const A = desc.azimuthSteps;
    for (const motion of [{}, { poseEnd: pose }]) {
      // Warm (the pipelines, the sensor's buffers), then count what one sweep uploads.
      await scoped(gpu, () => gpu.lidarSweep(raster, set, pose, motion));
      const { result: sweep, bytes } = await uploaded(() => scoped(gpu, () => gpu.lidarSweep(raster, set, pose, motion)));
      // The motion path uploads a frame per ray (64 bytes each); the static path its parameters only.
      expect(bytes, `${name} ${JSON.stringify(Object.keys(motion))}`).toBeLessThan(1024);
      expect(sweep.method).toBe('raster');
      const input = { boxes, desc, pose, motion, origin: set.origin };
      const cmp = compareLidarSweep(input, sweep);
      expectClean(cmp, 1e-3, `${name} still (raster)`);
      expect(sweep.box.filter((x) => x >= 0).length).toBeGreaterThan(C * A / 4);
      // The tree method (frames rounded once on the host, one per channel: C × 64 bytes) agrees
      // wherever the oracle is not ambiguous.
      await scoped(gpu, () => gpu.lidarSweep(tree, set, pose, motion));
      const { result: walked, bytes: treeBytes } = await uploaded(() => scoped(gpu, () => gpu.lidarSweep(tree, set, pose, motion)));
      expect(treeBytes).toBeLessThan(64 * C + 1024);
      // A frame per channel is the frames per ray's bits: with intensity (whose stage reads a
      // frame per ray, so the tree is given them all) the same ranges and boxes.
      const perRay = await scoped(gpu, () => gpu.lidarSweep(tree, set, pose, { ...motion, intensity: true }));
      expect(differing(perRay.range, walked.range)).toBe(0);
      expect(differing(perRay.box, walked.box)).toBe(0);
      expectClean(compareLidarSweep(input, walked), 1e-3, `${name} still (tree)`);
      let apart = 0;
      for (let r = 0; r < C * A; r++) {
        apart += walked.box[r] !== sweep.box[r] && !cmp.ambiguousRays.has(r) ? 1 : 0;
      }
      expect(apart).toBe(0);
      // The lifts change the answer: the oracle without them disagrees with the sweep somewhere.
      const flat = { ...desc, verticalOffsets: desc.verticalOffsets!.map(() => 0) };
      expect(differing(lidarSweepReference(boxes, flat, pose, motion).box, sweep.box)).toBeGreaterThan(0);
    }
    // Moving, both take the motion path again: a frame per ray uploaded.
    for (const sensor of [raster, tree]) {
      const { bytes } = await uploaded(() => scoped(gpu, () => gpu.lidarSweep(sensor, set, pose, { poseEnd })));
      expect(bytes).toBeGreaterThan(64 * C * A);
    }
    raster.destroy();
    tree.destroy();
    set.destroy();
  });
});
