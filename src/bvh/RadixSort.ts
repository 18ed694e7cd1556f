/**
 * GPU exclusive scan and stable radix sort of (u32 key, u32 value) pairs, host side of
 * shaders/bvh/scan.wgsl and shaders/bvh/sort.wgsl. Both record into the caller's compute pass;
 * every step is its own dispatch (reduce-then-scan), so nothing relies on forward progress
 * between workgroups.
 */
import { SCAN_BLOCK, SCAN_WG, SORT_BITS, SORT_BLOCK, SORT_BUCKETS, SORT_WG } from '../constants.ts';
import type { GpuContext } from '../gpu/device.ts';
import { BufferUsage } from '../gpu/flags.ts';
import { getKernel } from '../gpu/pipelines.ts';
import { dispatch } from './encode.ts';

const STORAGE = BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC;
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

  private constructor(private readonly ctx: GpuContext, readonly capacity: number) {}

  static async create(ctx: GpuContext, capacity: number): Promise<ExclusiveScan> {
    const scan = new ExclusiveScan(ctx, capacity);
    await Promise.all([getKernel(ctx.device, 'scanBlocks', SCAN_WG), getKernel(ctx.device, 'scanAdd', SCAN_WG)]);
    let count = Math.max(1, capacity);
    for (;;) {
      const blocks = Math.ceil(count / SCAN_BLOCK);
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

  /** Records the scan of `data[0, count)`; `count` must not exceed the capacity. */
  async encode(pass: GPUComputePassEncoder, data: GPUBuffer, count: number): Promise<void> {
    if (count > this.capacity) {
      throw new RangeError(`ExclusiveScan: ${count} elements exceed the capacity ${this.capacity}`);
    }
    const device = this.ctx.device;
    const blocksKernel = await getKernel(device, 'scanBlocks', SCAN_WG);
    const addKernel = await getKernel(device, 'scanAdd', SCAN_WG);
    // Levels actually needed for this count (the sums of level k are the data of level k + 1).
    const used: { data: GPUBuffer; count: number; blocks: number; sums: GPUBuffer; params: GPUBuffer }[] = [];
    let buffer = data;
    let n = count;
    for (const level of this.levels) {
      const blocks = Math.ceil(n / SCAN_BLOCK);
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

  private constructor(private readonly ctx: GpuContext, readonly capacity: number, private readonly scan: ExclusiveScan) {
    const size = Math.max(16, capacity * 4);
    this.keysTmp = ctx.createBuffer({ label: `${ctx.label}:sort-keys`, size, usage: STORAGE });
    this.valsTmp = ctx.createBuffer({ label: `${ctx.label}:sort-values`, size, usage: STORAGE });
    const blocks = Math.max(1, Math.ceil(capacity / SORT_BLOCK));
    this.hist = ctx.createBuffer({ label: `${ctx.label}:sort-hist`, size: Math.max(16, blocks * SORT_BUCKETS * 4), usage: STORAGE });
    for (let p = 0; p < sortPasses(32); p++) {
      this.params.push(ctx.createBuffer({ label: `${ctx.label}:sort-params`, size: 16, usage: UNIFORM }));
    }
  }

  static async create(ctx: GpuContext, capacity: number): Promise<RadixSort> {
    const blocks = Math.max(1, Math.ceil(capacity / SORT_BLOCK));
    const scan = await ExclusiveScan.create(ctx, blocks * SORT_BUCKETS);
    await Promise.all([getKernel(ctx.device, 'sortCount', SORT_WG), getKernel(ctx.device, 'sortScatter', SORT_WG)]);
    return new RadixSort(ctx, capacity, scan);
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
    const countKernel = await getKernel(device, 'sortCount', SORT_WG);
    const scatterKernel = await getKernel(device, 'sortScatter', SORT_WG);
    const blocks = Math.ceil(count / SORT_BLOCK);
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
