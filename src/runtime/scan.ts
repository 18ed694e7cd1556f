/**
 * GPU exclusive prefix sum of u32 values (host side of shaders/runtime/scan.wgsl), recorded into
 * the caller's compute pass; reduce-then-scan, every level its own dispatch, so nothing relies on
 * forward progress between workgroups. Also the workgroup shapes (BlockTuning) that the scan, the
 * radix sort (./sort.ts) and the tree's bounds reduction share.
 */
import { BVH_BOUNDS_PER_THREAD, BVH_WG, FALLBACK_BLOCK_TUNING, SCAN_PER_THREAD, SCAN_WG, SORT_BITS, SORT_PER_THREAD, SORT_WG } from '../constants.ts';
import type { GpuContext } from './context.ts';
import { BufferUsage } from './flags.ts';
import { getKernel, type KernelPipeline } from './pipelines.ts';
import { dispatch } from './bind.ts';

const STORAGE = BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC;

/** Workgroup shapes of the sort and scan kernels (WGSL overrides). */
export interface BlockTuning {
  /** Radix sort bits per pass (SORT_BUCKETS = 2^sortBits; about sortWg · 2^sortBits words of workgroup memory, RadixSort.create checks). */
  readonly sortBits: number;
  readonly sortWg: number;
  readonly sortPerThread: number;
  readonly scanWg: number;
  readonly scanPerThread: number;
  /** The BVH build's bounds reduction (shaders/tree/build.wgsl). */
  readonly boundsWg: number;
  readonly boundsPerThread: number;
}

/** The tuning for an adapter: wide workgroups on GPUs, narrow ones on CPU adapters (constants.ts). */
export function blockTuning(ctx: GpuContext): BlockTuning {
  return ctx.adapter.isFallbackAdapter
    ? FALLBACK_BLOCK_TUNING
    : { sortBits: SORT_BITS, sortWg: SORT_WG, sortPerThread: SORT_PER_THREAD, scanWg: SCAN_WG, scanPerThread: SCAN_PER_THREAD, boundsWg: BVH_WG, boundsPerThread: BVH_BOUNDS_PER_THREAD };
}
const UNIFORM = BufferUsage.UNIFORM | BufferUsage.COPY_DST;

/**
 * Exclusive prefix sum of up to `capacity` u32 values, in place.
 *
 * @example
 * declare const data: GPUBuffer; // n u32 values
 * const scan = await ExclusiveScan.create(ctx, 1 << 20);
 * const pass = encoder.beginComputePass(); await scan.encode(pass, data, n); pass.end();
 */
export class ExclusiveScan {
  private readonly levels: { count: number; blocks: number; sums: GPUBuffer; params: GPUBuffer }[] = [];

  private readonly block: number;
  private readonly constants: Record<string, number>;

  private constructor(private readonly ctx: GpuContext, readonly capacity: number, tuning: BlockTuning) {
    this.block = tuning.scanWg * tuning.scanPerThread;
    this.constants = { SCAN_WG: tuning.scanWg, SCAN_PER_THREAD: tuning.scanPerThread };
  }

  /** A scan of up to `capacity` values, its pipelines compiled and its block-sum buffers allocated. */
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

  private kernel<K extends 'scanBlocks' | 'scanAdd'>(name: K): Promise<KernelPipeline<K>> {
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
      dispatch(device, pass, blocksKernel, { scanParams: l.params, scanData: l.data, scanSums: l.sums }, l.blocks, 'obb:scan');
    }
    for (let k = used.length - 2; k >= 0; k--) {
      const l = used[k]!;
      dispatch(device, pass, addKernel, { scanParams: l.params, scanData: l.data, scanSums: l.sums }, l.blocks, 'obb:scan-add');
    }
  }

  /** Frees the block-sum and parameter buffers. Idempotent. */
  destroy(): void {
    for (const l of this.levels) {
      this.ctx.destroyBuffer(l.sums);
      this.ctx.destroyBuffer(l.params);
    }
    this.levels.length = 0;
  }
}
