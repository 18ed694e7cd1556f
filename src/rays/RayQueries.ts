/**
 * Rays × box set on the GPU (brute force, workgroup-tiled): closest hit, any hit, all hits.
 * Host side of `shaders/rays/brute.wgsl` and `shaders/rays/tree.wgsl`; CPU twins in src/reference/raycast.ts.
 *
 * Each query validates its input, packs rays re-based to the set's floating origin, and submits
 * through the context's sequence (so it sees the set as it was when the query was issued), then
 * reads back into typed arrays. `closestHitBuffers` leaves the results on the GPU instead, for a
 * caller's next pass (picking feeding a render without a readback), and `encodeClosestHit`
 * records into the caller's own encoder.
 */
import { BufferUsage } from '../runtime/flags.ts';
import { FACE_NONE, HIT_FLAG_INSIDE, HIT_FLAG_OVERFLOW, NO_BOX, RAY_OPT_BOX_MASKS, RAY_OPT_GEOMETRY, RAY_OPT_NOT_SOLID } from '../constants.ts';
import { SMALL_WALK_GROUPS, SMALL_WALK_WORKGROUP, WORKGROUP_SIZE } from '../constants.ts';
import { RAY_F64, type RayArray } from '../core/types.ts';
import { HIT, HIT_GEOMETRY, HIT_RECORD, RAY, RAY_PARAMS, packRays } from '../layout/index.ts';
import type { AllHits, ClosestHits, RaycastOptions } from '../core/queries.ts';
// The float64 reference answers the rays whose tree walk overflowed its stack (never expected).
import { anyHit as anyHitReference, closestHit as closestHitReference } from '../reference/raycast.ts';
import type { Bvh } from '../tree/Bvh.ts';
import { boxAt } from '../core/canonical.ts';
import { faceNormal } from '../reference/query/rayObb.ts';
import { checkSet, type BoxSet } from '../boxes/BoxSet.ts';
import { BufferPool } from '../runtime/pool.ts';
import type { GpuContext } from '../runtime/context.ts';
import { ValidationError } from '../errors.ts';
import { canonicalRays, checkCapacity, checkRayFilters, checkRayRange, rayCount, type RaySource } from '../core/inputs.ts';
import { dispatchGrid, getKernel, type KernelConstants, type KernelName } from '../runtime/pipelines.ts';
import { bindGroup, type KernelBuffers } from '../runtime/bind.ts';

/** Options of the GPU ray queries (the same filters as the CPU reference). */
export interface GpuRayOptions {
  /** Origin inside a box: t = 0 and `inside` (default), or the exit point and face (false). */
  readonly solid?: boolean;
  /** Per-ray masks, ANDed with the set's box masks. */
  readonly rayMasks?: Uint32Array;
  /** Per-ray box index to skip; -1 = none. */
  readonly exclude?: Int32Array;
  /**
   * Walk a BVH instead of every box: called at the query's turn, it returns a tree that is
   * current for the set then (ObbGpu passes its managed tree; see ObbGpu's `accel`).
   */
  readonly tree?: (() => Promise<Bvh | undefined>) | undefined;
}

/** Closest hits read back from the GPU. */
export interface GpuClosestHits extends ClosestHits {
  readonly t: Float32Array;
  /** World hit points, 3 per ray (x, y, z), computed in float64 from t; NaN for misses. */
  readonly point?: Float64Array;
  /** Outward unit normals from the GPU, 3 per ray; zero for misses and solid inside hits. */
  readonly normal?: Float32Array;
}

/** All hits read back from the GPU, sorted by ray, t, box. */
export interface GpuAllHits extends AllHits {
  readonly t: Float32Array;
  /** How many times the kernel ran (more than 1 when the first capacity was too small). */
  readonly runs: number;
}

/** Closest-hit results left on the GPU; the caller owns the buffers and calls `destroy()`. */
export interface GpuHitBuffers {
  /** `Hit` records (layout HIT), one per ray. */
  readonly hits: GPUBuffer;
  /** `HitGeometry` records (layout HIT_GEOMETRY), one per ray, positions relative to `origin`. */
  readonly geometry: GPUBuffer;
  readonly count: number;
  /** The floating origin the positions in `geometry` are relative to. */
  readonly origin: readonly [number, number, number];
  /** Destroys both buffers. */
  destroy(): void;
}

/** How the ray kernels walk the box set. */
export interface RayKernelTuning {
  /** Stage boxes in workgroup memory, BOX_TILE at a time (shared loads across the workgroup). */
  readonly tiled: boolean;
  /** Try the bounding-sphere early-out before each slab test. */
  readonly cull: boolean;
  /**
   * Rays each lane of the tree's closest-hit kernel walks one after another, in one loop
   * (shaders/rays/tree.wgsl, RAYS_PER_LANE): more than 1 evens out a SIMD group's lanes on CPU adapters.
   */
  readonly raysPerLane: number;
  /**
   * Walk a batch of up to SORT_RAYS_MAX host rays (closestHit, anyHit through a tree) in the
   * order of their directions' Morton codes, answers returned in the caller's order: neighbouring
   * lanes then take rays that walk the same records.
   */
  readonly sortRays: boolean;
  /**
   * Walk the tree's closest hits with the box tests, and each lane's switch to its next ray,
   * outside the loop of record steps, run when some lane of the subgroup needs them
   * (shaders/rays/tree_subgroup.wgsl, bvhClosestHitSubgroup). Needs a device with the
   * 'subgroups' feature (GpuContext requests it wherever the adapter has it).
   */
  readonly subgroupWalk: boolean;
}

/**
 * Default tuning for an adapter. On GPUs both knobs pay: a workgroup shares each box load, and a
 * warp that misses a box's bounding sphere skips the slab test. On a fallback (CPU) adapter such
 * as SwiftShader, which runs every lane through both sides of a branch and emulates barriers,
 * the plain loop measured about 20% faster (bench/page/workloads, 8,192 rays × 4,096 boxes).
 * There, too, a lane of the tree's closest-hit kernel walks 8 rays in one loop: its 4-lane SIMD
 * groups then run about 1.3× the mean walk where one ray per lane ran 1.9× (the busiest of four
 * random picking rays), and the 1,024-ray pick measured 20–35% faster (Dawn's SwiftShader,
 * 100k and 1M boxes); a GPU keeps one ray per invocation. And a batch walks in the order of its
 * rays' directions (sortRays): a group of four random picking rays' busiest walk is 1.95× the mean,
 * 1.56× in direction order (1.29× → 1.19× at 8 rays per lane); unmeasured on GPUs, so off there.
 * The results are identical either way: the tests run both.
 */
