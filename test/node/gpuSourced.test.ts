/**
 * Boxes that live on the GPU, in Node on Dawn (test/gpu/gpuSourced.test.ts runs the same
 * scenarios in Chromium, test/fixtures/gpuSourced.ts): a set sourced from a caller's buffer in
 * each layout, its derivation proven against float64 on random and adversarial sources, bad boxes
 * named and never returned by any query, frame loops with no CPU copy (picks; then picks, all
 * pairs and culling recorded into the caller's encoder, the pair list's overflow), and what the
 * set refuses, frees and keeps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BOX_FLAG_NAMES, CapacityError, GpuSourcedBoxSet, PAIR_LIST_DISPATCH_WG, PAIR_LIST_OVERFLOW_CANDIDATES, PAIR_LIST_OVERFLOW_LIST, StaleObjectError, ValidationError,
  type ObbGpu, type PairListBuffers, type PairListRead, type Plane,
} from '../../src/index.ts';
import { compareClosestHits, compareDerivedBoxes, compareFrustum, comparePairLists, formatComparison, mulberry32 } from '../../src/judge/index.ts';
import { allPairsSweep } from '../../src/reference/accel.ts';
import { pairListStatus } from '../../src/reference/pairs.ts';
import { HIT, packRays } from '../../src/layout/index.ts';
import animateWgsl from '../fixtures/animate.wgsl?raw';
import { BufferUsage } from '../../src/runtime/flags.ts';
import { createNodeGpu } from '../../src/node/runtime.ts';
import {
  adversarialSource, deriveScenario, frameScenario, LAYOUTS, queryScenario, randomSource, sourcedSet, unpackHits, type DeriveResult, type QueryResult, type Summary,
} from '../fixtures/gpuSourced.ts';
import { openNodeGpu, scoped, TEST_DRIVER } from './shared.ts';

let gpu: ObbGpu;
beforeAll(async () => {
  gpu = await openNodeGpu();
});
afterAll(() => {
  gpu?.destroy();
});

function expectNoMismatch(s: Summary, maxAmbiguous = 0): void {
  console.log(s.report);
  expect(s.mismatch, s.report).toBe(0);
  expect(s.agree + s.ambiguous).toBe(s.total);
  expect(s.ambiguous, s.report).toBeLessThanOrEqual(maxAmbiguous);
}

function expectDerived(r: DeriveResult): void {
  console.log(`${r.name}: ${r.flagged} flagged, ${r.ms.toFixed(0)} ms (refresh + read-back)`);
  expectNoMismatch(r.derived, Math.ceil(r.derived.total * 1e-3));
  expect(r.twinVsExpected).toEqual([]);
  expect(r.gpuVsExpected).toEqual([]);
  expect(r.statusFlagged).toBe(r.flagged);
}

describe('the derivation against float64', () => {
  it.each([
    ['mat4x4f', false, 1e6], ['mat4x4f', true, 1e3], ['mat3x4f', false, 1e6], ['mat3x4f', true, 1e3], ['obb', false, 1e6],
  ] as const)('random %s (per-instance local boxes: %s; translations within %d of an origin 1e6 out), 60,000 boxes (seed 21): zero mismatches', async (layout, perInstance, spread) => {
    await scoped(gpu, async () => {
      const c = randomSource(21, 60_000, layout, { centre: [1e6, -1e6, 5e5], spread, origin: [1e6, -1e6, 5e5], perInstance, padWords: 2, offsetWords: 70 });
      expectDerived(await deriveScenario(gpu, c));
    });
  });

  it('random mat4x4f with the origin left at the world origin, translations up to 1e6 (seed 22): zero mismatches, a wider centre bound', async () => {
    await scoped(gpu, async () => {
      expectDerived(await deriveScenario(gpu, randomSource(22, 20_000, 'mat4x4f', { spread: 1e6 })));
    });
  });

  it.each([
    ...LAYOUTS.map((l) => [l, false] as const), ['mat4x4f', true] as const, ['mat3x4f', true] as const,
  ])('adversarial %s (per-instance local boxes: %s; NaN, ±∞, zero and subnormal scale, shear at the tolerance, 1e-4 and 1e4 scales, negative scales, range), ×300: each bad box flagged by name', async (layout, perInstance) => {
    await scoped(gpu, async () => {
      const r = await deriveScenario(gpu, adversarialSource(layout, perInstance, 300));
      expectDerived(r);
      expect(r.flagged).toBeGreaterThan(0);
    });
  });
});

describe('bad boxes are never returned', () => {
  it.each(['mat4x4f', 'mat3x4f'] as const)('%s: rays (closest, any, all; brute and BVH), all pairs, cross, one vs many, listed pairs, frustum (plane and exact), LiDAR (seed 31)', async (layout) => {
    await scoped(gpu, async () => {
      const r: QueryResult = await queryScenario(gpu, 31, 3000, layout);
      expect(r.bad).toBe(600);
      for (const [family, f] of Object.entries(r.families)) {
        expect(f.returnedBad, family).toEqual([]);
        expectNoMismatch(f.summary, Math.ceil(f.summary.total * 1e-3));
      }
      console.log(`LiDAR: ${r.lidarReturns} returns, ${r.lidarReturnsOnBad} on bad boxes`);
      expect(r.lidarReturns).toBeGreaterThan(0);
      expect(r.lidarReturnsOnBad).toBe(0);
    });
  });
});

describe('a frame loop: animation pass → refresh → picks, one submission, no CPU copy', () => {
  it('brute-force picks: no queue.writeBuffer and no mapAsync in 30 frames of 20,000 animated instances; the last frame proven', async () => {
    await scoped(gpu, async () => {
      const r = await frameScenario(gpu, 20_000, 30, false);
      console.log(`${r.frames} frames, ${r.msPerFrame.toFixed(1)} ms each, ${r.flagged} flagged in the last; writes ${JSON.stringify(r.writes)}, maps ${JSON.stringify(r.maps)}`);
      expect(r.writes).toEqual([]);
      expect(r.maps).toEqual([]);
      expect(r.flagged).toBeGreaterThan(0);
      expectNoMismatch(r.derived, 20);
      expectNoMismatch(r.hits, 2);
      expect(r.hitsOnBad).toBe(0);
    });
  });

  it('picks walking the tree kept in the same encoder: no upload but the tree\'s parameters when the count changes, and its SAH read-back every 16 refits', async () => {
    await scoped(gpu, async () => {
      const frames = 32;
      const r = await frameScenario(gpu, 20_000, frames, true);
      console.log(`${r.frames} frames, ${r.msPerFrame.toFixed(1)} ms each, trees ${JSON.stringify(r.trees)}; writes ${r.writes.length} (${[...new Set(r.writes.map((w) => `${w.label} ${w.bytes} B`))].join(', ')}), maps ${JSON.stringify(r.maps)}`);
      // The tree's 16-byte parameters are written only when the box count changes (src/tree/Bvh.ts):
      // at most once, nothing else is written; the SAH probe maps once every 16 refits.
      expect(r.writes.every((w) => w.label.endsWith(':bvh:params') && w.bytes === 16), JSON.stringify(r.writes)).toBe(true);
      expect(r.writes.length).toBeLessThanOrEqual(1);
      expect(r.maps.every((m) => m.endsWith(':bvh:status-read'))).toBe(true);
      expect(r.maps.length).toBeLessThanOrEqual(Math.ceil(frames / 16) + 1);
      expectNoMismatch(r.derived, 20);
      expectNoMismatch(r.hits, 2);
      expect(r.hitsOnBad).toBe(0);
    });
  });
});

/** Counts every queue.writeBuffer (label, bytes) and mapAsync (label) on `device` while `body` runs. */
async function counted<T>(device: GPUDevice, probe: GPUBuffer, body: () => Promise<T>): Promise<{ result: T; writes: { label: string; bytes: number }[]; maps: string[] }> {
  const writes: { label: string; bytes: number }[] = [];
  const maps: string[] = [];
  const queue = device.queue;
  const write = queue.writeBuffer;
  const proto = Object.getPrototypeOf(probe) as { mapAsync: GPUBuffer['mapAsync'] };
  const mapAsync = proto.mapAsync;
  queue.writeBuffer = function (this: GPUQueue, buffer: GPUBuffer, offset: number, data: BufferSource | SharedArrayBuffer, dataOffset?: number, size?: number): void {
    writes.push({ label: buffer.label, bytes: size ?? ('byteLength' in data ? data.byteLength : 0) });
    (write as (...a: unknown[]) => void).call(this, buffer, offset, data, dataOffset, size);
  } as GPUQueue['writeBuffer'];
  proto.mapAsync = function (this: GPUBuffer, ...args: Parameters<GPUBuffer['mapAsync']>) {
    maps.push(this.label);
    return mapAsync.apply(this, args);
  };
  try {
    const result = await body();
    return { result, writes, maps };
  } finally {
    queue.writeBuffer = write;
    proto.mapAsync = mapAsync;
  }
}

