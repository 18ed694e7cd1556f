/**
 * WGSL variants of the tree walk, timed against each other (bench/variants.ts drives it): each
 * variant is a list of text edits to the shader chunks (src/runtime/shaders.ts CHUNKS), applied
 * before a device of its own compiles its pipelines, so every variant runs its own code on its
 * own device over the same boxes and the same tree build. The picking-1024 closest-hit kernel is
 * then timed by timestamp queries, one sample of every variant per round (interleaved, so the
 * machine's drift falls on all of them alike), with the rays in the order a host batch walks
 * them (RayKernelTuning.sortRays). Each variant's answers are compared with the first's: a
 * variant meant to cost more without changing the walk (doing a part twice) must differ in
 * nothing, and one that does differ says so.
 *
 * For measuring where a kernel's time goes on an adapter (the "measure both shapes and
 * keep what wins where"), not for the benchmark tables.
 */
import { ObbGpu, RAY_F64 } from '../../../src/index.ts';
import { HIT, RAY, packRays } from '../../../src/advanced.ts';
import { directionOrder } from '../../../src/rays/RayQueries.ts';
import { CHUNKS } from '../../../src/runtime/shaders.ts';
import { stats } from '../measure.ts';
import { pickingRays, pickingScene } from '../scenes.ts';

/** One text edit: every occurrence of `from` in chunk `chunk` replaced by `to`. */
export interface ShaderEdit {
  readonly chunk: keyof typeof CHUNKS;
  readonly from: string;
  readonly to: string;
}

export interface VariantTiming {
  readonly name: string;
  readonly median_ms: number;
  readonly min_ms: number;
  readonly max_ms: number;
  readonly runs: number;
  /** Rays whose box differs from the first variant's. */
  readonly differing: number;
}

type Chunks = Record<string, { code: string }>;

/** The chunks with `edits` applied to their original text (throws naming an edit that matches nothing). */
function applyEdits(name: string, edits: readonly ShaderEdit[], original: Record<string, string>): void {
  const chunks = CHUNKS as unknown as Chunks;
  for (const [k, c] of Object.entries(chunks)) {
    c.code = original[k]!;
  }
  for (const e of edits) {
    const c = chunks[e.chunk];
    if (!c) {
      throw new Error(`variant ${name}: no shader chunk ${e.chunk}`);
    }
    if (!c.code.includes(e.from)) {
      throw new Error(`variant ${name}: ${e.chunk} does not contain ${JSON.stringify(e.from.slice(0, 80))}`);
    }
    c.code = c.code.split(e.from).join(e.to);
  }
}

/**
 * Times the picking-1024 tree walk of each variant over the picking scene of `n` boxes,
 * `rounds` interleaved samples each (after 4 untimed runs, the first compiling). Variants in order; the first is the
 * baseline the answers are compared with.
 */
export async function walk(n: number, variants: Record<string, readonly ShaderEdit[]>, rounds: number): Promise<VariantTiming[]> {
  const boxes = pickingScene(n);
  const rays = pickingRays(1024, n);
  const order = directionOrder(rays);
  const S = RAY_F64.STRIDE;
  const data = new Float64Array(rays.data.length);
  order.forEach((r, k) => data.set(rays.data.subarray(r * S, (r + 1) * S), k * S));
  const walked = { count: rays.count, data };
  const chunks = CHUNKS as unknown as Chunks;
  const original = Object.fromEntries(Object.entries(chunks).map(([k, c]) => [k, c.code]));
  const gpus: ObbGpu[] = [];
  const runs: { name: string; run: () => Promise<{ ms: number; hits: Uint32Array }>; samples: number[]; answer: Uint32Array }[] = [];
  try {
    for (const [name, edits] of Object.entries(variants)) {
      applyEdits(name, edits, original);
      const gpu = await ObbGpu.create();
      gpus.push(gpu);
      const device = gpu.ctx.device;
      if (!device.features.has('timestamp-query')) {
        throw new Error('variants: the adapter has no timestamp queries');
      }
      const set = gpu.createBoxSet(boxes);
      const tree = await gpu.bvhOf(set);
      const raysBuf = device.createBuffer({ size: rays.count * RAY.SIZE, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
      device.queue.writeBuffer(raysBuf, 0, packRays(walked, set.origin));
      const hits = device.createBuffer({ size: rays.count * HIT.SIZE, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
      const geometry = device.createBuffer({ size: 32, usage: GPUBufferUsage.STORAGE });
      const staging = device.createBuffer({ size: rays.count * HIT.SIZE, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
      const querySet = device.createQuerySet({ type: 'timestamp', count: 2 });
      const resolve = device.createBuffer({ size: 16, usage: GPUBufferUsage.QUERY_RESOLVE | GPUBufferUsage.COPY_SRC });
      const read = device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_DST | GPUBufferUsage.MAP_READ });
      const run = async (): Promise<{ ms: number; hits: Uint32Array }> => {
        const enc = device.createCommandEncoder();
        await gpu.rays.encodeClosestHit(enc, set, raysBuf, rays.count, hits, geometry, {
          geometry: false, ...(tree ? { tree } : {}), timestampWrites: { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 },
        });
        enc.resolveQuerySet(querySet, 0, 2, resolve, 0);
        enc.copyBufferToBuffer(resolve, 0, read, 0, 16);
        enc.copyBufferToBuffer(hits, 0, staging, 0, rays.count * HIT.SIZE);
        device.queue.submit([enc.finish()]);
        await staging.mapAsync(GPUMapMode.READ);
        const out = new Uint32Array(staging.getMappedRange().slice(0));
        staging.unmap();
        await read.mapAsync(GPUMapMode.READ);
        const [a, b] = new BigUint64Array(read.getMappedRange());
        read.unmap();
        return { ms: Number(b! - a!) / 1e6, hits: out };
      };
      // The first run compiles the walk's pipeline, while this variant's edits are in place.
      runs.push({ name, run, samples: [], answer: (await run()).hits });
    }
    applyEdits('original', [], original);
    const stride = HIT.SIZE / 4;
    for (const r of runs) {
      for (let i = 0; i < 3; i++) {
        await r.run();
      }
    }
    for (let round = 0; round < rounds; round++) {
      for (const r of runs) {
        r.samples.push((await r.run()).ms);
      }
    }
    return runs.map((r) => {
      const s = stats(r.samples);
      let differing = 0;
      for (let i = 0; i < rays.count; i++) {
        differing += r.answer[i * stride + HIT.BOX / 4] === runs[0]!.answer[i * stride + HIT.BOX / 4] ? 0 : 1;
      }
      return { name: r.name, median_ms: s.median, min_ms: s.min, max_ms: s.max, runs: r.samples.length, differing };
    });
  } finally {
    applyEdits('original', [], original);
    for (const g of gpus) {
      g.destroy();
    }
  }
}