export function rayKernelTuning(isFallbackAdapter: boolean, subgroups = false): RayKernelTuning {
  return isFallbackAdapter
    ? { tiled: false, cull: false, raysPerLane: 8, sortRays: true, subgroupWalk: subgroups }
    : { tiled: true, cull: true, raysPerLane: 1, sortRays: false, subgroupWalk: false };
}

/** A BVH walk for one dispatch: the tree, and a zeroed counter of stack overflows. */
interface TreeWalk {
  readonly bvh: Bvh;
  readonly overflow: GPUBuffer;
}

/** The three ray queries, each a brute-force kernel of that name and a tree-walk kernel. */
type RayQuery = 'closestHit' | 'anyHit' | 'allHits';
const BVH_KERNEL = { closestHit: 'bvhClosestHit', anyHit: 'bvhAnyHit', allHits: 'bvhAllHits' } as const satisfies Record<RayQuery, KernelName>;

/** What each query writes, by WGSL name (the tree's all-hits walk also marks rays in anyFlags). */
interface RayOutputs {
  /** With walkCounts (tree walks only): the counting kernel, bvhClosestHitCounts. */
  closestHit: { readonly hits: GPUBuffer; readonly geometry: GPUBuffer; readonly walkCounts?: GPUBuffer };
  anyHit: { readonly anyFlags: GPUBuffer };
  allHits: { readonly records: GPUBuffer; readonly counter: GPUBuffer; readonly anyFlags?: GPUBuffer };
}

/** One dispatch of a ray query's kernel, as recorder and dispatch take it. */
interface RayDispatch<Q extends RayQuery> {
  readonly query: Q;
  readonly set: BoxSet;
  /** The RAY_PARAMS uniform. */
  readonly params: GPUBuffer;
  /** The RAY_OPT_* flags the params hold (they pick the kernel's constants). */
  readonly flags: number;
  /** `Ray` records, positions relative to `set.origin`. */
  readonly rays: GPUBuffer;
  readonly rayCount: number;
  /** The query's outputs, bound by their WGSL names. */
  readonly outputs: RayOutputs[Q];
  readonly timestampWrites?: GPUComputePassTimestampWrites | undefined;
  /** The operation error scopes and labels name (default: `query`). */
  readonly operation?: string | undefined;
  /** Walk this tree instead of every box. */
  readonly walk?: TreeWalk | undefined;
  /** Record into this encoder (the caller submits); without it, dispatch submits alone. */
  readonly encoder?: GPUCommandEncoder | undefined;
}

const STORAGE_IN = BufferUsage.STORAGE | BufferUsage.COPY_DST;
const STORAGE_OUT = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
const UNIFORM = BufferUsage.UNIFORM | BufferUsage.COPY_DST;
/** Uniform buffers kept for dispatches recorded into callers' encoders (see encodedParams). */
const ENCODED_PARAMS_CACHE = 64;

interface PreparedRays {
  readonly rays: RayArray;
  readonly options: GpuRayOptions;
  readonly extraFlags: number;
}

/**
 * @example
 * const rq = new RayQueries(ctx);
 * const hits = await rq.closestHit(set, [{ origin: [-10, 0, 0], direction: [1, 0, 0] }]);
 * hits.box[0], hits.t[0]
 */
export class RayQueries {
  readonly pool: BufferPool;

  /** Workgroup size of the kernels (the WGSL `override WG`; default WORKGROUP_SIZE). */
  readonly workgroupSize: number;
  /** The ray kernels' tuning knobs (WGSL overrides TILED and CULL); see {@link rayKernelTuning}. */
  readonly tuning: RayKernelTuning;

  private readonly paramsCache = new Map<string, GPUBuffer>();
  private overflowBuffer: GPUBuffer | undefined;

  constructor(readonly ctx: GpuContext, pool?: BufferPool, workgroupSize = WORKGROUP_SIZE, tuning?: Partial<RayKernelTuning>) {
    this.pool = pool ?? new BufferPool(ctx);
    this.workgroupSize = workgroupSize;
    const subgroups = ctx.device.features.has('subgroups');
    this.tuning = { ...rayKernelTuning(ctx.adapter.isFallbackAdapter, subgroups), ...tuning };
    const k = this.tuning.raysPerLane;
    if (!Number.isInteger(k) || k < 1 || k > 64) {
      throw new ValidationError('argument', undefined, 'rayTuning.raysPerLane', `must be an integer in 1..64 (got ${String(k)})`);
    }
    if (this.tuning.subgroupWalk && !subgroups) {
      throw new ValidationError('argument', undefined, 'rayTuning.subgroupWalk',
        'needs a device with the \'subgroups\' feature, which this one lacks (its adapter does not offer it, or the device was created without it)');
    }
    // The cached uniforms lived on the old device.
    ctx.onRecover(() => {
      this.paramsCache.clear();
      this.overflowBuffer = undefined;
    });
  }

  /**
   * Frees the uniforms cached for encodeClosestHit and its overflow counter. Not between an
   * encodeClosestHit and the submission of its encoder (the encoder uses them).
   */
  trim(): void {
    for (const buffer of this.paramsCache.values()) {
      this.ctx.destroyBuffer(buffer);
    }
    this.paramsCache.clear();
    this.ctx.destroyBuffer(this.overflowBuffer);
    this.overflowBuffer = undefined;
  }

  /**
   * Override constants of the ray kernels for this instance and a query's RAY_OPT bits `flags`
   * (the same bits its params carry): the box masks' test and the hit geometry are compiled in
   * only where the bits ask for them (shaders/rays/common.wgsl, BOX_MASKS and GEOMETRY).
   */
  kernelConstants(flags = 0): KernelConstants {
    return {
      TILED: this.tuning.tiled, CULL: this.tuning.cull,
      BOX_MASKS: (flags & RAY_OPT_BOX_MASKS) !== 0, GEOMETRY: (flags & RAY_OPT_GEOMETRY) !== 0,
    };
  }

