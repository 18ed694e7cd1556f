/**
 * GPU stable LSD radix sort of (u32 key, u32 value) pairs (host side of
 * shaders/runtime/sort.wgsl), recorded into the caller's compute pass: per pass a digit count, an
 * ExclusiveScan of the counts (./scan.ts) and a stable scatter, each its own dispatch.
 */
import { SORT_BITS } from '../constants.ts';
import type { GpuContext } from './context.ts';
import { BufferUsage } from './flags.ts';
import { getKernel, type KernelPipeline } from './pipelines.ts';
import { dispatch } from './bind.ts';
import { ExclusiveScan, blockTuning, type BlockTuning } from './scan.ts';

const STORAGE = BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC;
const UNIFORM = BufferUsage.UNIFORM | BufferUsage.COPY_DST;

/** Passes needed to sort keys of `bits` bits, `bitsPerPass` at a time (a GPU's SORT_BITS by default). */
export function sortPasses(bits: number, bitsPerPass: number = SORT_BITS): number {
  return Math.ceil(bits / bitsPerPass);
}

/** The passes RadixSort runs: sortPasses rounded up to even, so the result ends in the input buffers. */
function evenPasses(bits: number, bitsPerPass: number): number {
  const passes = sortPasses(bits, bitsPerPass);
  return passes + (passes % 2);
}

/**
 * Stable LSD radix sort of (key, value) pairs on the GPU. With an even number of passes the
 * result ends in the input buffers.
 *
 * @example
 * declare const keys: GPUBuffer, values: GPUBuffer; // n u32 keys and values
 * const sort = await RadixSort.create(ctx, n);
 * const pass = encoder.beginComputePass(); await sort.encode(pass, keys, values, n, 30); pass.end();
 */
export class RadixSort {
  private readonly keysTmp: GPUBuffer;
  private readonly valsTmp: GPUBuffer;
  private readonly hist: GPUBuffer;
  private readonly params: GPUBuffer[] = [];

  private readonly block: number;
  /** Bits per pass, and buckets (2^bits). */
  private readonly bits: number;
  private readonly buckets: number;
  private readonly constants: Record<string, number>;

  private constructor(private readonly ctx: GpuContext, readonly capacity: number, private readonly scan: ExclusiveScan, tuning: BlockTuning) {
    this.block = tuning.sortWg * tuning.sortPerThread;
    this.bits = tuning.sortBits;
    this.buckets = 2 ** tuning.sortBits;
    this.constants = { SORT_BITS: tuning.sortBits, SORT_WG: tuning.sortWg, SORT_PER_THREAD: tuning.sortPerThread };
    const size = Math.max(16, capacity * 4);
    this.keysTmp = ctx.createBuffer({ label: `${ctx.label}:sort-keys`, size, usage: STORAGE });
    this.valsTmp = ctx.createBuffer({ label: `${ctx.label}:sort-values`, size, usage: STORAGE });
    const blocks = Math.max(1, Math.ceil(capacity / this.block));
    this.hist = ctx.createBuffer({ label: `${ctx.label}:sort-hist`, size: Math.max(16, blocks * this.buckets * 4), usage: STORAGE });
    for (let p = 0; p < evenPasses(32, this.bits); p++) {
      this.params.push(ctx.createBuffer({ label: `${ctx.label}:sort-params`, size: 16, usage: UNIFORM }));
    }
  }

  /**
   * A sort of up to `capacity` key–value pairs, its pipelines compiled and its buffers allocated.
   * RangeError for a tuning outside 1..16 bits or over the device's workgroup memory.
   */
  static async create(ctx: GpuContext, capacity: number, tuning: BlockTuning = blockTuning(ctx)): Promise<RadixSort> {
    const { sortBits: bits, sortWg: wg } = tuning;
    if (!(Number.isInteger(bits) && bits >= 1 && bits <= 16 && Number.isInteger(wg) && wg >= 1)) {
      throw new RangeError(`RadixSort: sortBits must be an integer in 1..16 and sortWg a positive integer (got ${bits}, ${wg})`);
    }
    // Workgroup memory of sort.wgsl: digit counts and bases, per-thread ranks, per-thread totals.
    const bytes = 4 * ((wg + 2) * 2 ** bits + wg);
    const limit = ctx.device.limits.maxComputeWorkgroupStorageSize;
    if (bytes > limit) {
      throw new RangeError(`RadixSort: ${wg} threads × 2^${bits} digits need ${bytes} bytes of workgroup memory, over the device's ${limit}; use fewer threads or bits`);
    }
    const blocks = Math.max(1, Math.ceil(capacity / (tuning.sortWg * tuning.sortPerThread)));
    const scan = await ExclusiveScan.create(ctx, blocks * 2 ** bits, tuning);
    const sort = new RadixSort(ctx, capacity, scan, tuning);
    await Promise.all([sort.kernel('sortCount'), sort.kernel('sortScatter')]);
    return sort;
  }

  private kernel<K extends 'sortCount' | 'sortScatter'>(name: K): Promise<KernelPipeline<K>> {
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
    const passes = evenPasses(bits, this.bits);
    let [kIn, vIn, kOut, vOut] = [keys, values, this.keysTmp, this.valsTmp];
    for (let p = 0; p < passes; p++) {
      const params = this.params[p]!;
      device.queue.writeBuffer(params, 0, new Uint32Array([count, p * this.bits, blocks, 0]));
      dispatch(device, pass, countKernel, { sortParams: params, keysIn: kIn, hist: this.hist }, blocks, 'obb:sort-count');
      await this.scan.encode(pass, this.hist, blocks * this.buckets);
      dispatch(device, pass, scatterKernel, { sortParams: params, keysIn: kIn, valsIn: vIn, keysOut: kOut, valsOut: vOut, hist: this.hist }, blocks, 'obb:sort-scatter');
      [kIn, vIn, kOut, vOut] = [kOut, vOut, kIn, vIn];
    }
  }

  /** Frees the sort's buffers and its scan. */
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
