/**
 * Lifetimes and failure paths (issue #18), observed where a user observes them: through the public
 * API, on a context that stays alive. Every test here failed on the code before the fix (the
 * closing note of #18 lists what each one saw then).
 *
 * - Live buffers: each kind of object (set, its tree, grid, LiDAR sensor of either method, frustum
 *   culler, hit buffers handed out) is created, queried and destroyed over many cycles; the
 *   context's live-buffer count must not grow from one cycle to the next, and once everything is
 *   destroyed and the caches trimmed (`gpu.trim()`) it is 0. The count is taken twice: by the
 *   context (`ctx.liveBuffers`) and independently by wrapping the device's `createBuffer`.
 * - Host memory: destroyed sets are collectable (WeakRef cleared after `gc()`).
 * - Fail-fast capacity: a set, ray batch or culler beyond the device's budget is refused with a
 *   CapacityError naming the limit and the real bytes, before the input is read or copied.
 * - One error discipline: every public async method rejects (never throws), with the library's
 *   own error classes; destroyed, stale (after `recover()`) and foreign objects say so in one line;
 *   loss errors name the query the user called; device labels are unique.
 */
import { runInNewContext } from 'node:vm';
import { setFlagsFromString } from 'node:v8';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CapacityError, DeviceLostError, GpuError, ObbGpu, StaleObjectError, ValidationError, frustumPlanes, linearElevations, type BoxInput, type RayArray } from '../../src/index.ts';
import { mulberry32, randomBoxes, randomRays } from '../../src/judge/index.ts';
import { createNodeGpu } from '../../src/node/runtime.ts';
import { openNodeGpu, scoped, TEST_DRIVER } from './shared.ts';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

let gpu: ObbGpu;

/** Wraps the device's createBuffer: the buffers made on it and not yet destroyed, counted outside the library. */
function countOutside(device: GPUDevice): Set<GPUBuffer> {
  const live = new Set<GPUBuffer>();
  const create = device.createBuffer.bind(device);
  device.createBuffer = (descriptor: GPUBufferDescriptor): GPUBuffer => {
    const buffer = create(descriptor);
    live.add(buffer);
    const destroy = buffer.destroy.bind(buffer);
    buffer.destroy = () => {
      live.delete(buffer);
      destroy();
    };
    return buffer;
  };
  return live;
}

beforeAll(async () => {
  gpu = await openNodeGpu();
});
afterAll(() => {
  gpu?.destroy();
});

const rnd = mulberry32(1818);
const boxes600 = randomBoxes(600, rnd, { extent: 30, halfMin: 0.2, halfMax: 1.5 });
const boxes100 = randomBoxes(100, rnd, { extent: 30, halfMin: 0.2, halfMax: 1.5 });
const boxes3000 = randomBoxes(3000, rnd, { extent: 60, halfMin: 0.2, halfMax: 1.5 });
const rays = randomRays(256, boxes600, rnd, { extent: 35 });
const box: BoxInput = { center: [0, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] };

/**
 * Runs `cycle` `n` times on a fresh ObbGpu; after each, the live buffers (both counts) must equal
 * those after the second cycle (the first fills the pool and staging caches). Then, once the
 * caches are trimmed, no buffer is left at all.
 */
async function noGrowth(name: string, n: number, cycle: (gpu: ObbGpu, i: number) => Promise<void>): Promise<void> {
  const own = await openNodeGpu();
  const counted = countOutside(own.ctx.device);
  try {
    await scoped(own, async () => {
      expect(own.ctx.liveBuffers, `${name}: live buffers before the first cycle`).toBe(0);
      const live: number[] = [];
      const outsideCounts: number[] = [];
      for (let i = 0; i < n; i++) {
        await cycle(own, i);
        live.push(own.ctx.liveBuffers);
        outsideCounts.push(counted.size);
      }
      console.log(`${name}: live buffers after cycles 1, 2, ${n}: ${live[0]}, ${live[1]}, ${live[n - 1]} (counted outside: ${outsideCounts[n - 1]})`);
      for (let i = 2; i < n; i++) {
        expect(live[i], `${name}: live buffers after cycle ${i + 1} (after cycle 2: ${live[1]})`).toBe(live[1]);
      }
      expect(outsideCounts).toEqual(live);
      own.trim();
      expect(own.ctx.liveBuffers, `${name}: live buffers once everything is destroyed and the caches trimmed`).toBe(0);
      expect(counted.size).toBe(0);
    });
  } finally {
    own.destroy();
  }
}