  /** Override constants of the ray kernels for this instance, for a query with none of the optional parts. */
  get constants(): KernelConstants {
    return this.kernelConstants();
  }

  /**
   * Validates everything that does not depend on the set's state at the query's turn, and copies
   * the caller's arrays (packing happens at the turn; the caller may reuse them before).
   */
  private prepare(operation: string, set: BoxSet, source: RaySource, options: GpuRayOptions, extraFlags = 0): PreparedRays {
    checkSet(this.ctx, set, 'set', operation);
    // The size from the count first: a batch beyond the device is refused before it is copied.
    const count = rayCount(source);
    this.ctx.assertBindingFits('rays', count * RAY.SIZE, `${count} rays × ${RAY.SIZE} bytes`);
    const rays = canonicalRays(source);
    checkRayFilters(rays.count, undefined, options.rayMasks, options.exclude);
    const copy: { -readonly [K in keyof GpuRayOptions]: GpuRayOptions[K] } = {};
    if (options.solid !== undefined) {
      copy.solid = options.solid;
    }
    if (options.rayMasks) {
      copy.rayMasks = options.rayMasks.slice();
    }
    if (options.exclude) {
      copy.exclude = options.exclude.slice();
    }
    if (options.tree) {
      copy.tree = options.tree;
    }
    return { rays, options: copy, extraFlags };
  }

  /**
   * Packs the rays against the set as it is at the query's turn in the sequence (its origin and
   * masks may have changed since the call, by calls issued earlier).
   */
  private pack(set: BoxSet, prep: PreparedRays): { packed: ArrayBuffer; flags: number } {
    const { rays, options } = prep;
    checkRayFilters(rays.count, set.count, options.rayMasks, options.exclude);
    checkRayRange(rays, set.origin);
    const packed = packRays(rays, set.origin, { masks: options.rayMasks, exclude: options.exclude });
    let flags = prep.extraFlags;
    if (options.solid === false) {
      flags |= RAY_OPT_NOT_SOLID;
    }
    if (set.masks) {
      flags |= RAY_OPT_BOX_MASKS;
    }
    return { packed, flags };
  }

  private params(rayCount: number, boxCount: number, flags: number, capacity: number): GPUBuffer {
    const data = new Uint32Array(RAY_PARAMS.SIZE / 4);
    data[RAY_PARAMS.RAY_COUNT / 4] = rayCount;
    data[RAY_PARAMS.BOX_COUNT / 4] = boxCount;
    data[RAY_PARAMS.FLAGS / 4] = flags;
    data[RAY_PARAMS.CAPACITY / 4] = capacity;
    const buffer = this.pool.acquire(RAY_PARAMS.SIZE, UNIFORM, 'rays:params');
    this.ctx.device.queue.writeBuffer(buffer, 0, data);
    return buffer;
  }

  /**
   * The tree for this query (at its turn), with a zeroed overflow counter; undefined for brute
   * force. Set sizes 0 and 1 need no tree (the kernels handle them), nor does an empty batch.
   */
  private async walkFor(options: GpuRayOptions): Promise<TreeWalk | undefined> {
    const bvh = options.tree ? await options.tree() : undefined;
    if (!bvh) {
      return undefined;
    }
    const overflow = this.pool.acquire(4, STORAGE_OUT, 'bvh-overflow');
    this.ctx.device.queue.writeBuffer(overflow, 0, new Uint32Array(1));
    return { bvh, overflow };
  }

  /** The order a host batch walks a tree in (tuning.sortRays), or undefined: the caller's. */
  private walkOrder(prep: PreparedRays): Uint32Array | undefined {
    const n = prep.rays.count;
    return this.tuning.sortRays && prep.options.tree && n > 1 && n <= SORT_RAYS_MAX ? directionOrder(prep.rays) : undefined;
  }

  private upload(bytes: ArrayBuffer, label: string): GPUBuffer {
    const buffer = this.pool.acquire(Math.max(bytes.byteLength, 16), STORAGE_IN, label);
    if (bytes.byteLength > 0) {
      this.ctx.device.queue.writeBuffer(buffer, 0, bytes);
    }
    return buffer;
  }

  /**
   * The workgroup size of a ray kernel's dispatch: the instance's, except for the several-rays-per-
   * lane walk (CPU adapters) over a batch that would fill fewer than SMALL_WALK_GROUPS of its
   * workgroups, which takes SMALL_WALK_WORKGROUP lanes per workgroup so the adapter's threads share
   * it evenly.
   */
  private walkWorkgroupSize(perLane: number, rayCount: number): number {
    const lanes = Math.ceil(rayCount / perLane);
    return perLane > 1 && lanes < SMALL_WALK_GROUPS * this.workgroupSize ? Math.min(SMALL_WALK_WORKGROUP, this.workgroupSize) : this.workgroupSize;
  }

  /** The tree-walk kernel of a query (the closest hit's per tuning.subgroupWalk). */
  private treeKernel(query: RayQuery): KernelName {
    return query === 'closestHit' && this.tuning.subgroupWalk ? 'bvhClosestHitSubgroup' : BVH_KERNEL[query];
  }