/** The raw counters behind a list's status (test-only reads of its internal buffers). */
async function rawCounters(list: PairListBuffers): Promise<[number, number, number]> {
  const read = async (b: GPUBuffer): Promise<number> => new Uint32Array(await gpu.ctx.readback(b, 4))[0]!;
  return [await read(list.counter), await read(list.candidateCount), await read(list.stackOverflows)];
}


/** Six planes (n into the region, d) of the box x ∈ [−30, 40], y ∈ [−20, 50], z ∈ [−5, 5]: part of the animated ring. */
const CULL_PLANES: Plane[] = [[1, 0, 0, 30], [-1, 0, 0, 40], [0, 1, 0, 20], [0, -1, 0, 50], [0, 0, 1, 5], [0, 0, -1, 5]];

describe('a frame loop: animation pass → refresh → picks → all pairs → culling, one submission, no CPU copy', () => {
  it('20,000 animated instances, 24 frames (seed 404): no upload but the tree\'s parameters when the count changes, no map but its SAH probe; the last frame\'s pairs, picks and visible list proven', async () => {
    await scoped(gpu, async () => {
      const device = gpu.ctx.device;
      const count = 20_000;
      const frames = 24;
      const usage = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
      const matrices = device.createBuffer({ label: 'test:matrices', size: count * 64, usage });
      const frame = device.createBuffer({ label: 'test:frame', size: 16, usage: BufferUsage.STORAGE });
      const module = device.createShaderModule({ label: 'test/fixtures/animate.wgsl', code: animateWgsl });
      const animate = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'animate' } });
      const tick = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'tick' } });
      const animateGroup = device.createBindGroup({ layout: animate.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: frame } }, { binding: 1, resource: { buffer: matrices } }] });
      const tickGroup = device.createBindGroup({ layout: tick.getBindGroupLayout(0), entries: [{ binding: 0, resource: { buffer: frame } }] });
      const set = gpu.createBoxSet({ source: { buffer: matrices, layout: 'mat4x4f', count, localBox: { min: [-1, -0.5, -1], max: [1, 0.5, 1] } }, origin: [0, 0, 0] });
      const list = gpu.createPairList(16 * count);
      const culler = await gpu.createFrustumCuller(count);
      // Rays and planes reach the GPU once, before the loop (a GPU camera would write the planes itself).
      const rnd = mulberry32(404);
      const rayCount = 256;
      const rayData = new Float64Array(7 * rayCount);
      for (let k = 0; k < rayCount; k++) {
        const a = 2 * Math.PI * rnd();
        rayData.set([0, 0, 0.3 * rnd(), Math.cos(a), Math.sin(a), 0.02 * (rnd() - 0.5), Infinity], 7 * k);
      }
      const rays = { count: rayCount, data: rayData };
      const packedRays = new Uint8Array(packRays(rays, [0, 0, 0]));
      const rayBuffer = device.createBuffer({ label: 'test:rays', size: packedRays.byteLength, usage: BufferUsage.STORAGE | BufferUsage.COPY_DST });
      device.queue.writeBuffer(rayBuffer, 0, packedRays);
      const planeBuffer = device.createBuffer({ label: 'test:planes', size: 96, usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST });
      device.queue.writeBuffer(planeBuffer, 0, Float32Array.from(CULL_PLANES.flat()));
      const hits = device.createBuffer({ label: 'test:hits', size: rayCount * HIT.SIZE, usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC });
      const geometry = device.createBuffer({ label: 'test:geometry', size: rayCount * 32, usage: BufferUsage.STORAGE });
      const trees: Record<string, number> = {};
      const runFrame = async (): Promise<void> => {
        const enc = device.createCommandEncoder({ label: 'test:frame' });
        const pass = enc.beginComputePass({ label: 'test:animate' });
        pass.setPipeline(animate);
        pass.setBindGroup(0, animateGroup);
        pass.dispatchWorkgroups(Math.ceil(count / 64));
        pass.setPipeline(tick);
        pass.setBindGroup(0, tickGroup);
        pass.dispatchWorkgroups(1);
        pass.end();
        const r = await set.refresh(enc, { tree: 'build' });
        trees[r.tree] = (trees[r.tree] ?? 0) + 1;
        const tree = await gpu.bvhOf(set);
        await gpu.rays.encodeClosestHit(enc, set, rayBuffer, rayCount, hits, geometry, tree ? { tree } : {});
        await gpu.pairs.encodeAllPairs(enc, set, list, tree ? { tree } : {});
        await culler.encode(enc, set, { buffer: planeBuffer }, { indexCount: 36 });
        device.queue.submit([enc.finish()]);
      };
      try {
        // Two warm-up frames compile, allocate and write the parameters.
        await runFrame();
        await runFrame();
        await device.queue.onSubmittedWorkDone();
        const t0 = performance.now();
        const { writes, maps } = await counted(device, matrices, async () => {
          for (let f = 0; f < frames; f++) {
            await runFrame();
          }
          await device.queue.onSubmittedWorkDone();
        });
        const ms = (performance.now() - t0) / frames;
        console.log(`${frames} frames, ${ms.toFixed(1)} ms each, trees ${JSON.stringify(trees)}; writes ${JSON.stringify(writes)}, maps ${JSON.stringify(maps)}`);
        // The named exceptions (src/tree/Bvh.ts): the tree's 16-byte parameters when the box count
        // changes (not here: at most once), and its SAH probe mapped once every 16 refits.
        expect(writes.every((w) => w.label.endsWith(':bvh:params') && w.bytes === 16), JSON.stringify(writes)).toBe(true);
        expect(writes.length).toBeLessThanOrEqual(1);
        expect(maps.every((m) => m.endsWith(':bvh:status-read')), JSON.stringify(maps)).toBe(true);
        expect(maps.length).toBeLessThanOrEqual(Math.ceil(frames / 16) + 1);
        // The proof, after the frames: the boxes the GPU holds, then each answer against the reference on them.
        const back = await set.readBack();
        expect(compareDerivedBoxes(back.input, back.gpu).mismatch).toBe(0);
        const bad = new Set(back.bad.map((b) => b.index));
        expect(bad.size).toBeGreaterThan(0);
        const { pairs, status } = await list.read();
        const [found, candidates, stack] = await rawCounters(list);
        console.log(`pair list status ${JSON.stringify(status)}`);
        expect(status).toEqual(pairListStatus(found, candidates, stack, list.capacity, list.candidateCapacity));
        expect(status.overflow).toBe(0);
        expect(status.count).toBe(pairs.length / 2);
        expect(status.count).toBeGreaterThan(count / 4);
        const reference = allPairsSweep(back.gpu.boxes);
        const pairCmp = comparePairLists({ a: back.gpu.boxes, origin: set.origin }, pairs, reference);
        console.log(`all pairs: ${status.count} pairs (${candidates} candidates), reference ${reference.length / 2}; ${formatComparison(pairCmp, 3)}`);
        expect(pairCmp.mismatch, formatComparison(pairCmp, 3)).toBe(0);
        expect(pairCmp.ambiguous).toBeLessThanOrEqual(Math.ceil(pairCmp.total * 1e-3));
        expect(Array.from(pairs).filter((i) => bad.has(i))).toEqual([]);
        const closest = unpackHits(await gpu.ctx.readback(hits, rayCount * HIT.SIZE), rayCount);
        const hitCmp = compareClosestHits({ boxes: back.gpu.boxes, rays, origin: set.origin, options: { boxMasks: back.gpu.masks } }, closest);
        expect(hitCmp.mismatch, formatComparison(hitCmp, 3)).toBe(0);
        const drawArgs = new Uint32Array(await gpu.ctx.readback(culler.drawArgsBuffer, 20));
        const visible = new Uint32Array(await gpu.ctx.readback(culler.visibleBuffer, drawArgs[1]! * 4));
        const cullCmp = compareFrustum({ boxes: back.gpu.boxes, planes: CULL_PLANES, origin: set.origin }, visible);
        console.log(`culling (planes copied from a GPU buffer): ${visible.length} visible; ${formatComparison(cullCmp, 3)}`);
        expect(visible.length).toBeGreaterThan(0);
        expect(cullCmp.mismatch, formatComparison(cullCmp, 3)).toBe(0);
        expect(Array.from(visible).filter((i) => bad.has(i))).toEqual([]);
      } finally {
        list.destroy();
        culler.destroy();
        set.destroy();
        for (const b of [matrices, frame, rayBuffer, planeBuffer, hits, geometry]) {
          b.destroy();
        }
      }
    });
  });

  it('a list too small says so on the GPU and keeps its first pairs; too few candidates too; brute force without a tree; an empty set; destroy frees every list buffer (seed 61)', async () => {
    await scoped(gpu, async () => {
      gpu.trim();
      const live = gpu.ctx.liveBuffers;
      const c = randomSource(61, 3000, 'mat4x4f', { spread: 12, scales: [0.5, 3] });
      const { set, buffers } = sourcedSet(gpu, c);
      const lists = [gpu.createPairList(64, { candidateCapacity: 100_000 }), gpu.createPairList(100_000, { candidateCapacity: 256 }), gpu.createPairList(100_000)];
      try {
        await set.refresh(undefined, { tree: 'build' });
        const tree = await gpu.bvhOf(set);
        expect(tree).toBeDefined();
        const back = await set.readBack();
        const reference = allPairsSweep(back.gpu.boxes);
        const refSet = new Set(Array.from({ length: reference.length / 2 }, (_, k) => `${reference[2 * k]},${reference[2 * k + 1]}`));
        expect(refSet.size).toBeGreaterThan(300);
        const run = async (list: PairListBuffers, withTree: boolean): Promise<PairListRead> => {
          const enc = gpu.ctx.device.createCommandEncoder();
          await gpu.pairs.encodeAllPairs(enc, set, list, withTree && tree ? { tree } : {});
          gpu.ctx.device.queue.submit([enc.finish()]);
          const read = await list.read();
          const [found, candidates, stack] = await rawCounters(list);
          expect(read.status).toEqual(pairListStatus(found, candidates, stack, list.capacity, list.candidateCapacity));
          return read;
        };
        // Past the list's capacity: the first 64 found kept (each a real pair), the rest counted.
        const small = await run(lists[0]!, true);
        expect(small.status.overflow).toBe(PAIR_LIST_OVERFLOW_LIST);
        expect(small.status.count).toBe(64);
        expect(small.status.found).toBeGreaterThan(64);
        expect(small.status.dispatch).toEqual([1, 1, 1]);
        expect(Array.from({ length: 64 }, (_, k) => `${small.pairs[2 * k]},${small.pairs[2 * k + 1]}`).every((p) => refSet.has(p))).toBe(true);
        // Past the candidate list: the pairs among the candidates kept are tested, the rest never were.
        const starved = await run(lists[1]!, true);
        expect(starved.status.overflow & PAIR_LIST_OVERFLOW_CANDIDATES).toBe(PAIR_LIST_OVERFLOW_CANDIDATES);
        expect(starved.status.candidates).toBeGreaterThan(256);
        expect(starved.status.count).toBeLessThanOrEqual(256);
        // Brute force (no tree) and the tree give the reference's list.
        for (const withTree of [false, true]) {
          const full = await run(lists[2]!, withTree);
          expect(full.status.overflow).toBe(0);
          const cmp = comparePairLists({ a: back.gpu.boxes, origin: set.origin }, full.pairs, reference);
          expect(cmp.mismatch, formatComparison(cmp, 3)).toBe(0);
          expect(full.status.dispatch).toEqual([Math.ceil(full.status.count / PAIR_LIST_DISPATCH_WG), 1, 1]);
        }
        // A tree of another set, or a stale one, is refused in one line.
        const other = gpu.createBoxSet([{ center: [0, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] }, { center: [1, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] }]);
        await gpu.buildBvh(other);
        const otherTree = await gpu.bvhOf(other);
        await expect(gpu.pairs.encodeAllPairs(gpu.ctx.device.createCommandEncoder(), set, lists[2]!, { tree: otherTree })).rejects.toThrow(/tree must be the set's tree/);
        other.destroy();
        expect(() => gpu.createPairList(0)).toThrow(/capacity must be a positive integer/);
        // An empty set: a zero status.
        const empty = gpu.createBoxSet({ source: { buffer: buffers[0]!, layout: 'mat4x4f', count: 0, localBox: c.localBox! } });
        await empty.refresh();
        const none = await (async () => {
          const enc = gpu.ctx.device.createCommandEncoder();
          await gpu.pairs.encodeAllPairs(enc, empty, lists[0]!);
          gpu.ctx.device.queue.submit([enc.finish()]);
          return lists[0]!.read();
        })();
        expect(none.status).toEqual({ count: 0, found: 0, candidates: 0, overflow: 0, dispatch: [0, 0, 1] });
        empty.destroy();
        lists.forEach((l) => l.destroy());
        set.destroy();
        gpu.trim();
        expect(gpu.ctx.liveBuffers).toBe(live);
      } finally {
        lists.forEach((l) => l.destroy());
        set.destroy();
        buffers.forEach((b) => b.destroy());
      }
    });
  });

  it('culling with planes from a GPU buffer: refused with the exact test, without COPY_SRC, or short of 96 bytes', async () => {
    await scoped(gpu, async () => {
      const c = randomSource(62, 100, 'mat4x4f', { spread: 40 });
      const { set, buffers } = sourcedSet(gpu, c);
      const culler = await gpu.createFrustumCuller(100);
      const ok = gpu.ctx.device.createBuffer({ size: 96, usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC });
      const noCopy = gpu.ctx.device.createBuffer({ size: 96, usage: BufferUsage.STORAGE });
      try {
        await set.refresh();
        const enc = gpu.ctx.device.createCommandEncoder();
        await expect(culler.encode(enc, set, { buffer: ok }, { indexCount: 36, exact: true })).rejects.toThrow(/draw\.exact needs planes on the host/);
        await expect(culler.encode(enc, set, { buffer: noCopy }, { indexCount: 36 })).rejects.toThrow(/planes\.buffer needs GPUBufferUsage\.COPY_SRC/);
        await expect(culler.encode(enc, set, { buffer: ok, offset: 4 }, { indexCount: 36 })).rejects.toThrow(/planes\.offset must be a multiple of 4 with 96 bytes/);
      } finally {
        culler.destroy();
        set.destroy();
        buffers.forEach((b) => b.destroy());
        ok.destroy();
        noCopy.destroy();
      }
    });
  });
});

