/**
 * Suite `host`: the runtime around the kernels: BoxSet updates and growth, masks, rejected
 * updates, ordering of queries and updates, results left on the GPU, compile-error mapping,
 * buffer lifetime, empty inputs.
 */
import { BoxSet, ObbGpu, ShaderCompileError, ValidationError, linearElevations, rayArrayFrom, type BoxArray, type RayArray } from '../../../../src/index.ts';
import { compareClosestHits, formatComparison, mulberry32, randomBoxes, randomRays } from '../../../../src/judge/index.ts';
import { closestHit } from '../../../../src/reference/index.ts';
import { GpuContext, HIT, HIT_GEOMETRY, linkShader, packRays, CHUNKS } from '../../../../src/advanced.ts';
import { throwOnCompileErrors } from '../../../../src/runtime/pipelines.ts';
import { scoped, summarize } from '../shared.ts';

function scene(seed: number, boxes: number, rays: number): { boxes: BoxArray; rays: RayArray } {
  const rnd = mulberry32(seed);
  const b = randomBoxes(boxes, rnd, { extent: 10, halfMin: 0.2, halfMax: 2 });
  return { boxes: b, rays: randomRays(rays, b, rnd, { extent: 15, aimed: 0.8 }) };
}

/** set → update part → grow with set → masks: each state checked against the reference. */
export async function updates(seed: number) {
  return scoped(async (gpu) => {
    const a = scene(seed, 100, 3000);
    const b = scene(seed + 1, 300, 1);
    const set = gpu.createBoxSet(a.boxes, { capacity: 100 });
    const reports: { label: string; summary: ReturnType<typeof summarize>; hits: number }[] = [];
    try {
      const check = async (label: string, boxes: BoxArray, masks?: Uint32Array) => {
        const hits = await gpu.closestHit(set, a.rays);
        const options = masks ? { boxMasks: masks } : {};
        const cmp = compareClosestHits({ boxes, rays: a.rays, options, origin: set.origin }, hits);
        reports.push({ label, summary: summarize(cmp, 2), hits: hits.box.filter((x) => x >= 0).length });
      };
      await check('initial', a.boxes);
      // Partial update: boxes 10..59 replaced by boxes of the other scene.
      const part = { count: 50, data: b.boxes.data.slice(0, 50 * 15) };
      await set.update(10, part);
      const updated = a.boxes.data.slice();
      updated.set(part.data, 10 * 15);
      await check('after update(10, 50 boxes)', { count: 100, data: updated });
      // A rejected update (NaN in box 3 of the batch) must leave everything as it was.
      const bad = part.data.slice(0, 5 * 15);
      bad[3 * 15 + 1] = NaN;
      let rejected = '';
      try {
        await set.update(0, { count: 5, data: bad });
      } catch (e) {
        rejected = e instanceof ValidationError ? e.message : `wrong error: ${String(e)}`;
      }
      await check('after rejected update', { count: 100, data: updated });
      // Growth beyond capacity.
      await set.set(b.boxes);
      await check('after set(300 boxes): grown', b.boxes);
      // Masks: only boxes with bit 1 can be hit by default rays (mask all bits) — use a pattern.
      const masks = Uint32Array.from({ length: 300 }, (_, i) => (i % 3 === 0 ? 0 : 1));
      await set.setMasks(masks);
      await check('after setMasks', b.boxes, masks);
      return { reports, rejected, count: set.count };
    } finally {
      set.destroy();
    }
  });
}

/**
 * 32 queries issued back to back while the set is being replaced between them: each must answer
 * for the boxes as they were when it was issued.
 */
export async function concurrency(seed: number) {
  return scoped(async (gpu) => {
    const states = [0, 1, 2, 3].map((k) => scene(seed + k, 120, 1).boxes);
    const rays = scene(seed, 120, 2000).rays;
    const set = gpu.createBoxSet(states[0]!);
    try {
      const pending: { promise: Promise<{ box: Int32Array }>; state: number }[] = [];
      const updates: Promise<void>[] = [];
      for (let q = 0; q < 32; q++) {
        const state = Math.floor(q / 8);
        if (q % 8 === 0 && q > 0) {
          updates.push(set.set(states[state]!));
        }
        pending.push({ promise: gpu.closestHit(set, rays), state });
      }
      await Promise.all(updates);
      let wrong = 0;
      for (const p of pending) {
        const got = await p.promise;
        const want = closestHit(states[p.state]!, rays);
        for (let r = 0; r < rays.count; r++) {
          if (got.box[r] !== want.box[r]) {
            wrong++;
          }
        }
      }
      // The states must differ, or the test proves nothing.
      const differ = closestHit(states[0]!, rays).box.some((b, r) => b !== closestHit(states[3]!, rays).box[r]);
      return { wrong, differ, queries: pending.length };
    } finally {
      set.destroy();
    }
  });
}