describe('every object frees what it owns when destroyed, while the context lives', () => {
  it('a set of 600 boxes queried through its tree (accel auto): 200 create/closestHit/destroy cycles', async () => {
    await noGrowth('closestHit, tree', 200, async (gpu) => {
      const set = gpu.createBoxSet(boxes600);
      await gpu.closestHit(set, rays);
      set.destroy();
    });
  });

  it('brute force (100 boxes): closest, any and all hits (capacity 1), 50 cycles', async () => {
    await noGrowth('rays, brute', 50, async (gpu) => {
      const set = gpu.createBoxSet(boxes100);
      await gpu.closestHit(set, rays, { geometry: true });
      await gpu.anyHit(set, rays);
      await gpu.allHits(set, rays, { capacity: 1 });
      set.destroy();
    });
  });

  it('the tree: any and all hits (capacity 1), buildBvh, update (refit), set (rebuild, grown), rebase, 30 cycles', async () => {
    await noGrowth('rays, tree, changes', 30, async (gpu) => {
      const set = gpu.createBoxSet(boxes600);
      await gpu.buildBvh(set);
      await gpu.anyHit(set, rays, { accel: 'bvh' });
      await set.update(0, { count: 50, data: boxes600.data.slice(0, 50 * 15) });
      await gpu.allHits(set, rays, { accel: 'bvh', capacity: 1 });
      await set.set({ count: 700, data: Float64Array.from([...boxes600.data, ...boxes100.data]) });
      await gpu.closestHit(set, rays, { accel: 'bvh' });
      await set.rebase([5, 5, 5]);
      await gpu.closestHit(set, rays, { accel: 'bvh' });
      set.destroy();
    });
  });

  it('all pairs through the grid, the tree and brute force at capacity 1, listed pairs, one-vs-many, cross pairs, 20 cycles', async () => {
    await noGrowth('pairs', 20, async (gpu) => {
      const set = gpu.createBoxSet(boxes3000);
      const other = gpu.createBoxSet(boxes600);
      expect((await gpu.allPairs(set, { accel: 'grid', capacity: 1 })).grid).toBe(true);
      expect((await gpu.allPairs(set, { accel: 'bvh', capacity: 1, contacts: true })).bvh).toBe(true);
      await gpu.allPairs(other, { accel: 'brute', capacity: 1 });
      await gpu.obbPairs(set, [[0, 1], [2, 3]]);
      await gpu.obbOneVsMany(box, set);
      await gpu.obbCross(set, other, { accel: 'bvh', capacity: 1 });
      await gpu.obbCross(other, set, { accel: 'brute' });
      other.destroy();
      set.destroy();
    });
  });

  it('LiDAR sensors of both methods, created, swept and destroyed, 20 cycles', async () => {
    const elevations = linearElevations(16, -15, 15);
    await noGrowth('lidar', 20, async (gpu) => {
      const set = gpu.createBoxSet(boxes600);
      for (const method of ['raster', 'bvh'] as const) {
        const sensor = await gpu.createLidar({ elevations, azimuthSteps: 256, maxRange: 100 }, { method, ...(method === 'raster' ? { listCapacity: 1 } : {}) });
        await gpu.lidarSweep(sensor, set, { origin: [0, 0, 0] }, { points: true });
        sensor.destroy();
      }
      set.destroy();
    });
  });

  it('frustum cullers and hit buffers handed out, 30 cycles', async () => {
    const m = Float64Array.from([0.1, 0, 0, 0, 0, 0.1, 0, 0, 0, 0, -0.01, 0, 0, 0, 0, 1]);
    await noGrowth('frustum, hit buffers', 30, async (gpu) => {
      const set = gpu.createBoxSet(boxes600);
      const culler = await gpu.createFrustumCuller(set.count);
      await gpu.frustumCull(culler, set, frustumPlanes(m));
      culler.destroy();
      const out = await gpu.closestHitBuffers(set, rays.count > 0 ? rays : []);
      out.destroy();
      set.destroy();
    });
  });

  it('destroying the ObbGpu frees what its objects still held', async () => {
    const other = await openNodeGpu();
    const counted = countOutside(other.ctx.device);
    const set = other.createBoxSet(boxes600);
    await other.closestHit(set, rays);
    await other.createLidar({ elevations: [0], azimuthSteps: 8, maxRange: 10 });
    await other.createFrustumCuller(16);
    expect(other.ctx.liveBuffers).toBeGreaterThan(20);
    other.destroy();
    expect(other.ctx.liveBuffers).toBe(0);
    expect(counted.size).toBe(0);
  });
});