  /**
   * The recording of one dispatch of a ray query's kernel (brute force, or the tree walk with
   * `walk`), its pipeline ready: the batch's inputs are bound, `outputs` by their WGSL names. The
   * caller runs it inside an error scope (dispatch's, or the readback's that submits it), which
   * `label` names.
   */
  private async recorder<Q extends RayQuery>(
    { query, set, params, flags, rays, rayCount, outputs, timestampWrites, operation = query, walk }: RayDispatch<Q>,
  ): Promise<{ readonly label: string; record(encoder: GPUCommandEncoder): void }> {
    const counting = walk !== undefined && 'walkCounts' in outputs;
    const kernelName: KernelName = counting ? 'bvhClosestHitCounts' : walk ? this.treeKernel(query) : query;
    const perLane = kernelName === 'bvhClosestHit' || kernelName === 'bvhClosestHitSubgroup' ? this.tuning.raysPerLane : 1;
    const constants = { ...this.kernelConstants(flags), ...(counting ? { WALK_COUNTS: true } : perLane > 1 ? { RAYS_PER_LANE: perLane } : {}) };
    const kernel = await getKernel(this.ctx.device, kernelName, this.walkWorkgroupSize(perLane, rayCount), constants);
    const buffers = {
      params, boxes: set.buffer, boxMasks: set.maskBuffer, rays, ...outputs,
      ...(walk ? { wide: walk.bvh.wide, overflowCount: walk.overflow } : {}),
    } as KernelBuffers<typeof kernelName>;
    return {
      label: `${operation}${walk ? ' (BVH)' : ''} (${rayCount} rays × ${set.count} boxes)`,
      record: (enc) => {
        const pass = enc.beginComputePass(timestampWrites
          ? { label: `${this.ctx.label}:${query}:pass`, timestampWrites }
          : { label: `${this.ctx.label}:${query}:pass` });
        pass.setPipeline(kernel.pipeline);
        pass.setBindGroup(0, bindGroup(this.ctx.device, kernel, buffers, `${this.ctx.label}:${kernelName}`));
        const [x, y] = dispatchGrid(Math.ceil(rayCount / perLane), kernel.workgroupSize);
        pass.dispatchWorkgroups(x, y);
        pass.end();
      },
    };
  }

  /**
   * Records one dispatch of a ray query's kernel into `encoder` under its own error scope, or
   * submits it alone without one.
   */
  private async dispatch<Q extends RayQuery>(d: RayDispatch<Q>): Promise<void> {
    const { label, record } = await this.recorder(d);
    const { encoder } = d;
    await this.ctx.scoped(label, () => {
      const enc = encoder ?? this.ctx.device.createCommandEncoder({ label: `${this.ctx.label}:${d.query}` });
      record(enc);
      if (encoder === undefined) {
        this.ctx.device.queue.submit([enc.finish()]);
      }
    });
  }

  /**
   * Closest hit of each ray (smallest t, ties to the smallest box index).
   *
   * @example
   * const hits = await rq.closestHit(set, rays, { geometry: true });
   * if (hits.box[0]! >= 0) console.log(hits.t[0], hits.point?.subarray(0, 3), hits.normal?.subarray(0, 3));
   */
  async closestHit(set: BoxSet, source: RaySource, options: GpuRayOptions & { readonly geometry?: boolean } = {}): Promise<GpuClosestHits> {
    const given = this.prepare('closestHit', set, source, options, options.geometry ? RAY_OPT_GEOMETRY : 0);
    const n = given.rays.count;
    if (n === 0) {
      return unpackClosest(new ArrayBuffer(0), undefined, given.rays);
    }
    const order = this.walkOrder(given);
    const prep = order ? reordered(given, order) : given;
    const op = 'closestHit';
    const epoch = this.ctx.epoch;
    const buffers = await this.ctx.sequence(op, async () => {
      const { packed, flags } = this.pack(set, prep);
      const walk = await this.walkFor(prep.options);
      const params = this.params(n, set.count, flags, 0);
      const rays = this.upload(packed, 'rays');
      const hits = this.pool.acquire(n * HIT.SIZE, STORAGE_OUT, 'hits');
      const geometry = this.pool.acquire(options.geometry ? n * HIT_GEOMETRY.SIZE : HIT_GEOMETRY.SIZE, STORAGE_OUT, 'hit-geometry');
      const all = walk ? [params, rays, hits, geometry, walk.overflow] : [params, rays, hits, geometry];
      try {
        // The kernel and the copies of its results in one submission, started in this turn, under
        // one error scope: readbackParts records the kernel into its own encoder, first.
        const kernel = await this.recorder({ query: 'closestHit', set, params, flags, rays, rayCount: n, outputs: { hits, geometry }, operation: op, walk });
        const reads = this.ctx.readbackParts([
          { source: hits, size: n * HIT.SIZE },
          { source: geometry, size: options.geometry ? n * HIT_GEOMETRY.SIZE : 0 },
        ], kernel.label, epoch, undefined, kernel.record);
        // The boxes as of this turn, for the (never expected) stack-overflow fallback below.
        return { all, reads, snapshot: walk ? snapshotOf(set, prep.options) : undefined };
      } catch (error) {
        all.forEach((b) => this.pool.release(b));
        throw error;
      }
    });
    try {
      const [hitBytes, geometryBytes] = await buffers.reads;
      const result = unpackClosest(hitBytes!, options.geometry ? geometryBytes : undefined, prep.rays);
      if (buffers.snapshot) {
        patchClosestOverflow(hitBytes!, result, prep.rays, buffers.snapshot);
      }
      if (!order) {
        return result;
      }
      return {
        count: n, box: unordered(result.box, order), t: unordered(result.t, order), face: unordered(result.face, order), inside: unordered(result.inside, order),
        ...(result.point ? { point: unordered(result.point, order, 3) } : {}), ...(result.normal ? { normal: unordered(result.normal, order, 3) } : {}),
      };
    } finally {
      buffers.all.forEach((b) => this.pool.release(b));
    }
  }

