/**
 * The GPU backend in one object: a context, a buffer pool, box sets and every query.
 */
import { WORKGROUP_SIZE } from '../constants.ts';
import type { BoxInput } from '../core/types.ts';
import { ValidationError } from '../errors.ts';
import type { SatOptions } from '../reference/query/obbObbSat.ts';
import { BoxSet, type BoxSetOptions, type BoxSource } from './BoxSet.ts';
import { BufferPool } from './bufferPool.ts';
import { GpuContext, type GpuContextOptions } from './device.ts';
import type { RaySource } from './inputs.ts';
import { PairQueries, type GpuPairList, type GpuPairResults } from './PairQueries.ts';
import { getKernel, KERNELS, type KernelName } from './pipelines.ts';
import { RayQueries, type RayKernelTuning, type GpuAllHits, type GpuClosestHits, type GpuHitBuffers, type GpuRayOptions } from './RayQueries.ts';

/**
 * Options of {@link ObbGpu.create}: those of the context (device, adapter, `limits`,
 * `autoRecover`, …) plus the kernels' workgroup size and ray-kernel tuning.
 */
export interface ObbGpuOptions extends GpuContextOptions {
  readonly workgroupSize?: number;
  readonly rayTuning?: Partial<RayKernelTuning>;
}

/**
 * @example
 * const gpu = await ObbGpu.create();
 * const set = gpu.createBoxSet([{ center: [0, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] }]);
 * const hits = await gpu.closestHit(set, [{ origin: [-10, 0, 0], direction: [1, 0, 0] }]);
 * console.log(hits.box[0], hits.t[0]); // 0 9
 * gpu.destroy();
 */
export class ObbGpu {
  readonly ctx: GpuContext;
  readonly pool: BufferPool;
  readonly rays: RayQueries;
  readonly pairs: PairQueries;
  private readonly sets = new Set<BoxSet>();

  private constructor(ctx: GpuContext, workgroupSize: number, rayTuning: Partial<RayKernelTuning> | undefined) {
    this.ctx = ctx;
    this.pool = new BufferPool(ctx);
    this.rays = new RayQueries(ctx, this.pool, workgroupSize, rayTuning);
    this.pairs = new PairQueries(ctx, this.pool, workgroupSize);
  }

  /**
   * Acquires a device (or wraps `options.device`) and compiles every kernel up front, so compile
   * errors surface here (as ShaderCompileError with file:line) and queries start at once.
   */
  static async create(options: ObbGpuOptions = {}): Promise<ObbGpu> {
    const workgroupSize = options.workgroupSize ?? WORKGROUP_SIZE;
    if (!Number.isInteger(workgroupSize) || workgroupSize < 1 || workgroupSize > 256) {
      throw new ValidationError('argument', undefined, 'workgroupSize', `must be an integer in 1..256 (got ${String(workgroupSize)})`);
    }
    const ctx = await GpuContext.create(options);
    let gpu: ObbGpu;
    try {
      gpu = new ObbGpu(ctx, workgroupSize, options.rayTuning);
      const rayKernels = new Set<KernelName>(['closestHit', 'anyHit', 'allHits']);
      await Promise.all((Object.keys(KERNELS) as KernelName[]).map((k) =>
        getKernel(ctx.device, k, workgroupSize, rayKernels.has(k) ? gpu.rays.constants : {})));
    } catch (error) {
      ctx.destroy();
      throw error;
    }
    return gpu;
  }

  /**
   * After a device loss (or on demand): a new device, and every live BoxSet rebuilt there from
   * its float64 host copy. The sets stay the same objects, so references held elsewhere stay
   * valid. Queries issued before the call fail with DeviceLostError; queries issued after it
   * wait for the new device and answer as if nothing happened. Kernels compile again on first
   * use (they compiled before, so this cannot fail for a WGSL reason). Buffers handed out
   * earlier (`closestHitBuffers`) died with the old device. Pass `device` when this object wraps
   * a device of yours. See also the `autoRecover` option.
   *
   * @example
   * try { hits = await gpu.closestHit(set, rays) } catch (e) {
   *   if (e instanceof DeviceLostError) { await gpu.recover(); hits = await gpu.closestHit(set, rays) }
   * }
   */
  recover(options: { readonly device?: GPUDevice } = {}): Promise<void> {
    return this.ctx.recover(options);
  }

  /** The adapter's name, e.g. "google swiftshader (fallback)". */
  get adapterName(): string {
    return this.ctx.adapter.name;
  }

  /** Validates and uploads boxes; the set lives on the GPU until `destroy()`. */
  createBoxSet(boxes: BoxSource, options: BoxSetOptions = {}): BoxSet {
    const set = BoxSet.create(this.ctx, boxes, options);
    this.sets.add(set);
    return set;
  }

  /** Closest hit per ray (see RayQueries.closestHit). */
  closestHit(set: BoxSet, rays: RaySource, options: GpuRayOptions & { readonly geometry?: boolean } = {}): Promise<GpuClosestHits> {
    return this.rays.closestHit(set, rays, options);
  }

  /** Closest hits left on the GPU for the caller's next pass. */
  closestHitBuffers(set: BoxSet, rays: RaySource, options: GpuRayOptions = {}): Promise<GpuHitBuffers> {
    return this.rays.closestHitBuffers(set, rays, options);
  }

  /** 1 per ray that hits any box. */
  anyHit(set: BoxSet, rays: RaySource, options: GpuRayOptions = {}): Promise<Uint8Array> {
    return this.rays.anyHit(set, rays, options);
  }

  /** Every hit, sorted by ray, t, box; never truncated. */
  allHits(set: BoxSet, rays: RaySource, options: GpuRayOptions & { readonly capacity?: number } = {}): Promise<GpuAllHits> {
    return this.rays.allHits(set, rays, options);
  }

  /** SAT on listed pairs of one set. */
  obbPairs(set: BoxSet, pairs: Uint32Array | readonly (readonly [number, number])[], options: SatOptions = {}): Promise<GpuPairResults> {
    return this.pairs.obbPairs(set, pairs, options);
  }

  /** One box against every box of a set. */
  obbOneVsMany(box: BoxInput, set: BoxSet, options: SatOptions = {}): Promise<GpuPairResults> {
    return this.pairs.obbOneVsMany(box, set, options);
  }

  /** Every overlapping (i in A, j in B). */
  obbCross(a: BoxSet, b: BoxSet, options: SatOptions & { readonly capacity?: number } = {}): Promise<GpuPairList> {
    return this.pairs.obbCross(a, b, options);
  }

  /** Every overlapping pair within one set (i < j). */
  allPairs(set: BoxSet, options: SatOptions & { readonly capacity?: number } = {}): Promise<GpuPairList> {
    return this.pairs.allPairs(set, options);
  }

  /** Frees every set, pooled buffer and (if this object requested it) the device. Idempotent. */
  destroy(): void {
    for (const set of this.sets) {
      set.destroy();
    }
    this.sets.clear();
    this.pool.trim();
    this.ctx.destroy();
  }
}