describe('the set', () => {
  const local = { min: [-1, -1, -1] as [number, number, number], max: [1, 1, 1] as [number, number, number] };
  const buffer = (size: number, usage: number = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST): GPUBuffer =>
    gpu.ctx.device.createBuffer({ size, usage });

  it('refuses what can be known before the GPU reads the buffer, with one clear line each', () => {
    const b = buffer(64 * 10);
    const make = (source: Record<string, unknown>, more: Record<string, unknown> = {}): unknown =>
      gpu.createBoxSet({ source: { buffer: b, layout: 'mat4x4f', count: 10, localBox: local, ...source } as never, ...more });
    const cases: [Record<string, unknown>, RegExp, Record<string, unknown>?][] = [
      [{ buffer: buffer(640, BufferUsage.VERTEX | BufferUsage.COPY_DST) }, /source\.buffer needs GPUBufferUsage\.STORAGE .*COPY_DST \| VERTEX/],
      [{ buffer: {} }, /source\.buffer must be a GPUBuffer/],
      [{ layout: 'mat4' }, /source\.layout must be 'mat4x4f', 'mat3x4f' or 'obb'/],
      [{ offset: 2 }, /source\.offset must be a multiple of 4/],
      [{ stride: 60 }, /source\.stride must be a multiple of 4 bytes of at least 64/],
      [{ count: 11 }, /exceeds the set's capacity 10|end at byte 704, beyond the buffer's 640 bytes/, { capacity: 11 }],
      [{ count: 11 }, /source\.count = 11 exceeds the set's capacity 10/, { capacity: 10 }],
      [{ offset: 4 }, /end at byte 644, beyond the buffer's 640 bytes/],
      [{ localBox: undefined }, /localBox \(one for every instance\) or localBoxes/],
      [{ layout: 'obb', localBox: local }, /is for matrix layouts/],
      [{ localBox: { min: [1, 0, 0], max: [0, 1, 1] } }, /localBox\.min\[0\] is greater than localBox\.max\[0\]/],
      [{ localBoxes: { buffer: buffer(24 * 10), stride: 20 }, localBox: undefined }, /localBoxes\.stride must be a multiple of 4 bytes of at least 24/],
      [{ extra: 1 }, /source has unknown key "extra"/],
      [{}, /origin must lie within ±1e\+30/, { origin: [1e31, 0, 0] }],
      [{}, /masks must be a Uint32Array of one mask per box \(10/, { masks: new Uint32Array(3) }],
    ];
    for (const [source, message, more] of cases) {
      let error: unknown;
      try {
        make(source, more);
      } catch (e) {
        error = e;
      }
      expect(error, String(message)).toBeInstanceOf(ValidationError);
      expect((error as Error).message).toMatch(message);
      expect((error as Error).message).not.toContain('\n');
    }
  });

  it('encodeClosestHit without geometry still takes one HitGeometry record (32 bytes) for its binding', async () => {
    const set = gpu.createBoxSet([{ center: [0, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] }]);
    try {
      const rays = buffer(48), hits = buffer(16);
      const enc = gpu.ctx.device.createCommandEncoder();
      await expect(gpu.rays.encodeClosestHit(enc, set, rays, 1, hits, buffer(16), { geometry: false }))
        .rejects.toThrow(/geometry must be a GPUBuffer of at least 32 bytes/);
      await expect(gpu.rays.encodeClosestHit(enc, set, rays, 1, hits, buffer(32), { geometry: false })).resolves.toBeUndefined();
      gpu.ctx.device.queue.submit([enc.finish()]);
      await gpu.ctx.device.queue.onSubmittedWorkDone();
    } finally {
      set.destroy();
    }
  });

  it('a source range beyond maxStorageBufferBindingSize is a CapacityError, checked before anything is allocated', async () => {
    const small = await createNodeGpu({ driver: TEST_DRIVER, limits: { maxStorageBufferBindingSize: 4096 } });
    try {
      const b = small.ctx.device.createBuffer({ size: 64 * 100, usage: BufferUsage.STORAGE | BufferUsage.COPY_SRC });
      const live = small.ctx.liveBuffers;
      expect(() => small.createBoxSet({ source: { buffer: b, layout: 'mat4x4f', count: 100, localBox: local }, capacity: 100 })).toThrow(CapacityError);
      expect(small.ctx.liveBuffers).toBe(live);
      b.destroy();
    } finally {
      small.destroy();
    }
  });

  it('has no boxes before its first refresh; count, origin and source change at a refresh; set/update are refused', async () => {
    await scoped(gpu, async () => {
      const c = randomSource(41, 100, 'mat4x4f', { spread: 50 });
      const { set, buffers } = sourcedSet(gpu, c, 300);
      try {
        expect(set).toBeInstanceOf(GpuSourcedBoxSet);
        expect(set.count).toBe(0);
        expect((await gpu.closestHit(set, [{ origin: [0, 0, 0], direction: [1, 0, 0] }])).box[0]).toBe(-1);
        expect(await set.refresh()).toEqual({ count: 100, tree: 'none' });
        expect(set.count).toBe(100);
        await expect(set.update(0, [])).rejects.toThrow(/write that buffer and refresh\(\), or setSource\(\)/);
        await expect(set.set([])).rejects.toThrow(ValidationError);
        // A larger source (within the capacity) and a new origin: applied at the next refresh.
        const more = randomSource(42, 250, 'mat3x4f', { spread: 50, origin: [10, 0, 0] });
        const { set: other, buffers: moreBuffers } = sourcedSet(gpu, more);
        other.destroy();
        buffers.push(...moreBuffers);
        await set.setSource({ buffer: moreBuffers[0]!, layout: 'mat3x4f', count: 250, localBox: more.localBox! });
        await set.rebase([10, 0, 0]);
        expect(set.count).toBe(100);
        expect(set.origin).toEqual([0, 0, 0]);
        const version = set.shapeVersion;
        await set.refresh();
        expect(set.count).toBe(250);
        expect(set.origin).toEqual([10, 0, 0]);
        expect(set.shapeVersion).toBeGreaterThan(version);
        const back = await set.readBack();
        expect(back.count).toBe(250);
        const cmp = compareDerivedBoxes(back.input, back.gpu);
        expect(cmp.mismatch).toBe(0);
        await expect(set.setSource({ buffer: moreBuffers[0]!, layout: 'mat3x4f', count: 301, localBox: more.localBox! })).rejects.toThrow(/capacity 300/);
      } finally {
        set.destroy();
        buffers.forEach((b) => b.destroy());
      }
    });
  });

  it('masks: the caller\'s masks filter rays, a flagged box stays masked out whatever its mask', async () => {
    await scoped(gpu, async () => {
      const c = adversarialSource('mat4x4f');
      const { set, buffers } = sourcedSet(gpu, c);
      try {
        await set.refresh();
        const good = Array.from({ length: c.count }, (_, i) => i).filter((i) => (c.expect.get(i) ?? []).length === 0);
        const bad = Array.from({ length: c.count }, (_, i) => i).filter((i) => (c.expect.get(i) ?? []).length > 0);
        await set.setMasks(new Uint32Array(c.count).fill(0b10));
        await set.setMasksAt([good[0]!, bad[0]!], new Uint32Array([0b01, 0b01]));
        const back = await set.readBack();
        expect(back.gpu.masks[good[0]!]).toBe(0b01);
        expect(back.gpu.masks[good[1]!]).toBe(0b10);
        expect(back.gpu.masks[bad[0]!]).toBe(0);
        expect(set.masks[good[0]!]).toBe(0b01);
        expect(compareDerivedBoxes(back.input, back.gpu).mismatch).toBe(0);
        // The identity box sits at the origin: a ray with mask 0b01 hits it, one with 0b10 does not.
        const hits = await gpu.closestHit(set, [{ origin: [-10, 0, 0], direction: [1, 0, 0] }, { origin: [-10, 0, 0], direction: [1, 0, 0] }], { rayMasks: new Uint32Array([0b01, 0b10]) });
        expect(hits.box[0]).toBe(good[0]);
        expect(hits.box[1]).not.toBe(good[0]);
      } finally {
        set.destroy();
        buffers.forEach((b) => b.destroy());
      }
    });
  });

  it('readStatus counts the last refresh\'s bad boxes by reason; readBack needs COPY_SRC and names the bad boxes', async () => {
    await scoped(gpu, async () => {
      const c = adversarialSource('mat3x4f');
      const { set, buffers } = sourcedSet(gpu, c);
      try {
        await set.refresh();
        const status = await set.readStatus();
        const back = await set.readBack();
        expect(status.flagged).toBe(back.bad.length);
        for (const name of BOX_FLAG_NAMES) {
          expect(status.byFlag[name], name).toBe(back.bad.filter((b) => b.reasons.includes(name)).length);
        }
        expect(back.bad.find((b) => b.reasons.includes('shear'))).toBeDefined();
        const noCopy = gpu.ctx.device.createBuffer({ size: 48, usage: BufferUsage.STORAGE });
        const s2 = gpu.createBoxSet({ source: { buffer: noCopy, layout: 'mat3x4f', count: 1, localBox: local } });
        await s2.refresh();
        await expect(s2.readBack()).rejects.toThrow(/source\.buffer needs GPUBufferUsage\.COPY_SRC to be read back/);
        s2.destroy();
        noCopy.destroy();
      } finally {
        set.destroy();
        buffers.forEach((b) => b.destroy());
      }
    });
  });

  it('frees what it made and nothing of the caller\'s; its tree goes with it; readBack with refresh: true reads the same submission', async () => {
    await scoped(gpu, async () => {
      gpu.trim();
      const before = gpu.ctx.liveBuffers;
      const c = randomSource(43, 2000, 'mat4x4f', { spread: 40 });
      const { set, buffers } = sourcedSet(gpu, c);
      const r = await set.refresh(undefined, { tree: 'build' });
      expect(r.tree).toBe('rebuild');
      expect((await set.refresh()).tree).toBe('refit');
      const back = await set.readBack({ refresh: true });
      expect(compareDerivedBoxes(back.input, back.gpu).mismatch).toBe(0);
      set.destroy();
      set.destroy();
      gpu.trim();
      expect(gpu.ctx.liveBuffers).toBe(before);
      // The caller's buffer is still the caller's: mappable and intact.
      const copy = gpu.ctx.device.createBuffer({ size: 64, usage: BufferUsage.COPY_DST | BufferUsage.MAP_READ });
      const enc = gpu.ctx.device.createCommandEncoder();
      enc.copyBufferToBuffer(buffers[0]!, 0, copy, 0, 64);
      gpu.ctx.device.queue.submit([enc.finish()]);
      await copy.mapAsync(1);
      expect(Array.from(new Float32Array(copy.getMappedRange()))).toEqual(Array.from(c.words.subarray(0, 16)));
      copy.unmap();
      copy.destroy();
      buffers.forEach((b) => b.destroy());
      await expect(set.refresh()).rejects.toThrow(StaleObjectError);
    });
  });

  it('does not survive recover(): its source died with the old device (StaleObjectError)', async () => {
    const own = await openNodeGpu();
    try {
      const c = randomSource(44, 10, 'mat4x4f');
      const { set } = sourcedSet(own, c);
      await set.refresh();
      own.ctx.device.destroy();
      await own.recover();
      await expect(set.refresh()).rejects.toThrow(StaleObjectError);
      await expect(own.closestHit(set, [{ origin: [0, 0, 0], direction: [1, 0, 0] }])).rejects.toThrow(StaleObjectError);
    } finally {
      own.destroy();
    }
  });
});