  /**
   * The closest-hit walk of each ray over `tree` (current for the set: ObbGpu.bvhOf), counted on
   * the GPU by the counting kernel (bvhClosestHitCounts, for benchmarks and tools; the queries
   * never run it): per ray the wide records stepped through, the boxes tested, and the box found
   * (what bvhWalkCounts in src/tree/quality.ts counts in float64).
   *
   * @example
   * const tree = await gpu.bvhOf(set); // undefined for fewer than two boxes
   * const c = await rq.walkCounts(set, rays, tree!);
   * console.log(c.nodes[0], c.boxTests[0], c.box[0]);
   */
  async walkCounts(set: BoxSet, source: RaySource, tree: Bvh): Promise<{ nodes: Uint32Array; boxTests: Uint32Array; box: Int32Array }> {
    const op = 'walkCounts';
    const prep = this.prepare(op, set, source, {});
    const n = prep.rays.count;
    const epoch = this.ctx.epoch;
    tree.assertUsable(op);
    if (tree.set !== set || tree.count !== set.count) {
      throw new ValidationError('argument', undefined, 'tree', `must be a tree built over this set's ${set.count} boxes (see ObbGpu.bvhOf)`);
    }
    const buffers = await this.ctx.sequence(op, async () => {
      const { packed, flags } = this.pack(set, prep);
      const walk = { bvh: tree, overflow: this.pool.acquire(4, STORAGE_OUT, 'bvh-overflow') };
      this.ctx.device.queue.writeBuffer(walk.overflow, 0, new Uint32Array(1));
      const params = this.params(n, set.count, flags, 0);
      const rays = this.upload(packed, 'rays');
      const hits = this.pool.acquire(Math.max(16, n * HIT.SIZE), STORAGE_OUT, 'hits');
      const geometry = this.pool.acquire(HIT_GEOMETRY.SIZE, STORAGE_OUT, 'hit-geometry');
      const walkCounts = this.pool.acquire(Math.max(16, n * 8), STORAGE_OUT, 'walk-counts');
      const all = [params, rays, hits, geometry, walkCounts, walk.overflow];
      try {
        // As closestHit: the kernel recorded inside the readback's error scope.
        const kernel = n > 0 ? await this.recorder({ query: 'closestHit', set, params, flags, rays, rayCount: n, outputs: { hits, geometry, walkCounts }, operation: op, walk }) : undefined;
        const reads = this.ctx.readbackParts([{ source: hits, size: n * HIT.SIZE }, { source: walkCounts, size: n * 8 }], kernel?.label ?? op, epoch, undefined, kernel?.record);
        return { all, reads };
      } catch (error) {
        all.forEach((b) => this.pool.release(b));
        throw error;
      }
    });
    try {
      const [hitBytes, countBytes] = await buffers.reads;
      const counts = new Uint32Array(countBytes!);
      return {
        nodes: Uint32Array.from({ length: n }, (_, r) => counts[2 * r]!),
        boxTests: Uint32Array.from({ length: n }, (_, r) => counts[2 * r + 1]!),
        box: unpackClosest(hitBytes!, undefined, prep.rays).box,
      };
    } finally {
      buffers.all.forEach((b) => this.pool.release(b));
    }
  }

  /**
   * Closest hits left on the GPU (hits and world-relative geometry), for the caller's next pass.
   *
   * @example
   * declare const pipeline: GPURenderPipeline; // yours, reading HitGeometry records in group 1
   * const out = await rq.closestHitBuffers(set, [rayFromScreen(400, 300, 800, 600, invViewProj)]); // the ray under the mouse
   * renderPass.setBindGroup(1, device.createBindGroup({ layout: pipeline.getBindGroupLayout(1), entries: [{ binding: 0, resource: { buffer: out.geometry } }] }));
   */
  async closestHitBuffers(set: BoxSet, source: RaySource, options: GpuRayOptions = {}): Promise<GpuHitBuffers> {
    const prep = this.prepare('closestHitBuffers', set, source, options, RAY_OPT_GEOMETRY);
    const n = prep.rays.count;
    const ctx = this.ctx;
    return ctx.sequence('closestHitBuffers', async () => {
      const { packed, flags } = this.pack(set, prep);
      const walk = await this.walkFor(prep.options);
      const hits = ctx.createBuffer({ label: `${ctx.label}:hits`, size: Math.max(16, n * HIT.SIZE), usage: STORAGE_OUT | BufferUsage.VERTEX });
      const geometry = ctx.createBuffer({ label: `${ctx.label}:hit-geometry`, size: Math.max(32, n * HIT_GEOMETRY.SIZE), usage: STORAGE_OUT | BufferUsage.VERTEX });
      const params = this.params(n, set.count, flags, 0);
      const rays = this.upload(packed, 'rays');
      try {
        if (n > 0) {
          // Results stay on the GPU, so a BVH stack overflow (never expected: the stack holds the
          // tree's height bound) cannot be patched here; it is flagged in each Hit's flags
          // (HIT_FLAG_OVERFLOW) for the caller to see.
          await this.dispatch({ query: 'closestHit', set, params, flags, rays, rayCount: n, outputs: { hits, geometry }, operation: 'closestHitBuffers', walk });
        }
      } catch (error) {
        ctx.destroyBuffer(hits);
        ctx.destroyBuffer(geometry);
        throw error;
      } finally {
        // Back to the pool at once: the queue runs in order, so whoever takes them next writes
        // them (queue.writeBuffer) only after this dispatch has read them.
        this.pool.release(params);
        this.pool.release(rays);
        this.pool.release(walk?.overflow);
      }
      return {
        hits, geometry, count: n, origin: [set.origin[0], set.origin[1], set.origin[2]] as const,
        destroy: () => {
          ctx.destroyBuffer(hits);
          ctx.destroyBuffer(geometry);
        },
      };
    });
  }

