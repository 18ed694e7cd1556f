/**
 * GPU exclusive scan and stable radix sort of (u32 key, u32 value) pairs, host side of
 * shaders/bvh/scan.wgsl and shaders/bvh/sort.wgsl. Both record into the caller's compute pass;
 * every step is its own dispatch (reduce-then-scan), so nothing relies on forward progress
 * between workgroups.
 */
import { BVH_BOUNDS_PER_THREAD, BVH_WG, FALLBACK_BLOCK_TUNING, SCAN_PER_THREAD, SCAN_WG, SORT_BITS, SORT_BUCKETS, SORT_PER_THREAD, SORT_WG } from '../constants.ts';
import type { GpuContext } from '../gpu/device.ts';
import { BufferUsage } from '../gpu/flags.ts';
import { getKernel } from '../gpu/pipelines.ts';
import { dispatch } from './encode.ts';

const STORAGE = BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC;

/** Workgroup shapes of the sort and scan kernels (WGSL overrides). */
export interface BlockTuning {
  readonly sortWg: number;
  readonly sortPerThread: number;
  readonly scanWg: number;
  readonly scanPerThread: number;
  /** The BVH build's bounds reduction (shaders/bvh/build.wgsl). */
  readonly boundsWg: number;
  readonly boundsPerThread: number;
}

/** The tuning for an adapter: wide workgroups on GPUs, narrow ones on CPU adapters (constants.ts). */
export function blockTuning(ctx: GpuContext): BlockTuning {
  return ctx.adapter.isFallbackAdapter
    ? FALLBACK_BLOCK_TUNING
    : { sortWg: SORT_WG, sortPerThread: SORT_PER_THREAD, scanWg: SCAN_WG, scanPerThread: SCAN_PER_THREAD, boundsWg: BVH_WG, boundsPerThread: BVH_BOUNDS_PER_THREAD };
}
const UNIFORM = BufferUsage.UNIFORM | BufferUsage.COPY_DST;

/**
 * Exclusive prefix sum of up to `capacity` u32 values, in place.
 *
 * @example
 * const scan = await ExclusiveScan.create(ctx, 1 << 20);
 * const pass = encoder.beginComputePass(); scan.encode(pass, data, n); pass.end();
 */
export class ExclusiveScan {
  private readonly levels: { count: number; blocks: number; sums: GPUBuffer; params: GPUBuffer }[] = [];

  private readonly block: number;
  private readonly constants: Record<string, number>;

  private constructor(private readonly ctx: GpuContext, readonly capacity: number, tuning: BlockTuning) {
    this.block = tuning.scanWg * tuning.scanPerThread;
    this.constants = { SCAN_WG: tuning.scanWg, SCAN_PER_THREAD: tuning.scanPerThread };
  }

  static async create(ctx: GpuContext, capacity: number, tuning: BlockTuning = blockTuning(ctx)): Promise<ExclusiveScan> {
    const scan = new ExclusiveScan(ctx, capacity, tuning);
    await Promise.all([scan.kernel('scanBlocks'), scan.kernel('scanAdd')]);
    let count = Math.max(1, capacity);
    for (;;) {
      const blocks = Math.ceil(count / scan.block);
      scan.levels.push({
        count, blocks,
        sums: ctx.createBuffer({ label: `${ctx.label}:scan-sums`, size: Math.max(16, blocks * 4), usage: STORAGE }),
        params: ctx.createBuffer({ label: `${ctx.label}:scan-params`, size: 16, usage: UNIFORM }),
      });
      if (blocks === 1) {
        break;
      }
      count = blocks;
    }
    return scan;
  }

  private kernel(name: 'scanBlocks' | 'scanAdd'): ReturnType<typeof getKernel> {
    return getKernel(this.ctx.device, name, undefined, this.constants);
  }

  /** Records the scan of `data[0, count)`; `count` must not exceed the capacity. */
  async encode(pass: GPUComputePassEncoder, data: GPUBuffer, count: number): Promise<void> {
    if (count > this.capacity) {
      throw new RangeError(`ExclusiveScan: ${count} elements exceed the capacity ${this.capacity}`);
    }
    const device = this.ctx.device;
    const blocksKernel = await this.kernel('scanBlocks');
    const addKernel = await this.kernel('scanAdd');
    // Levels actually needed for this count (the sums of level k are the data of level k + 1).
    const used: { data: GPUBuffer; count: number; blocks: number; sums: GPUBuffer; params: GPUBuffer }[] = [];
    let buffer = data;
    let n = count;
    for (const level of this.levels) {
      const blocks = Math.ceil(n / this.block);
      device.queue.writeBuffer(level.params, 0, new Uint32Array([n, blocks, 0, 0]));
      used.push({ data: buffer, count: n, blocks, sums: level.sums, params: level.params });
      if (blocks <= 1) {
        break;
      }
      buffer = level.sums;
      n = blocks;
    }
    for (const l of used) {
      dispatch(device, pass, blocksKernel, { 0: l.params, 1: l.data, 2: l.sums }, l.blocks, 'obb:scan');
    }
    for (let k = used.length - 2; k >= 0; k--) {
      const l = used[k]!;
      dispatch(device, pass, addKernel, { 0: l.params, 1: l.data, 2: l.sums }, l.blocks, 'obb:scan-add');
    }
  }