/** Results left on the GPU (closestHitBuffers), read back by hand, equal the typed-array path. */
export async function buffers(seed: number) {
  return scoped(async (gpu) => {
    const { boxes, rays } = scene(seed, 200, 1000);
    const set = gpu.createBoxSet(boxes);
    try {
      const typed = await gpu.closestHit(set, rays, { geometry: true });
      const out = await gpu.closestHitBuffers(set, rays);
      const hits = new Uint32Array(await gpu.ctx.readback(out.hits, rays.count * HIT.SIZE));
      const geo = new Float32Array(await gpu.ctx.readback(out.geometry, rays.count * HIT_GEOMETRY.SIZE));
      let differences = 0;
      for (let r = 0; r < rays.count; r++) {
        const box = hits[r * 4 + 1]!;
        if ((box === 0xffffffff ? -1 : box) !== typed.box[r]) {
          differences++;
        }
        if (typed.box[r]! >= 0) {
          // Geometry points are relative to the set's floating origin.
          for (let k = 0; k < 3; k++) {
            const world = geo[r * 8 + k]! + set.origin[k]!;
            if (Math.abs(world - typed.point![3 * r + k]!) > 1e-3) {
              differences++;
            }
          }
        }
      }
      // encodeClosestHit into the caller's encoder, rays already on the GPU.
      const device = gpu.ctx.device;
      const rayBuf = device.createBuffer({ size: rays.count * 48, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
      device.queue.writeBuffer(rayBuf, 0, packRays(rays, set.origin));
      const hitBuf = device.createBuffer({ size: rays.count * 16, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
      const geoBuf = device.createBuffer({ size: rays.count * 32, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
      const enc = device.createCommandEncoder();
      await gpu.rays.encodeClosestHit(enc, set, rayBuf, rays.count, hitBuf, geoBuf);
      device.queue.submit([enc.finish()]);
      const encoded = new Uint32Array(await gpu.ctx.readback(hitBuf, rays.count * 16));
      let encodedDifferences = 0;
      for (let r = 0; r < rays.count; r++) {
        const box = encoded[r * 4 + 1]!;
        if ((box === 0xffffffff ? -1 : box) !== typed.box[r]) {
          encodedDifferences++;
        }
      }
      rayBuf.destroy();
      hitBuf.destroy();
      geoBuf.destroy();
      out.destroy();
      return { differences, encodedDifferences, hits: typed.box.filter((b) => b >= 0).length };
    } finally {
      set.destroy();
    }
  });
}

/** A WGSL error in a chunk is reported at that chunk's file and line. */
export async function compileError() {
  const gpu = await ObbGpu.create();
  try {
    const broken = { file: 'shaders/test/broken.wgsl', code: 'fn ok() -> f32 {\n  return 1.0;\n}\nfn bad() -> f32 {\n  return undefinedThing;\n}\n' };
    const linked = linkShader('obb:broken', [CHUNKS.types, broken]);
    const module = gpu.ctx.device.createShaderModule({ code: linked.code });
    const info = await module.getCompilationInfo();
    try {
      throwOnCompileErrors(linked, info.messages);
      return { thrown: false, file: '', line: 0, message: '' };
    } catch (e) {
      const err = e as ShaderCompileError;
      return { thrown: err instanceof ShaderCompileError, file: err.file, line: err.line, message: err.message };
    }
  } finally {
    gpu.destroy();
  }
}

/** Empty sets and empty ray batches are valid and give empty results. */
export async function empty() {
  return scoped(async (gpu) => {
    const none = gpu.createBoxSet([]);
    const one = gpu.createBoxSet([{ center: [0, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] }]);
    try {
      const ray = [{ origin: [-5, 0, 0] as const, direction: [1, 0, 0] as const }];
      const a = await gpu.closestHit(none, ray);
      const b = await gpu.closestHit(one, []);
      const c = await gpu.allPairs(none);
      const d = await gpu.allHits(none, ray);
      const e = await gpu.obbPairs(one, []);
      return { missOnEmpty: a.box[0], noRays: b.count, noPairs: c.count, noHits: d.count, noPairResults: e.count };
    } finally {
      none.destroy();
      one.destroy();
    }
  });
}

/**
 * 1,000 create/query/destroy cycles on one live context: sets of 100 boxes (brute force) and of
 * 600 (the tree, accel 'auto'), live buffers counted after every cycle while the context lives
 * (by the context and by wrapping createBuffer); after gpu.trim() none is left, before
 * gpu.destroy().
 */
export async function lifetime(cycles: number) {
  const gpu = await ObbGpu.create();
  const device = gpu.ctx.device;
  let created = 0;
  const live = new Set<GPUBuffer>();
  // Count every buffer the library creates on this device.
  const create = device.createBuffer.bind(device);
  device.createBuffer = (descriptor: GPUBufferDescriptor) => {
    const b = create(descriptor);
    created++;
    live.add(b);
    const destroy = b.destroy.bind(b);
    b.destroy = () => {
      live.delete(b);
      destroy();
    };
    return b;
  };
  const small = scene(5, 20, 50);
  const large = scene(6, 600, 50);
  const liveAfter: number[] = [];
  const countedAfter: number[] = [];
  for (let i = 0; i < cycles; i++) {
    const { boxes, rays } = i % 2 === 0 ? small : large;
    const set = gpu.createBoxSet(boxes);
    await gpu.closestHit(set, rays);
    if (i % 100 === 0) {
      await gpu.allHits(set, rays);
      await gpu.allPairs(set);
    }
    set.destroy();
    liveAfter.push(gpu.ctx.liveBuffers);
    countedAfter.push(live.size);
  }
  gpu.trim();
  const afterTrim = gpu.ctx.liveBuffers;
  const countedAfterTrim = live.size;
  gpu.destroy();
  return {
    created, maxLive: Math.max(...liveAfter), liveAfterFirstTwo: Math.max(liveAfter[0]!, liveAfter[1]!),
    countedAgree: countedAfter.every((c, i) => c === liveAfter[i]), afterTrim, countedAfterTrim, afterDestroy: live.size,
  };
}

/**
 * Readbacks of alternating sizes through the context's kept staging buffers: every one returns
 * its own bytes (never a previous, larger readback's), and the live buffers stop growing.
 */
export async function stagingReuse(rounds: number) {
  const gpu = await ObbGpu.create();
  try {
    const ctx = gpu.ctx;
    const sizes = [4, 1000, 300_000, 1000, 4];
    const sources = sizes.map((size, k) => {
      const buffer = ctx.createBuffer({ size: Math.ceil(size / 4) * 4, usage: GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
      return { buffer, size, k };
    });
    // Count the mappable buffers created from here on.
    let staged = 0;
    const device = ctx.device;
    const create = device.createBuffer.bind(device);
    device.createBuffer = (d: GPUBufferDescriptor) => {
      staged += (d.usage & GPUBufferUsage.MAP_READ) !== 0 ? 1 : 0;
      return create(d);
    };
    let wrong = 0;
    let liveAfterFirst = 0;
    for (let round = 0; round < rounds; round++) {
      for (const { buffer, size, k } of sources) {
        const words = new Uint32Array(Math.ceil(size / 4)).map((_, i) => (round * 7919 + k * 104729 + i) >>> 0);
        ctx.device.queue.writeBuffer(buffer, 0, words);
        const back = new Uint32Array(await ctx.readback(buffer, words.byteLength));
        if (back.length !== words.length || back.some((x, i) => x !== words[i])) {
          wrong++;
        }
      }
      if (round === 0) {
        liveAfterFirst = ctx.liveBuffers;
      }
    }
    // Concurrent readbacks each hold their own staging buffer.
    const concurrent = await Promise.all(sources.map(({ buffer, size }) => ctx.readback(buffer, Math.ceil(size / 4) * 4)));
    return { wrong, liveAfterFirst, liveAfterAll: ctx.liveBuffers, staged, concurrentSizes: concurrent.map((b) => b.byteLength) };
  } finally {
    gpu.destroy();
  }
}

/** Queries on a destroyed set or context fail with a clear error. */
export async function misuse() {
  const gpu = await ObbGpu.create();
  const set = gpu.createBoxSet([{ center: [0, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] }]);
  set.destroy();
  const errors: string[] = [];
  try {
    await gpu.closestHit(set, [{ origin: [0, 0, -5], direction: [0, 0, 1] }]);
  } catch (e) {
    errors.push((e as Error).message);
  }
  gpu.destroy();
  try {
    BoxSet.create(gpu.ctx, []);
  } catch (e) {
    errors.push(`${(e as Error).name}: ${(e as Error).message}`);
  }
  return { errors, ctxIsGpuContext: gpu.ctx instanceof GpuContext };
}

/** The quick start of README, "Quick start", step by step, with what it prints. */
export async function quickStart() {
  const gpu = await ObbGpu.create();
  try {
    const set = gpu.createBoxSet([
      { center: [0, 0, 0], halfExtents: [1, 1, 1], axes: [[1, 0, 0], [0, 1, 0], [0, 0, 1]] },
      { center: [5, 0, 0], halfExtents: [1, 2, 1], rotation: [0, 0, 0.3826834, 0.9238795] },
    ]);
    const rays = rayArrayFrom([{ origin: [-10, 0, 0], direction: [1, 0, 0], maxDistance: 100 }]);
    const hits = await gpu.closestHit(set, rays, { geometry: true });
    const cmp = compareClosestHits({ boxes: set.boxes, rays, origin: set.origin }, hits);
    const pairs = await gpu.obbPairs(set, [[0, 1]]);
    const all = await gpu.allPairs(set);
    const lidar = await gpu.createLidar({ elevations: linearElevations(128, -25, 15), azimuthSteps: 2048, maxRange: 200 });
    const sweep = await gpu.lidarSweep(lidar, set, { origin: [-10, 0, 0] });
    const out = {
      box: hits.box[0], t: hits.t[0], face: hits.face[0], point: Array.from(hits.point ?? []), normal: Array.from(hits.normal ?? []),
      report: formatComparison(cmp).split('\n')[0], overlap: pairs.overlap[0], allPairs: Array.from(all.pairs),
      method: lidar.method, rays: sweep.range.length, returns: sweep.box.filter((b) => b >= 0).length,
      noReturn: sweep.range.filter((t) => t === -1).length,
    };
    lidar.destroy();
    set.destroy();
    return out;
  } finally {
    gpu.destroy();
  }
}