  /**
   * Records a closest-hit dispatch into the caller's encoder, over rays already on the GPU
   * (`Ray` records, positions relative to `set.origin`). The caller submits and owns every buffer.
   *
   * @example
   * declare const rayBuffer: GPUBuffer, hitBuffer: GPUBuffer, geometryBuffer: GPUBuffer; // yours: Ray in, Hit and HitGeometry out
   * const enc = device.createCommandEncoder();
   * await rq.encodeClosestHit(enc, set, rayBuffer, 1, hitBuffer, geometryBuffer);
   * // … a render pass reading geometryBuffer …
   * device.queue.submit([enc.finish()]);
   */
  async encodeClosestHit(
    encoder: GPUCommandEncoder, set: BoxSet, rays: GPUBuffer, rayCount: number,
    hits: GPUBuffer, geometry: GPUBuffer,
    options: {
      readonly solid?: boolean; readonly geometry?: boolean; readonly timestampWrites?: GPUComputePassTimestampWrites;
      /** Walk this tree (current for the set: see ObbGpu.bvhOf); overflowed rays get HIT_FLAG_OVERFLOW. */
      readonly tree?: Bvh;
    } = {},
  ): Promise<void> {
    const op = 'encodeClosestHit';
    checkSet(this.ctx, set, 'set', op);
    if (!Number.isInteger(rayCount) || rayCount < 0) {
      throw new ValidationError('argument', undefined, 'rayCount', `must be a non-negative integer (got ${String(rayCount)})`);
    }
    const geometryOut = options.geometry !== false;
    const sizes: [string, GPUBuffer, number][] = [['rays', rays, rayCount * RAY.SIZE], ['hits', hits, rayCount * HIT.SIZE]];
    // Without geometry the buffer is still bound: one HitGeometry record, the binding's minimum.
    sizes.push(['geometry', geometry, geometryOut ? rayCount * HIT_GEOMETRY.SIZE : HIT_GEOMETRY.SIZE]);
    for (const [field, buffer, need] of sizes) {
      if (!buffer || typeof buffer.size !== 'number' || buffer.size < need) {
        throw new ValidationError('argument', undefined, field, `must be a GPUBuffer of at least ${need} bytes for ${rayCount} rays (got ${buffer?.size ?? String(buffer)})`);
      }
    }
    // Buffer usages are left to WebGPU's own validation, which the error scope turns into a
    // GpuError naming this operation.
    let flags = geometryOut ? RAY_OPT_GEOMETRY : 0;
    if (options.solid === false) {
      flags |= RAY_OPT_NOT_SOLID;
    }
    if (set.masks) {
      flags |= RAY_OPT_BOX_MASKS;
    }
    const params = this.encodedParams(rayCount, set.count, flags);
    const walk = options.tree ? { bvh: options.tree, overflow: this.encodedOverflow() } : undefined;
    await this.dispatch({ query: 'closestHit', set, params, flags, rays, rayCount, outputs: { hits, geometry }, encoder, timestampWrites: options.timestampWrites, operation: op, walk });
  }

  /** The overflow counter of BVH dispatches in callers' encoders (never read: hits carry the flag). */
  private encodedOverflow(): GPUBuffer {
    this.overflowBuffer ??= this.ctx.createBuffer({ label: `${this.ctx.label}:encoded-overflow`, size: 16, usage: STORAGE_OUT });
    return this.overflowBuffer;
  }

  /**
   * The uniform of a dispatch recorded into a caller's encoder. The caller submits when it
   * likes, so the buffer must never change afterwards: one immutable buffer per distinct
   * (ray count, box count, flags), cached (a picking loop reuses one), freed with the context.
   * The cache keeps the newest ENCODED_PARAMS_CACHE entries; an evicted entry is destroyed, which
   * only matters for an encoder left unsubmitted across that many distinct encodes.
   */
  private encodedParams(rayCount: number, boxCount: number, flags: number): GPUBuffer {
    const key = `${rayCount}:${boxCount}:${flags}`;
    const cached = this.paramsCache.get(key);
    if (cached) {
      return cached;
    }
    const data = new Uint32Array(RAY_PARAMS.SIZE / 4);
    data[RAY_PARAMS.RAY_COUNT / 4] = rayCount;
    data[RAY_PARAMS.BOX_COUNT / 4] = boxCount;
    data[RAY_PARAMS.FLAGS / 4] = flags;
    const buffer = this.ctx.createBuffer({ label: `${this.ctx.label}:encoded-rays:params`, size: RAY_PARAMS.SIZE, usage: UNIFORM });
    this.ctx.device.queue.writeBuffer(buffer, 0, data);
    this.paramsCache.set(key, buffer);
    if (this.paramsCache.size > ENCODED_PARAMS_CACHE) {
      const [oldestKey, oldest] = this.paramsCache.entries().next().value as [string, GPUBuffer];
      this.paramsCache.delete(oldestKey);
      this.ctx.destroyBuffer(oldest);
    }
    return buffer;
  }

  /**
   * Whether each ray hits any box (1) or none (0).
   *
   * @example
   * const occluded = await rq.anyHit(set, rays); // shadow rays toward a light: 1 = in shadow
   */
  async anyHit(set: BoxSet, source: RaySource, options: GpuRayOptions = {}): Promise<Uint8Array> {
    const given = this.prepare('anyHit', set, source, options);
    const n = given.rays.count;
    if (n === 0) {
      return new Uint8Array(0);
    }
    const order = this.walkOrder(given);
    const prep = order ? reordered(given, order) : given;
    const epoch = this.ctx.epoch;
    const buffers = await this.ctx.sequence('anyHit', async () => {
      const { packed, flags: rayFlags } = this.pack(set, prep);
      const walk = await this.walkFor(prep.options);
      const params = this.params(n, set.count, rayFlags, 0);
      const rays = this.upload(packed, 'rays');
      const flags = this.pool.acquire(n * 4, STORAGE_OUT, 'any-flags');
      const all = walk ? [params, rays, flags, walk.overflow] : [params, rays, flags];
      try {
        // As closestHit: the kernel and the copy of its flags in one submission.
        const kernel = await this.recorder({ query: 'anyHit', set, params, flags: rayFlags, rays, rayCount: n, outputs: { anyFlags: flags }, walk });
        const reads = this.ctx.readbackParts([{ source: flags, size: n * 4 }], kernel.label, epoch, undefined, kernel.record);
        return { all, reads, snapshot: walk ? snapshotOf(set, prep.options) : undefined };
      } catch (error) {
        all.forEach((b) => this.pool.release(b));
        throw error;
      }
    });
    try {
      const bytes = (await buffers.reads)[0]!;
      const out = Uint8Array.from(new Uint32Array(bytes));
      if (buffers.snapshot) {
        patchAnyOverflow(out, prep.rays, buffers.snapshot);
      }
      return order ? unordered(out, order) : out;
    } finally {
      buffers.all.forEach((b) => this.pool.release(b));
    }
  }