describe('host memory', () => {
  it('destroyed sets are garbage (20 sets of 10,000 boxes, brute force and tree): none reachable after gc()', async () => {
    const big = randomBoxes(10_000, mulberry32(7), { extent: 100, halfMin: 0.2, halfMax: 1.5 });
    const refs: WeakRef<object>[] = [];
    // In a function of its own: a suspended async frame may keep its last local alive.
    const cycle = async (accel: 'brute' | 'bvh'): Promise<void> => {
      const set = gpu.createBoxSet(big);
      await gpu.closestHit(set, rays, { accel });
      set.destroy();
      refs.push(new WeakRef(set), new WeakRef(set.boxes.data));
    };
    for (let i = 0; i < 20; i++) {
      await cycle(i % 2 === 0 ? 'brute' : 'bvh');
    }
    // WeakRefs hold their targets until the current job ends.
    for (let k = 0; k < 3; k++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      gc();
    }
    const reachable = refs.filter((r) => r.deref() !== undefined).length;
    console.log(`reachable after gc: ${reachable} of ${refs.length} (sets and their float64 host copies)`);
    expect(reachable).toBe(0);
  });
});

describe('host memory of waiting on the device', () => {
  it('work awaited while the device lives is not kept by the wait (2,000 waits, each value collectable)', async () => {
    const refs: WeakRef<object>[] = [];
    const wait = async (): Promise<void> => {
      const value = { payload: new Float64Array(16) };
      refs.push(new WeakRef(value));
      await gpu.ctx.whileAlive('test', Promise.resolve(value));
    };
    for (let i = 0; i < 2000; i++) {
      await wait();
    }
    for (let k = 0; k < 3; k++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      gc();
    }
    expect(refs.filter((r) => r.deref() !== undefined).length).toBe(0);
  });
});

/** Resolves to the error `call` rejects with; fails if it throws synchronously or resolves. */
async function rejection(what: string, call: () => Promise<unknown>): Promise<Error> {
  let promise: Promise<unknown>;
  try {
    promise = call();
  } catch (error) {
    throw new Error(`${what} threw synchronously instead of rejecting: ${String(error)}`);
  }
  expect(promise, what).toBeInstanceOf(Promise);
  try {
    await promise;
  } catch (error) {
    expect(error, what).toBeInstanceOf(Error);
    return error as Error;
  }
  throw new Error(`${what} resolved`);
}

const LIBRARY_ERRORS = [ValidationError, CapacityError, DeviceLostError, StaleObjectError, GpuError];
function expectLibraryError(what: string, error: Error): void {
  expect(LIBRARY_ERRORS.some((c) => error instanceof c), `${what}: ${error.name}: ${error.message}`).toBe(true);
  expect(error.message, `${what}: one line`).not.toMatch(/\n/);
}

