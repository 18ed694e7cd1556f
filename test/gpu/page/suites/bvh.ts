/**
 * Suite `bvh`: the GPU building blocks of the BVH (scan, radix sort) and the tree itself,
 * checked against CPU computations of the same thing.
 */
import { GpuContext, mulberry32 } from '../../../../src/index.ts';
import { ExclusiveScan, RadixSort } from '../../../../src/bvh/RadixSort.ts';

async function withContext<T>(body: (ctx: GpuContext) => Promise<T>): Promise<T> {
  const ctx = await GpuContext.create();
  ctx.device.pushErrorScope('validation');
  try {
    return await body(ctx);
  } finally {
    const error = await ctx.device.popErrorScope();
    ctx.destroy();
    if (error) {
      // eslint-disable-next-line no-unsafe-finally
      throw new Error(`GPU validation error: ${error.message}`);
    }
  }
}

function upload(ctx: GpuContext, data: Uint32Array): GPUBuffer {
  const b = ctx.createBuffer({ size: Math.max(16, data.byteLength), usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST | GPUBufferUsage.COPY_SRC });
  ctx.device.queue.writeBuffer(b, 0, data);
  return b;
}

/** Exclusive scan of n random values (up to 100) against a CPU prefix sum. */
export async function scan(seed: number, n: number) {
  return withContext(async (ctx) => {
    const rnd = mulberry32(seed);
    const data = Uint32Array.from({ length: n }, () => Math.floor(rnd() * 100));
    const buf = upload(ctx, data);
    const s = await ExclusiveScan.create(ctx, n);
    const enc = ctx.device.createCommandEncoder();
    const pass = enc.beginComputePass();
    await s.encode(pass, buf, n);
    pass.end();
    ctx.device.queue.submit([enc.finish()]);
    const got = new Uint32Array(await ctx.readback(buf, n * 4));
    let sum = 0;
    let wrong = 0;
    for (let i = 0; i < n; i++) {
      if (got[i] !== sum) {
        wrong++;
      }
      sum += data[i]!;
    }
    return { n, wrong };
  });
}

/** Radix sort of n (key, index) pairs with many duplicate keys, against a stable CPU sort. */
export async function sort(seed: number, n: number, bits: number, distinct: number) {
  return withContext(async (ctx) => {
    const rnd = mulberry32(seed);
    const mask = bits >= 32 ? 0xffffffff : (1 << bits) - 1;
    const pool = Uint32Array.from({ length: distinct }, () => Math.floor(rnd() * 4294967296) & mask);
    const keys = Uint32Array.from({ length: n }, () => pool[Math.floor(rnd() * distinct)]!);
    const vals = Uint32Array.from({ length: n }, (_, i) => i);
    const kb = upload(ctx, keys);
    const vb = upload(ctx, vals);
    const sorter = await RadixSort.create(ctx, n);
    const enc = ctx.device.createCommandEncoder();
    const pass = enc.beginComputePass();
    const t0 = performance.now();
    await sorter.encode(pass, kb, vb, n, bits);
    pass.end();
    ctx.device.queue.submit([enc.finish()]);
    await ctx.device.queue.onSubmittedWorkDone();
    const ms = performance.now() - t0;
    const gotK = new Uint32Array(await ctx.readback(kb, n * 4));
    const gotV = new Uint32Array(await ctx.readback(vb, n * 4));
    const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => keys[a]! - keys[b]! || a - b);
    let wrong = 0;
    for (let i = 0; i < n; i++) {
      if (gotV[i] !== order[i] || gotK[i] !== keys[order[i]!]) {
        wrong++;
      }
    }
    sorter.destroy();
    return { n, wrong, ms };
  });
}