  /**
   * Every (ray, box) hit, sorted by ray, t, box. Output is appended on the GPU with an atomic
   * counter; when it exceeds `capacity` the kernel re-runs with exactly the needed capacity, so
   * nothing is dropped (`runs` says how many passes it took). Later operations on the set wait
   * until this query has its complete answer.
   *
   * @example
   * const all = await rq.allHits(set, rays, { capacity: 4096 });
   */
  async allHits(set: BoxSet, source: RaySource, options: GpuRayOptions & { readonly capacity?: number } = {}): Promise<GpuAllHits> {
    checkCapacity(options.capacity);
    const prep = this.prepare('allHits', set, source, options);
    const n = prep.rays.count;
    const op = 'allHits';
    return this.ctx.sequence(op, async () => {
      // The first guess never exceeds what one binding can hold; the re-run asks for exactly
      // the count, and a count beyond the limit is a CapacityError, never a truncated list.
      let capacity = options.capacity ?? Math.max(1, Math.min(Math.max(1024, 4 * n), Math.floor(this.ctx.limits.maxStorageBufferBindingSize / HIT_RECORD.SIZE)));
      const { packed, flags } = this.pack(set, prep);
      const rays = this.upload(packed, 'rays');
      let walk = await this.walkFor(prep.options);
      try {
        for (let runs = 1; ; runs++) {
          this.ctx.assertBindingFits('all-hits list', capacity * HIT_RECORD.SIZE);
          const params = this.params(n, set.count, flags, capacity);
          const records = this.pool.acquire(capacity * HIT_RECORD.SIZE, STORAGE_OUT, 'hit-records');
          const counter = this.pool.acquire(4, STORAGE_OUT, 'hit-counter');
          try {
            this.ctx.device.queue.writeBuffer(counter, 0, new Uint32Array(1));
            const perRay = walk ? this.pool.acquire(n * 4, STORAGE_OUT, 'all-hits-overflow') : undefined;
            try {
              if (n > 0) {
                await this.dispatch({ query: 'allHits', set, params, flags, rays, rayCount: n, outputs: perRay ? { anyFlags: perRay, records, counter } : { records, counter }, operation: op, walk });
              }
              // A BVH walk that overflowed its stack (never expected) makes the whole list
              // suspect: answer by brute force instead, on the same data (still this turn).
              if (walk && new Uint32Array(await this.ctx.readback(walk.overflow, 4, 0, op))[0]! > 0) {
                this.pool.release(walk.overflow);
                walk = undefined;
                runs--;
                continue;
              }
            } finally {
              this.pool.release(perRay);
            }
            const total = new Uint32Array(await this.ctx.readback(counter, 4, 0, op))[0]!;
            if (total <= capacity) {
              const bytes = await this.ctx.readback(records, total * HIT_RECORD.SIZE, 0, op);
              return unpackAllHits(bytes, total, runs);
            }
            capacity = total;
          } finally {
            this.pool.release(params);
            this.pool.release(records);
            this.pool.release(counter);
          }
        }
      } finally {
        this.pool.release(rays);
        this.pool.release(walk?.overflow);
      }
    });
  }
}

/** The boxes, masks and filters of one query's turn (for the overflow fallback). */
interface QuerySnapshot {
  readonly boxes: BoxSet['boxes'];
  readonly options: RaycastOptions;
}

function snapshotOf(set: BoxSet, options: GpuRayOptions): QuerySnapshot {
  // set.boxes is replaced, never mutated, by later changes: holding it is a snapshot.
  const o: { -readonly [K in keyof RaycastOptions]: RaycastOptions[K] } = {};
  if (options.solid !== undefined) {
    o.solid = options.solid;
  }
  if (set.masks) {
    o.boxMasks = set.masks;
  }
  if (options.rayMasks) {
    o.rayMasks = options.rayMasks;
  }
  if (options.exclude) {
    o.exclude = options.exclude;
  }
  return { boxes: set.boxes, options: o };
}

/** The rays `indices` of `rays`, with their per-ray filters. */
function subset(rays: RayArray, indices: readonly number[], options: RaycastOptions): { rays: RayArray; options: RaycastOptions } {
  const data = new Float64Array(indices.length * RAY_F64.STRIDE);
  indices.forEach((r, k) => data.set(rays.data.subarray(r * RAY_F64.STRIDE, (r + 1) * RAY_F64.STRIDE), k * RAY_F64.STRIDE));
  const o: { -readonly [K in keyof RaycastOptions]: RaycastOptions[K] } = { ...options };
  if (options.rayMasks) {
    o.rayMasks = Uint32Array.from(indices, (r) => options.rayMasks![r]!);
  }
  if (options.exclude) {
    o.exclude = Int32Array.from(indices, (r) => options.exclude![r]!);
  }
  return { rays: { count: indices.length, data }, options: o };
}

/**
 * Rays whose BVH walk overflowed its stack (flagged HIT_FLAG_OVERFLOW; never expected, the stack
 * holds the tree's height bound) are answered by the float64 reference on the boxes of the
 * query's turn, so nothing is silently lost.
 */
function patchClosestOverflow(hitBytes: ArrayBuffer, result: GpuClosestHits, rays: RayArray, snap: QuerySnapshot): void {
  const u = new Uint32Array(hitBytes);
  const stride = HIT.SIZE / 4;
  const redo: number[] = [];
  for (let r = 0; r < result.count; r++) {
    if (u[r * stride + HIT.FLAGS / 4]! & HIT_FLAG_OVERFLOW) {
      redo.push(r);
    }
  }
  if (redo.length === 0) {
    return;
  }
  const sub = subset(rays, redo, snap.options);
  const ref = closestHitReference(snap.boxes, sub.rays, sub.options);
  redo.forEach((r, k) => {
    const box = ref.box[k]!;
    result.box[r] = box;
    result.t[r] = ref.t[k]!;
    result.face[r] = ref.face[k]!;
    result.inside[r] = ref.inside[k]!;
    if (result.point) {
      for (let c = 0; c < 3; c++) {
        result.point[3 * r + c] = box >= 0 ? rays.data[r * RAY_F64.STRIDE + RAY_F64.ORIGIN + c]! + ref.t[k]! * rays.data[r * RAY_F64.STRIDE + RAY_F64.DIR + c]! : NaN;
      }
    }
    if (result.normal) {
      const n = box >= 0 ? faceNormal(boxAt(snap.boxes, box), ref.face[k]!) : undefined;
      result.normal.set(n ?? [0, 0, 0], 3 * r);
    }
  });
}

/** anyHit's counterpart of patchClosestOverflow (the kernel writes 2 for an overflowed walk). */
function patchAnyOverflow(out: Uint8Array, rays: RayArray, snap: QuerySnapshot): void {
  const redo: number[] = [];
  out.forEach((v, r) => {
    if (v === 2) {
      redo.push(r);
    }
  });
  if (redo.length === 0) {
    return;
  }
  const sub = subset(rays, redo, snap.options);
  const ref = anyHitReference(snap.boxes, sub.rays, sub.options);
  redo.forEach((r, k) => {
    out[r] = ref[k]!;
  });
}