describe('capacity checked first, from counts and strides', () => {
  let small: ObbGpu;
  beforeAll(async () => {
    // A 64 KiB budget: 1,365 boxes of 48 bytes, 16,384 frustum entries.
    small = await createNodeGpu({ driver: TEST_DRIVER, limits: { maxStorageBufferBindingSize: 65_536, maxBufferSize: 200_000 } });
  });
  afterAll(() => {
    small?.destroy();
  });

  it('a set over the budget is refused before its boxes are read (a Proxy counts the reads)', () => {
    let reads = 0;
    const items = Array.from({ length: 4000 }, () => box);
    const watched = new Proxy(items, {
      get(target, key, receiver) {
        if (typeof key === 'string' && /^\d+$/.test(key)) {
          reads++;
        }
        return Reflect.get(target, key, receiver) as unknown;
      },
    });
    let error: unknown;
    try {
      small.createBoxSet(watched);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(CapacityError);
    const c = error as CapacityError;
    console.log(c.message);
    expect(c.limit).toBe('maxStorageBufferBindingSize');
    expect(c.requested).toBe(4000 * 48);
    expect(c.available).toBe(65_536);
    expect(c.message).toMatch(/4000 boxes/);
    expect(c.message).toMatch(/192000 bytes/);
    expect(reads).toBe(0);
  });

  it('a BoxArray over the budget is refused before validation (an invalid first box is not reported)', () => {
    const data = new Float64Array(4000 * 15);
    data[0] = NaN;
    expect(() => small.createBoxSet({ count: 4000, data })).toThrow(CapacityError);
  });

  it('a box count that is not a count is named: count NaN, negative, fractional, data too short', () => {
    for (const count of [NaN, -1, 2.5]) {
      expect(() => small.createBoxSet({ count, data: new Float64Array(30) })).toThrow(/boxes\.count/);
    }
    expect(() => small.createBoxSet({ count: 3, data: new Float64Array(30) })).toThrow(/boxes\.data/);
  });

  it('rays over the budget: the real bytes (240,000, not a rounded size) and the limit that binds', async () => {
    const set = small.createBoxSet([box]);
    const many = { count: 5000, data: new Float64Array(5000 * 7) } satisfies RayArray;
    for (const call of [() => small.closestHit(set, many), () => small.anyHit(set, many), () => small.allHits(set, many)]) {
      const e = await rejection('rays over the budget', call);
      expect(e).toBeInstanceOf(CapacityError);
      expect((e as CapacityError).requested).toBe(240_000);
      console.log(e.message);
    }
    set.destroy();
  });

  it('a tree whose wide records would not fit (1,000 boxes: 48,000 B of boxes fit, 127,872 B of records do not): auto takes brute force, bvh is refused with the bytes', async () => {
    const boxes = randomBoxes(1000, mulberry32(5), { extent: 20, halfMin: 0.1, halfMax: 1 });
    const set = small.createBoxSet(boxes);
    expect(small.accelFor('rays', 1000)).toBe('brute');
    expect(gpu.accelFor('rays', 1000)).toBe('bvh');
    const rays = randomRays(200, boxes, mulberry32(6), { extent: 30 });
    const hits = await small.closestHit(set, rays);
    const roomy = gpu.createBoxSet(boxes);
    expect(Array.from(hits.box)).toEqual(Array.from((await gpu.closestHit(roomy, rays, { accel: 'bvh' })).box));
    roomy.destroy();
    const e = await rejection('closestHit accel bvh', () => small.closestHit(set, rays, { accel: 'bvh' }));
    expect(e).toBeInstanceOf(CapacityError);
    expect((e as CapacityError).requested).toBe(999 * 128);
    expect(e.message).toMatch(/BVH wide records/);
    console.log(e.message);
    set.destroy();
  });

  it('a frustum culler over the budget is refused; a capacity that is not a count is named', async () => {
    const e = await rejection('createFrustumCuller(100000)', () => small.createFrustumCuller(100_000));
    expect(e).toBeInstanceOf(CapacityError);
    expect((e as CapacityError).requested).toBe(400_000);
    for (const capacity of [NaN, 0, 1.5]) {
      expect(await rejection('createFrustumCuller', () => small.createFrustumCuller(capacity))).toBeInstanceOf(ValidationError);
    }
  });
});

describe('one error discipline', () => {
  it('every public async method rejects (never throws) on bad arguments, with the library\'s errors', async () => {
    const set = gpu.createBoxSet(boxes100);
    const sensor = await gpu.createLidar({ elevations: [0], azimuthSteps: 8, maxRange: 10 });
    const culler = await gpu.createFrustumCuller(200);
    const bad = 'foo' as never;
    const calls: [string, () => Promise<unknown>][] = [
      ['closestHit accel', () => gpu.closestHit(set, rays, { accel: bad })],
      ['closestHitBuffers accel', () => gpu.closestHitBuffers(set, rays, { accel: bad })],
      ['anyHit accel', () => gpu.anyHit(set, rays, { accel: bad })],
      ['allHits accel', () => gpu.allHits(set, rays, { accel: bad })],
      ['allHits capacity', () => gpu.allHits(set, rays, { capacity: -1 })],
      ['allPairs accel', () => gpu.allPairs(set, { accel: bad })],
      ['obbCross accel', () => gpu.obbCross(set, set, { accel: bad })],
      ['obbPairs pairs', () => gpu.obbPairs(set, bad)],
      ['obbOneVsMany box', () => gpu.obbOneVsMany(bad, set)],
      ['closestHit set', () => gpu.closestHit(bad, rays)],
      ['closestHit rays', () => gpu.closestHit(set, bad)],
      ['lidarSweep pose', () => gpu.lidarSweep(sensor, set, bad)],
      ['lidarSweep sensor', () => gpu.lidarSweep(bad, set, { origin: [0, 0, 0] })],
      ['frustumCull planes', () => gpu.frustumCull(culler, set, bad)],
      ['frustumCull culler', () => gpu.frustumCull(bad, set, [])],
      ['createLidar', () => gpu.createLidar(bad)],
      ['createFrustumCuller', () => gpu.createFrustumCuller(bad)],
      ['buildBvh', () => gpu.buildBvh(bad)],
      ['bvhOf', () => gpu.bvhOf(bad)],
      ['BoxSet.update', () => set.update(-1, [box])],
      ['BoxSet.set', () => set.set(bad)],
      ['BoxSet.setMasks', () => set.setMasks(bad)],
      ['BoxSet.rebase', () => set.rebase(bad)],
    ];
    for (const [what, call] of calls) {
      expectLibraryError(what, await rejection(what, call));
    }
    sensor.destroy();
    culler.destroy();
    set.destroy();
  });

  it('a destroyed set, sensor or culler says so in one line, naming the query', async () => {
    const set = gpu.createBoxSet(boxes100);
    const live = gpu.createBoxSet(boxes100);
    const sensor = await gpu.createLidar({ elevations: [0], azimuthSteps: 8, maxRange: 10 });
    const culler = await gpu.createFrustumCuller(200);
    set.destroy();
    sensor.destroy();
    culler.destroy();
    const cases: [string, RegExp, () => Promise<unknown>][] = [
      ['closestHit', /^closestHit: BoxSet "boxes" was destroyed/, () => gpu.closestHit(set, rays)],
      ['allPairs', /^allPairs: BoxSet "boxes" was destroyed/, () => gpu.allPairs(set)],
      ['obbCross', /^obbCross: BoxSet "boxes" was destroyed/, () => gpu.obbCross(live, set)],
      ['update', /^BoxSet\.update: BoxSet "boxes" was destroyed/, () => set.update(0, [box])],
      ['lidarSweep', /^lidarSweep: LidarSensor was destroyed/, () => gpu.lidarSweep(sensor, live, { origin: [0, 0, 0] })],
      ['frustumCull', /^frustumCull: FrustumCuller was destroyed/, () => gpu.frustumCull(culler, live, frustumPlanes(Float64Array.from([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1])))],
    ];
    for (const [what, pattern, call] of cases) {
      const e = await rejection(what, call);
      expect(e, what).toBeInstanceOf(StaleObjectError);
      expect((e as StaleObjectError).reason).toBe('destroyed');
      expect(e.message).toMatch(pattern);
      expectLibraryError(what, e);
    }
    live.destroy();
  });

  it('objects of another ObbGpu are refused in one line', async () => {
    const other = await openNodeGpu();
    try {
      const foreign = other.createBoxSet(boxes100);
      const sensor = await other.createLidar({ elevations: [0], azimuthSteps: 8, maxRange: 10 });
      const culler = await other.createFrustumCuller(200);
      const set = gpu.createBoxSet(boxes100);
      const planes = frustumPlanes(Float64Array.from([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1]));
      for (const [what, call] of [
        ['closestHit', () => gpu.closestHit(foreign, rays)],
        ['obbCross', () => gpu.obbCross(set, foreign)],
        ['lidarSweep', () => gpu.lidarSweep(sensor, set, { origin: [0, 0, 0] })],
        ['frustumCull', () => gpu.frustumCull(culler, set, planes)],
      ] as const) {
        const e = await rejection(what, call);
        expect(e, what).toBeInstanceOf(ValidationError);
        expect(e.message).toMatch(/another GPU context/);
        expectLibraryError(what, e);
      }
      set.destroy();
    } finally {
      other.destroy();
    }
  });

  it('a sensor or culler made before recover() is stale after it: a one-line StaleObjectError, not driver text', async () => {
    const own = await openNodeGpu();
    try {
      const set = own.createBoxSet(boxes600);
      const sensors = await Promise.all((['raster', 'bvh'] as const).map((method) => own.createLidar({ elevations: [0, 0.1], azimuthSteps: 64, maxRange: 50 }, { method })));
      const culler = await own.createFrustumCuller(1000);
      const planes = frustumPlanes(Float64Array.from([0.1, 0, 0, 0, 0, 0.1, 0, 0, 0, 0, -0.01, 0, 0, 0, 0, 1]));
      await own.frustumCull(culler, set, planes);
      await own.recover();
      for (const sensor of sensors) {
        const e = await rejection(`lidarSweep (${sensor.method}) after recover`, () => own.lidarSweep(sensor, set, { origin: [0, 0, 0] }));
        console.log(e.message);
        expect(e).toBeInstanceOf(StaleObjectError);
        expect((e as StaleObjectError).reason).toBe('device-replaced');
        expect(e.message).toMatch(/^lidarSweep: LidarSensor .*create it again/);
        expect(e.message.length).toBeLessThan(200);
        expectLibraryError('lidarSweep', e);
      }
      const e = await rejection('frustumCull after recover', () => own.frustumCull(culler, set, planes));
      expect(e).toBeInstanceOf(StaleObjectError);
      expect(e.message).toMatch(/^frustumCull: FrustumCuller .*create it again/);
      // The set itself is rebuilt on the new device, and new sensors and grids work there.
      const fresh = await own.createLidar({ elevations: [0, 0.1], azimuthSteps: 64, maxRange: 50 });
      expect((await own.lidarSweep(fresh, set, { origin: [0, 0, 0] })).range.length).toBe(128);
      const grid = own.createBoxSet(boxes3000);
      expect((await own.allPairs(grid, { accel: 'grid' })).grid).toBe(true);
      fresh.destroy();
      grid.destroy();
    } finally {
      own.destroy();
    }
  });

  it('a lost device: every query in flight and after rejects with DeviceLostError naming the query the user called', async () => {
    const own = await openNodeGpu();
    try {
      const set = own.createBoxSet(boxes600);
      const big = own.createBoxSet(boxes3000);
      await own.closestHit(set, rays);
      const named: [string, () => Promise<unknown>][] = [
        ['closestHit', () => own.closestHit(set, rays)],
        ['closestHitBuffers', () => own.closestHitBuffers(set, rays)],
        ['anyHit', () => own.anyHit(set, rays)],
        ['allHits', () => own.allHits(set, rays)],
        ['allPairs', () => own.allPairs(big)],
        ['obbCross', () => own.obbCross(set, big)],
        ['obbPairs', () => own.obbPairs(set, [[0, 1]])],
        ['obbOneVsMany', () => own.obbOneVsMany(box, set)],
        ['buildBvh', () => own.buildBvh(big)],
      ];
      // In flight: issued, then the device goes.
      const inFlight = named.map(([what, call]) => [what, call()] as const);
      inFlight.forEach(([, p]) => p.catch(() => undefined));
      own.ctx.device.destroy();
      const results = [...inFlight];
      for (const [what, call] of named) {
        results.push([what, call()]);
      }
      for (const [what, promise] of results) {
        const e = await rejection(what, () => promise);
        expect(e, what).toBeInstanceOf(DeviceLostError);
        expect(e.message, what).toMatch(new RegExp(`^${what}: `));
        expectLibraryError(what, e);
      }
    } finally {
      own.destroy();
    }
  });

  it('each device gets its own label', async () => {
    const other = await openNodeGpu();
    try {
      expect(other.ctx.device.label).not.toBe(gpu.ctx.device.label);
    } finally {
      other.destroy();
    }
  });
});