  destroy(): void {
    for (const l of this.levels) {
      this.ctx.destroyBuffer(l.sums);
      this.ctx.destroyBuffer(l.params);
    }
    this.levels.length = 0;
  }
}

/** Passes needed to sort keys of `bits` bits. */
export function sortPasses(bits: number): number {
  return Math.ceil(bits / SORT_BITS);
}

/**
 * Stable LSD radix sort of (key, value) pairs on the GPU. With an even number of passes the
 * result ends in the input buffers.
 *
 * @example
 * const sort = await RadixSort.create(ctx, n);
 * const pass = encoder.beginComputePass(); await sort.encode(pass, keys, values, n, 30); pass.end();
 */
export class RadixSort {
  private readonly keysTmp: GPUBuffer;
  private readonly valsTmp: GPUBuffer;
  private readonly hist: GPUBuffer;
  private readonly params: GPUBuffer[] = [];

  private readonly block: number;
  private readonly constants: Record<string, number>;

  private constructor(private readonly ctx: GpuContext, readonly capacity: number, private readonly scan: ExclusiveScan, tuning: BlockTuning) {
    this.block = tuning.sortWg * tuning.sortPerThread;
    this.constants = { SORT_WG: tuning.sortWg, SORT_PER_THREAD: tuning.sortPerThread };
    const size = Math.max(16, capacity * 4);
    this.keysTmp = ctx.createBuffer({ label: `${ctx.label}:sort-keys`, size, usage: STORAGE });
    this.valsTmp = ctx.createBuffer({ label: `${ctx.label}:sort-values`, size, usage: STORAGE });
    const blocks = Math.max(1, Math.ceil(capacity / this.block));
    this.hist = ctx.createBuffer({ label: `${ctx.label}:sort-hist`, size: Math.max(16, blocks * SORT_BUCKETS * 4), usage: STORAGE });
    for (let p = 0; p < sortPasses(32); p++) {
      this.params.push(ctx.createBuffer({ label: `${ctx.label}:sort-params`, size: 16, usage: UNIFORM }));
    }
  }

  static async create(ctx: GpuContext, capacity: number, tuning: BlockTuning = blockTuning(ctx)): Promise<RadixSort> {
    const blocks = Math.max(1, Math.ceil(capacity / (tuning.sortWg * tuning.sortPerThread)));
    const scan = await ExclusiveScan.create(ctx, blocks * SORT_BUCKETS, tuning);
    const sort = new RadixSort(ctx, capacity, scan, tuning);
    await Promise.all([sort.kernel('sortCount'), sort.kernel('sortScatter')]);
    return sort;
  }

  private kernel(name: 'sortCount' | 'sortScatter'): ReturnType<typeof getKernel> {
    return getKernel(this.ctx.device, name, undefined, this.constants);
  }

  /**
   * Records the sort of `keys[0, count)` (with `values`) on their low `bits` bits. The number of
   * passes is rounded up to even, so the sorted data ends in `keys` / `values`.
   */
  async encode(pass: GPUComputePassEncoder, keys: GPUBuffer, values: GPUBuffer, count: number, bits = 32): Promise<void> {
    if (count > this.capacity) {
      throw new RangeError(`RadixSort: ${count} keys exceed the capacity ${this.capacity}`);
    }
    if (count <= 1) {
      return;
    }
    const device = this.ctx.device;
    const countKernel = await this.kernel('sortCount');
    const scatterKernel = await this.kernel('sortScatter');
    const blocks = Math.ceil(count / this.block);
    let passes = sortPasses(bits);
    passes += passes % 2;
    let [kIn, vIn, kOut, vOut] = [keys, values, this.keysTmp, this.valsTmp];
    for (let p = 0; p < passes; p++) {
      const params = this.params[p]!;
      device.queue.writeBuffer(params, 0, new Uint32Array([count, p * SORT_BITS, blocks, 0]));
      dispatch(device, pass, countKernel, { 0: params, 1: kIn, 5: this.hist }, blocks, 'obb:sort-count');
      await this.scan.encode(pass, this.hist, blocks * SORT_BUCKETS);
      dispatch(device, pass, scatterKernel, { 0: params, 1: kIn, 2: vIn, 3: kOut, 4: vOut, 5: this.hist }, blocks, 'obb:sort-scatter');
      [kIn, vIn, kOut, vOut] = [kOut, vOut, kIn, vIn];
    }
  }

  destroy(): void {
    this.ctx.destroyBuffer(this.keysTmp);
    this.ctx.destroyBuffer(this.valsTmp);
    this.ctx.destroyBuffer(this.hist);
    for (const p of this.params) {
      this.ctx.destroyBuffer(p);
    }
    this.params.length = 0;
    this.scan.destroy();
  }
}