/** Batches up to this many rays are sorted by direction (RayKernelTuning.sortRays). */
export const SORT_RAYS_MAX = 65_536;

/** Spreads the low 10 bits of x to every third bit (a Morton code's axis). */
function spread10(v: number): number {
  let x = v & 0x3ff;
  x = (x | (x << 16)) & 0x030000ff;
  x = (x | (x << 8)) & 0x0300f00f;
  x = (x | (x << 4)) & 0x030c30c3;
  x = (x | (x << 2)) & 0x09249249;
  return x;
}

/**
 * The rays of `rays` in the order of their unit directions' 30-bit Morton codes (ties by index):
 * order[k] is the caller's index of the k-th ray walked. At most SORT_RAYS_MAX rays.
 */
export function directionOrder(rays: RayArray): Uint32Array {
  const n = rays.count;
  const keyed = new Float64Array(n);
  const q = (x: number): number => Math.min(1023, Math.max(0, Math.floor((x + 1) * 512)));
  for (let r = 0; r < n; r++) {
    const o = r * RAY_F64.STRIDE + RAY_F64.DIR;
    const key = ((spread10(q(rays.data[o]!)) << 2) | (spread10(q(rays.data[o + 1]!)) << 1) | spread10(q(rays.data[o + 2]!))) >>> 0;
    keyed[r] = key * SORT_RAYS_MAX + r;
  }
  keyed.sort();
  return Uint32Array.from(keyed, (v) => v % SORT_RAYS_MAX);
}

/** `prep` with its rays and per-ray filters in `order` (see directionOrder). */
function reordered(prep: PreparedRays, order: Uint32Array): PreparedRays {
  const S = RAY_F64.STRIDE;
  const data = new Float64Array(order.length * S);
  order.forEach((r, k) => data.set(prep.rays.data.subarray(r * S, (r + 1) * S), k * S));
  const options: { -readonly [K in keyof GpuRayOptions]: GpuRayOptions[K] } = { ...prep.options };
  if (prep.options.rayMasks) {
    options.rayMasks = Uint32Array.from(order, (r) => prep.options.rayMasks![r]!);
  }
  if (prep.options.exclude) {
    options.exclude = Int32Array.from(order, (r) => prep.options.exclude![r]!);
  }
  return { rays: { count: order.length, data }, options, extraFlags: prep.extraFlags };
}

/** Per-ray arrays (`per` values a ray) back in the caller's order: out[order[k]] = a[k]. */
function unordered<T extends Int32Array | Float32Array | Float64Array | Uint8Array>(a: T, order: Uint32Array, per = 1): T {
  // Every entry is written below: a fresh array of the same type, not a copy.
  const out = new (a.constructor as new (length: number) => T)(a.length);
  order.forEach((r, k) => {
    for (let c = 0; c < per; c++) {
      out[r * per + c] = a[k * per + c]!;
    }
  });
  return out;
}

function unpackClosest(hitBytes: ArrayBuffer, geometryBytes: ArrayBuffer | undefined, rays: RayArray): GpuClosestHits {
  const n = rays.count;
  const f = new Float32Array(hitBytes);
  const u = new Uint32Array(hitBytes);
  const stride = HIT.SIZE / 4;
  const box = new Int32Array(n);
  const t = new Float32Array(n);
  const face = new Uint8Array(n);
  const inside = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    const b = u[i * stride + HIT.BOX / 4]!;
    if (b === NO_BOX) {
      box[i] = -1;
      t[i] = Infinity;
      face[i] = FACE_NONE;
      continue;
    }
    box[i] = b;
    t[i] = f[i * stride + HIT.T / 4]!;
    face[i] = u[i * stride + HIT.FACE / 4]! & 0xff;
    inside[i] = u[i * stride + HIT.FLAGS / 4]! & HIT_FLAG_INSIDE ? 1 : 0;
  }
  if (!geometryBytes) {
    return { count: n, box, t, face, inside };
  }
  const g = new Float32Array(geometryBytes);
  const gs = HIT_GEOMETRY.SIZE / 4;
  const point = new Float64Array(3 * n).fill(NaN);
  const normal = new Float32Array(3 * n);
  for (let i = 0; i < n; i++) {
    if (box[i]! < 0) {
      continue;
    }
    const r = i * RAY_F64.STRIDE;
    for (let k = 0; k < 3; k++) {
      point[3 * i + k] = rays.data[r + RAY_F64.ORIGIN + k]! + t[i]! * rays.data[r + RAY_F64.DIR + k]!;
      normal[3 * i + k] = g[i * gs + HIT_GEOMETRY.NORMAL / 4 + k]!;
    }
  }
  return { count: n, box, t, face, inside, point, normal };
}

function unpackAllHits(bytes: ArrayBuffer, total: number, runs: number): GpuAllHits {
  const f = new Float32Array(bytes);
  const u = new Uint32Array(bytes);
  const s = HIT_RECORD.SIZE / 4;
  const order = Array.from({ length: total }, (_, k) => k);
  const rayOf = (k: number) => u[k * s + HIT_RECORD.RAY / 4]!;
  const boxOf = (k: number) => u[k * s + HIT_RECORD.BOX / 4]!;
  const tOf = (k: number) => f[k * s + HIT_RECORD.T / 4]!;
  order.sort((a, b) => rayOf(a) - rayOf(b) || tOf(a) - tOf(b) || boxOf(a) - boxOf(b));
  const out = {
    count: total, runs,
    ray: new Uint32Array(total), box: new Uint32Array(total), t: new Float32Array(total),
    face: new Uint8Array(total), inside: new Uint8Array(total),
  };
  order.forEach((k, i) => {
    const ff = u[k * s + HIT_RECORD.FACE_FLAGS / 4]!;
    out.ray[i] = rayOf(k);
    out.box[i] = boxOf(k);
    out.t[i] = tOf(k);
    out.face[i] = ff & 0xff;
    out.inside[i] = (ff >> 8) & HIT_FLAG_INSIDE ? 1 : 0;
  });
  return out;
}
