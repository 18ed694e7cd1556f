/**
 * The GPU backend in one object (the facade over every query module): a context, a buffer pool,
 * box sets and every query. Who owns what is written down in src/runtime/lifetime.ts.
 */
import { BVH_REBUILD_SAH_RATIO, BVH_SAH_PROBE_REFRESHES, WORKGROUP_SIZE } from './constants.ts';
import type { BoxInput } from './core/types.ts';
import { ShaderCompileError, ValidationError, WebGpuUnavailableError } from './errors.ts';
import type { SatOptions } from './core/queries.ts';
import { BoxSet, checkSet, type BoxSetOptions, type BoxSource } from './boxes/BoxSet.ts';
import { GpuSourcedBoxSet, type GpuBoxSetOptions, type RefreshTree } from './boxes/GpuSourcedBoxSet.ts';
import { checkBound } from './runtime/lifetime.ts';
import { BufferPool } from './runtime/pool.ts';
import { GpuContext, INSTANCE_HINT, oneLine, type GpuContextOptions } from './runtime/context.ts';
import type { RaySource } from './core/inputs.ts';
import { PairQueries, type GpuPairList, type GpuPairResults, type PairListOptions } from './pairs/PairQueries.ts';
import { PairListBuffers, type PairListBuffersOptions } from './pairs/PairListBuffers.ts';
import { getKernel, type KernelName } from './runtime/pipelines.ts';
import { Bvh } from './tree/Bvh.ts';
import { FrustumCuller, type FrustumDraw, type GpuPlanes } from './frustum/FrustumCuller.ts';
import { LidarSensor, type LidarOptions, type LidarSweep, type LidarSweepJob, type LidarSweepOptions } from './lidar/LidarSensor.ts';
import type { LidarDescription, LidarPose } from './core/lidar.ts';
import type { Plane } from './core/frustum.ts';
import { RayQueries, type RayKernelTuning, type GpuAllHits, type GpuClosestHits, type GpuHitBuffers, type GpuRayOptions } from './rays/RayQueries.ts';

/**
 * Options of {@link ObbGpu.create}: those of the context (device, adapter, `limits`,
 * `autoRecover`, …) plus the kernels' workgroup size and ray-kernel tuning.
 */
export interface ObbGpuOptions extends GpuContextOptions {
  readonly workgroupSize?: number;
  readonly rayTuning?: Partial<RayKernelTuning>;
  /** Set sizes from which `accel: 'auto'` walks a BVH (defaults: BVH_THRESHOLDS). */
  readonly bvhThresholds?: Partial<BvhThresholds>;
  /**
   * A set's tree is rebuilt instead of refitted once refits have grown its SAH cost past this
   * many times its cost when built (default BVH_REBUILD_SAH_RATIO, 1.5; ≥ 1; Infinity: refit
   * always). A few rays per frame may favour a higher ratio (a rebuild costs two to three refits;
   * see docs/bvh.md, "Refit or rebuild"); sweeps and all-pairs, the default.
   */
  readonly rebuildSahRatio?: number;
}

/**
 * How a query finds its boxes: 'brute' tests every box (workgroup-tiled), 'bvh' walks a GPU-built
 * tree (built on first use, refitted after `update` — rebuilt instead once refits have loosened
 * it past ObbGpuOptions.rebuildSahRatio × its built SAH cost — and rebuilt after `set` or `rebase`), 'auto'
 * (default) picks the tree from the thresholds below.
 */
export type Accel = 'auto' | 'bvh' | 'brute';

/** Set sizes from which 'auto' uses the BVH. */
export interface BvhThresholds {
  /** Ray queries: boxes in the set. */
  readonly rays: number;
  /** Pair lists (allPairs, obbCross): boxes in the larger set. */
  readonly pairs: number;
}

/**
 * Measured on the development machine (SwiftShader, bench `npm run bench`): for ray queries the
 * tree (build amortised over repeated queries, refit after updates) wins from a few hundred
 * boxes; for all-pairs, from about a thousand. A query that follows a change of the set pays a
 * refit or a rebuild first; pass accel explicitly to override.
 */
export const BVH_THRESHOLDS: BvhThresholds = { rays: 512, pairs: 1024 };

/** Ray-query options of ObbGpu: the filters, and how to find the boxes. */
export type ObbRayOptions = Omit<GpuRayOptions, 'tree'> & { readonly accel?: Accel };

/** Pair-list options of ObbGpu. */
export type ObbPairListOptions = Omit<PairListOptions, 'tree' | 'grid'> & { readonly accel?: Accel };
/** Options of ObbGpu.allPairs: `accel` may also be 'grid'. */
export type ObbAllPairsOptions = Omit<PairListOptions, 'tree' | 'grid'> & { readonly accel?: Accel | 'grid' };

interface TreeState {
  bvh: Bvh;
  /** The context's device generation the tree was made on (see GpuContext.epoch). */
  epoch: object;
  version: number;
  shapeVersion: number;
  /** The SAH cost right after the last build, and the last build's or refit's (read back after each). */
  builtSah: number;
  sah: number;
  /** The read-back of the last build's or refit's SAH cost (awaited before the next decision). */
  probe: Promise<void> | undefined;
  /**
   * GPU-sourced sets, whose tree a refresh keeps inside the caller's encoder (encodeTreeRefresh):
   * what the next refresh reads back the SAH cost of (the work the previous refresh recorded:
   * 'build' after each rebuild, 'refit' every BVH_SAH_PROBE_REFRESHES refits), and the refits
   * since the last read-back.
   */
  probeNext?: 'build' | 'refit' | undefined;
  refitsSinceProbe?: number;
}

/**
 * LiDAR options that read the set's float64 host boxes (the per-point fields; boxes moving during
 * the sweep): refused on a GPU-sourced set, which has none.
 */
function checkSweepOnSourced(set: BoxSet, options: LidarSweepOptions, field: string): void {
  if (!(set instanceof GpuSourcedBoxSet)) {
    return;
  }
  const needs = options.fields ? 'fields' : options.boxMotion && options.boxMotion.boxes.length > 0 ? 'boxMotion' : undefined;
  if (needs) {
    throw new ValidationError('argument', undefined, `${field}.${needs}`, `reads the set's float64 host boxes, which a GPU-sourced set has not (read them back with readBack() and sweep a set made from them)`);
  }
}

const CORE_KERNELS: readonly KernelName[] = ['closestHit', 'anyHit', 'allHits', 'obbPairs', 'obbOneVsMany', 'obbCross'];

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
  readonly thresholds: BvhThresholds;
  /** Sets, sensors and cullers made through this object (or given a tree here), until destroyed. */
  private readonly owned = new Set<{ destroy(): void }>();
  /** The tree of each set that has one; dropped (and freed) when its set is destroyed. */
  private readonly trees = new Map<BoxSet, TreeState>();
  /** See ObbGpuOptions.rebuildSahRatio. */
  private rebuildSahRatio = BVH_REBUILD_SAH_RATIO;

  private constructor(ctx: GpuContext, workgroupSize: number, rayTuning: Partial<RayKernelTuning> | undefined, thresholds: BvhThresholds) {
    this.ctx = ctx;
    this.pool = new BufferPool(ctx);
    this.rays = new RayQueries(ctx, this.pool, workgroupSize, rayTuning);
    this.pairs = new PairQueries(ctx, this.pool, workgroupSize);
    this.thresholds = thresholds;
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
    const rebuildRatio = options.rebuildSahRatio ?? BVH_REBUILD_SAH_RATIO;
    if (typeof rebuildRatio !== 'number' || !(rebuildRatio >= 1)) {
      throw new ValidationError('argument', undefined, 'rebuildSahRatio', `must be a number ≥ 1 or Infinity (got ${String(rebuildRatio)})`);
    }
    const ctx = await GpuContext.create(options);
    let gpu: ObbGpu;
    try {
      gpu = new ObbGpu(ctx, workgroupSize, options.rayTuning, { ...BVH_THRESHOLDS, ...options.bvhThresholds });
      gpu.rebuildSahRatio = rebuildRatio;
      // The brute-force kernels compile now (their errors surface here); the BVH's compile on
      // first use, so a program that never needs a tree never pays for one.
      const rayKernels = new Set<KernelName>(['closestHit', 'anyHit', 'allHits']);
      await Promise.all(CORE_KERNELS.map((k) =>
        getKernel(ctx.device, k, workgroupSize, rayKernels.has(k) ? gpu.rays.constants : {})));
    } catch (error) {
      ctx.destroy();
      // A WGSL error is ours (ShaderCompileError); anything else here (an OperationError from a
      // dropped instance or error scope) means WebGPU itself failed under us.
      if (error instanceof ShaderCompileError || error instanceof ValidationError || error instanceof WebGpuUnavailableError) {
        throw error;
      }
      throw new WebGpuUnavailableError('instance-lost', `WebGPU failed while the kernels were prepared (${oneLine(error)}). ${INSTANCE_HINT}`, { cause: error });
    }
    return gpu;
  }

  /**
   * After a device loss (or on demand): a new device, and every live BoxSet rebuilt there from
   * its float64 host copy. The sets stay the same objects, so references held elsewhere stay
   * valid. Queries issued before the call fail with DeviceLostError; queries issued after it
   * wait for the new device and answer as if nothing happened. Kernels compile again on first
   * use (they compiled before, so this cannot fail for a WGSL reason). Buffers handed out
   * earlier (`closestHitBuffers`) died with the old device, and LiDAR sensors and frustum
   * cullers made before must be made again (using one is a StaleObjectError). Pass `device`
   * when this object wraps a device of yours. See also the `autoRecover` option.
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

  /** Keeps `object` until its own destroy() (and destroys it with this ObbGpu). */
  private own<T extends { destroy(): void; onDestroy(hook: () => void): () => void }>(object: T): T {
    if (!this.owned.has(object)) {
      this.owned.add(object);
      object.onDestroy(() => {
        this.owned.delete(object);
      });
    }
    return object;
  }

  /**
   * Validates and uploads boxes; the set lives on the GPU until `destroy()`, which also frees
   * the tree this object built for it.
   */
  createBoxSet(boxes: BoxSource, options?: BoxSetOptions): BoxSet;
  /**
   * A set whose boxes live on the GPU: derived, by `refresh(encoder)`, from a buffer your own
   * passes write (instance matrices or box records; see GpuBoxSource), with no CPU copy. This
   * object keeps its tree current inside the refresh's encoder (RefreshOptions.tree).
   *
   * @example
   * declare const matrices: GPUBuffer; // STORAGE | COPY_SRC
   * const sourced = gpu.createBoxSet({ source: { buffer: matrices, layout: 'mat4x4f', count: 1000, localBox: { min: [-1, -1, -1], max: [1, 1, 1] } } });
   * await sourced.refresh(); // its own submission; pass your encoder to record it there instead
   */
  createBoxSet(options: GpuBoxSetOptions): GpuSourcedBoxSet;
  createBoxSet(boxes: BoxSource | GpuBoxSetOptions, options: BoxSetOptions = {}): BoxSet {
    if (typeof boxes === 'object' && boxes !== null && !Array.isArray(boxes) && 'source' in boxes) {
      return this.ownSet(GpuSourcedBoxSet.fromSource(this.ctx, boxes));
    }
    return this.ownSet(BoxSet.create(this.ctx, boxes as BoxSource, options));
  }

  /** Owns `set` and frees its tree when it is destroyed (sets made with BoxSet.create too). */
  private ownSet<S extends BoxSet>(set: S): S {
    if (!this.owned.has(set)) {
      this.own(set);
      set.onDestroy(() => {
        this.trees.get(set)?.bvh.destroy();
        this.trees.delete(set);
      });
      if (set instanceof GpuSourcedBoxSet) {
        set.manageTree((encoder, mode, operation, timestampWrites) => this.encodeTreeRefresh(set, encoder, mode, operation, timestampWrites));
      }
    }
    return set;
  }

  /**
   * A GPU-sourced set's refresh (GpuSourcedBoxSet.refresh), after its derivation was recorded into
   * `encoder` and the set's count and version moved: records the tree's upkeep into the same
   * encoder, so that a frame is one submission with no readback. By the rule currentTree applies
   * (rebuild when the count or shape changed or refits loosened the tree past rebuildSahRatio ×
   * its built SAH cost, else refit), but deciding on the SAH cost last read back instead of waiting
   * for one: the cost is read back (16 bytes, its own small submission) after each rebuild and every
   * BVH_SAH_PROBE_REFRESHES refits, at the refresh after the one that recorded the work (whose
   * encoder is submitted by then in a frame loop). `mode`: RefreshOptions.tree. The tree's
   * bookkeeping says current from here: the caller submits the encoder before other work on the set.
   */
  private async encodeTreeRefresh(
    set: GpuSourcedBoxSet, encoder: GPUCommandEncoder, mode: RefreshTree, operation: string, timestampWrites?: GPUComputePassTimestampWrites,
  ): Promise<'none' | 'refit' | 'rebuild'> {
    if (mode === 'none' || set.count < 2) {
      return 'none';
    }
    const epoch = this.ctx.epoch;
    const old = this.trees.get(set);
    if (!old && mode === 'auto' && this.accelFor('rays', set.count) !== 'bvh') {
      return 'none';
    }
    const stale = !old || old.epoch !== epoch || old.bvh.capacity < set.count;
    // A sourced set knows its capacity: a tree made for it never has to grow.
    const fresh = stale ? await Bvh.create(this.ctx, set, Math.max(set.count, set.boxCapacity)) : undefined;
    const bvh = fresh ?? (old as TreeState).bvh;
    const countBefore = bvh.count;
    let rebuild = true;
    try {
      set.assertUsable(operation);
      this.ctx.assertEpoch(operation, epoch);
      if (!fresh && old) {
        const loose = old.builtSah > 0 && old.sah > this.rebuildSahRatio * old.builtSah;
        rebuild = old.shapeVersion !== set.shapeVersion || old.bvh.count !== set.count || loose;
      }
      if (rebuild) {
        await bvh.encodeBuild(encoder, timestampWrites);
      } else {
        await bvh.encodeRefit(encoder, timestampWrites);
      }
      set.assertUsable(operation);
    } catch (error) {
      if (fresh) {
        fresh.destroy();
      } else {
        bvh.abandonBuild(countBefore);
      }
      throw error;
    }
    let st = old;
    if (fresh || !st) {
      old?.bvh.destroy();
      st = { bvh, epoch, version: -1, shapeVersion: -1, builtSah: 0, sah: 0, probe: undefined };
      this.trees.set(set, st);
    }
    const state = st;
    // The read-back due for the work the previous refresh recorded (submitted by now).
    const due = state.probeNext;
    if (due !== undefined && !fresh) {
      state.probeNext = undefined;
      state.refitsSinceProbe = 0;
      state.probe = state.bvh.probeSah().then((sah) => {
        state.sah = sah;
        if (due === 'build') {
          state.builtSah = sah;
        }
      }, () => {
        state.probe = undefined;
      });
    }
    state.version = set.version;
    state.shapeVersion = set.shapeVersion;
    if (rebuild) {
      state.probeNext = 'build';
    } else {
      state.refitsSinceProbe = (state.refitsSinceProbe ?? 0) + 1;
      if (state.probeNext === undefined && state.refitsSinceProbe >= BVH_SAH_PROBE_REFRESHES) {
        state.probeNext = 'refit';
      }
    }
    return rebuild ? 'rebuild' : 'refit';
  }

  /**
   * The tree over `set`, current for the set at the caller's turn in the context's sequence:
   * created on first use, refitted when boxes moved (update), rebuilt when they were replaced or
   * re-based (set, rebase), after a device recovery, or when `force`d (buildBvh). Call only inside
   * a sequenced operation (the queries do); use {@link buildBvh} to build ahead of time.
   *
   * The tree's bookkeeping changes only once its build or refit was submitted on a live device
   * (GpuContext.scoped checks the device after the submission's error scopes): a call the
   * device's loss overtakes rejects with DeviceLostError and leaves the set's tree as it was (a
   * new tree made for it is freed, a rebuilt one says what it said before).
   */
  private async currentTree(set: BoxSet, operation: string, force = false): Promise<Bvh | undefined> {
    set.assertUsable(operation);
    if (set.count < 2) {
      return undefined; // the kernels handle 0 and 1 boxes without a tree
    }
    const epoch = this.ctx.epoch;
    const old = this.trees.get(set);
    const stale = !old || old.epoch !== epoch || old.bvh.capacity < set.count;
    if (!stale && old.version === set.version && !force) {
      return old.bvh;
    }
    // A tree made now replaces the old one only once it is built.
    let fresh: Bvh | undefined;
    let bvh: Bvh;
    if (stale) {
      fresh = await Bvh.create(this.ctx, set, Math.max(set.count, old ? Math.ceil(old.bvh.capacity * 1.5) : 0));
      bvh = fresh;
    } else {
      bvh = old.bvh;
    }
    const countBefore = bvh.count;
    let rebuild = true;
    try {
      // Destroyed (or the device gone) while the tree was being made.
      set.assertUsable(operation);
      this.ctx.assertEpoch(operation, epoch);
      if (!fresh && old) {
        // The last refit's SAH cost (read back after it; done by now in a frame loop) decides
        // whether this change refits the tree or rebuilds it.
        await old.probe;
        const loose = old.builtSah > 0 && old.sah > this.rebuildSahRatio * old.builtSah;
        rebuild = force || old.shapeVersion !== set.shapeVersion || old.bvh.count !== set.count || loose;
      }
      const encoder = this.ctx.device.createCommandEncoder({ label: `${this.ctx.label}:bvh` });
      if (rebuild) {
        await bvh.encodeBuild(encoder);
      } else {
        await bvh.encodeRefit(encoder);
      }
      await this.ctx.scoped(`BVH ${rebuild ? 'build' : 'refit'} (${set.count} boxes)`, () => this.ctx.device.queue.submit([encoder.finish()]), epoch);
      set.assertUsable(operation);
    } catch (error) {
      if (fresh) {
        fresh.destroy();
      } else {
        bvh.abandonBuild(countBefore);
      }
      throw error;
    }
    // Submitted on a live device, in this synchronous run: the tree is now the set's.
    let st = old;
    if (fresh || !st) {
      old?.bvh.destroy();
      st = { bvh, epoch, version: -1, shapeVersion: -1, builtSah: 0, sah: 0, probe: undefined };
      this.ownSet(set);
      this.trees.set(set, st);
    }
    st.version = set.version;
    st.shapeVersion = set.shapeVersion;
    const state = st;
    state.probe = state.bvh.probeSah().then((sah) => {
      state.sah = sah;
      if (rebuild) {
        state.builtSah = sah;
      }
    }, () => {
      // A destroyed tree or a lost device: the next turn rebuilds or refuses anyway.
      state.probe = undefined;
    });
    return st.bvh;
  }

  /**
   * The path a query over `boxes` boxes takes for `accel` (what 'auto' resolves to): 'brute',
   * 'bvh', or for allPairs 'grid' — the grid unless it would be crowded (GRID_MAX_CROWDING, decided
   * from the boxes at the query's turn), then the BVH; brute force where the set's tree would not
   * fit the device's binding limits. The queries decide by this; callers may ask
   * it to say what will run (the CLI's progress lines).
   *
   * @example
   * gpu.accelFor('rays', set.count) // 'bvh' from 512 boxes
   */
  accelFor(query: 'rays' | 'pairs' | 'allPairs', boxes: number, accel: Accel | 'grid' = 'auto'): 'brute' | 'bvh' | 'grid' {
    const allowed = query === 'allPairs' ? ['auto', 'bvh', 'brute', 'grid'] : ['auto', 'bvh', 'brute'];
    if (!allowed.includes(accel)) {
      throw new ValidationError('argument', undefined, 'accel', `must be ${allowed.map((a) => `'${a}'`).join(', ')} (got ${String(accel)})`);
    }
    if (accel !== 'auto') {
      return accel;
    }
    const threshold = query === 'rays' ? this.thresholds.rays : this.thresholds.pairs;
    if (boxes < threshold) {
      return 'brute';
    }
    // A tree that would not fit the device's bindings (its wide records, 128 B per box) is not chosen.
    return query === 'allPairs' ? 'grid' : Bvh.fits(this.ctx, boxes) ? 'bvh' : 'brute';
  }

  private treeOption(set: BoxSet, accel: Accel | undefined, query: 'rays' | 'pairs', operation: string, field = 'set'): (() => Promise<Bvh | undefined>) | undefined {
    checkSet(this.ctx, set, field, operation);
    return this.accelFor(query, set.count, accel) === 'bvh' ? () => this.currentTree(set, operation) : undefined;
  }

  private rayOptions<T extends ObbRayOptions>(set: BoxSet, options: T, operation: string): Omit<T, 'accel'> & { tree?: () => Promise<Bvh | undefined> } {
    const { accel, ...rest } = options;
    const tree = this.treeOption(set, accel, 'rays', operation);
    return tree ? { ...rest, tree } : rest;
  }

  /**
   * Builds (or rebuilds) the BVH over `set` now, in order with the set's other work; later
   * queries with the tree start at once. Also the way to rebuild a tree that many refits have
   * loosened.
   *
   * @example
   * await gpu.buildBvh(set);
   */
  buildBvh(set: BoxSet): Promise<void> {
    const op = 'buildBvh';
    return this.ctx.named(op, async () => {
      checkSet(this.ctx, set, 'set', op);
      await this.ctx.sequence(op, async () => {
        await this.currentTree(set, op, true);
      });
    });
  }

  /**
   * The set's tree, current as of this call's turn (built or refitted first if needed), for
   * callers that record BVH queries into their own encoders (encodeClosestHit's `tree`);
   * undefined for sets of fewer than two boxes, which need none.
   */
  bvhOf(set: BoxSet): Promise<Bvh | undefined> {
    const op = 'bvhOf';
    return this.ctx.named(op, () => {
      checkSet(this.ctx, set, 'set', op);
      return this.ctx.sequence(op, () => this.currentTree(set, op));
    });
  }

  /** Closest hit per ray (see RayQueries.closestHit); `accel` picks brute force or the BVH. */
  closestHit(set: BoxSet, rays: RaySource, options: ObbRayOptions & { readonly geometry?: boolean } = {}): Promise<GpuClosestHits> {
    const op = 'closestHit';
    return this.ctx.named(op, () => this.rays.closestHit(set, rays, this.rayOptions(set, options, op)));
  }

  /** Closest hits left on the GPU for the caller's next pass (the caller destroys them). */
  closestHitBuffers(set: BoxSet, rays: RaySource, options: ObbRayOptions = {}): Promise<GpuHitBuffers> {
    const op = 'closestHitBuffers';
    return this.ctx.named(op, () => this.rays.closestHitBuffers(set, rays, this.rayOptions(set, options, op)));
  }

  /** 1 per ray that hits any box. */
  anyHit(set: BoxSet, rays: RaySource, options: ObbRayOptions = {}): Promise<Uint8Array> {
    const op = 'anyHit';
    return this.ctx.named(op, () => this.rays.anyHit(set, rays, this.rayOptions(set, options, op)));
  }

  /** Every hit, sorted by ray, t, box; never truncated. */
  allHits(set: BoxSet, rays: RaySource, options: ObbRayOptions & { readonly capacity?: number } = {}): Promise<GpuAllHits> {
    const op = 'allHits';
    return this.ctx.named(op, () => this.rays.allHits(set, rays, this.rayOptions(set, options, op)));
  }

  /**
   * A LiDAR sensor whose sweeps generate their rays on the GPU (see LidarSensor); sweep it with
   * {@link lidarSweep}, free it with its `destroy()`.
   *
   * @example
   * const lidar = await gpu.createLidar({ elevations: linearElevations(128, -25, 15), azimuthSteps: 2048, maxRange: 200 });
   * // method: 'raster' (default where the table allows: no tree needed) or 'bvh' (see LidarSensor)
   */
  createLidar(desc: LidarDescription, options: LidarOptions = {}): Promise<LidarSensor> {
    return this.ctx.named('createLidar', async () => this.own(await LidarSensor.create(this.ctx, desc, options)));
  }

  /**
   * One LiDAR sweep over `set`: range image, hit boxes and returns per box; with `points: true`
   * also the points (read back, and left on the GPU in `sensor.pointsBuffer`), with `fields: true`
   * the per-point fields (float64: sensor-frame and world xyz, time, incidence). With `poseEnd`
   * and/or `boxMotion` (and a sensor whose sweepTime > 0), the sensor and the listed boxes move
   * during the sweep (each column at its own time). A sweep by the tree (a sensor of the bvh
   * method) walks the set's managed BVH (built or refitted here when stale); the raster method,
   * with or without motion, needs no tree.
   *
   * @example
   * const sweep = await gpu.lidarSweep(sensor, set, { origin: [12, -3, 1.8], rotation: [0, 0, 0, 1] });
   * const moving = await gpu.lidarSweep(sensor, set, pose, {
   *   poseEnd: { origin: [13, -3, 1.8], rotation: [0, 0, 0, 1] },
   *   boxMotion: { boxes: [3, 9], velocity: [10, 0, 0, 0, -5, 0] },
   * });
   */
  lidarSweep(sensor: LidarSensor, set: BoxSet, pose: LidarPose, options: LidarSweepOptions = {}): Promise<LidarSweep> {
    const op = 'lidarSweep';
    return this.ctx.named(op, () => {
      checkBound(this.ctx, sensor, 'sensor', 'LidarSensor', (v) => v instanceof LidarSensor, op);
      checkSweepOnSourced(set, options, 'options');
      return sensor.sweep(set, () => this.currentTree(set, op), pose, options);
    });
  }

  /**
   * Several sensors swept over one set in one submission and one readback (each with its own
   * table, pose and options; each sensor at most once).
   *
   * @example
   * declare const front: LidarSensor, roof: LidarSensor, frontPose: LidarPose, roofPose: LidarPose;
   * const [fromFront, fromRoof] = await gpu.lidarSweepMany(set, [
   *   { sensor: front, pose: frontPose },
   *   { sensor: roof, pose: roofPose, options: { fields: true } },
   * ]);
   */
  lidarSweepMany(set: BoxSet, sweeps: readonly LidarSweepJob[]): Promise<LidarSweep[]> {
    const op = 'lidarSweepMany';
    return this.ctx.named(op, () => {
      if (Array.isArray(sweeps)) {
        sweeps.forEach((job, k) => {
          checkBound(this.ctx, job?.sensor, `sweeps[${k}].sensor`, 'LidarSensor', (v) => v instanceof LidarSensor, op);
          checkSweepOnSourced(set, job.options ?? {}, `sweeps[${k}].options`);
        });
      }
      return LidarSensor.sweepMany(this.ctx, set, () => this.currentTree(set, op), sweeps, op);
    });
  }

  /**
   * A frustum culler for sets of up to `capacity` boxes (visible list + drawIndexedIndirect
   * arguments on the GPU); free it with its `destroy()`.
   */
  createFrustumCuller(capacity: number): Promise<FrustumCuller> {
    return this.ctx.named('createFrustumCuller', async () => this.own(await FrustumCuller.create(this.ctx, capacity)));
  }

  /**
   * A pair list on the GPU for `gpu.pairs.encodeAllPairs` (all pairs recorded into your encoder):
   * `capacity` pairs, its status (valid count, overflow bits, indirect dispatch size) and its
   * candidate list; free it with its `destroy()`.
   *
   * @example
   * const list = gpu.createPairList(100_000); // list.pairsBuffer, list.statusBuffer
   */
  createPairList(capacity: number, options: PairListBuffersOptions = {}): PairListBuffers {
    return this.own(PairListBuffers.create(this.ctx, capacity, options));
  }

  /** Culls `set` against six world planes (or planes on the GPU, see GpuPlanes) and reads the visible indices back. */
  frustumCull(culler: FrustumCuller, set: BoxSet, planes: readonly Plane[] | GpuPlanes, draw?: FrustumDraw): Promise<{ visible: Uint32Array; drawArgs: Uint32Array }> {
    const op = 'frustumCull';
    return this.ctx.named(op, () => {
      checkBound(this.ctx, culler, 'culler', 'FrustumCuller', (v) => v instanceof FrustumCuller, op);
      return culler.cull(set, planes, draw, op);
    });
  }

  /** SAT on listed pairs of one set. */
  obbPairs(set: BoxSet, pairs: Uint32Array | readonly (readonly [number, number])[], options: SatOptions = {}): Promise<GpuPairResults> {
    return this.ctx.named('obbPairs', () => this.pairs.obbPairs(set, pairs, options));
  }

  /** One box against every box of a set. */
  obbOneVsMany(box: BoxInput, set: BoxSet, options: SatOptions = {}): Promise<GpuPairResults> {
    return this.ctx.named('obbOneVsMany', () => this.pairs.obbOneVsMany(box, set, options));
  }

  /** Every overlapping (i in A, j in B); `accel` picks brute force or a BVH over B. */
  obbCross(a: BoxSet, b: BoxSet, options: ObbPairListOptions = {}): Promise<GpuPairList> {
    const op = 'obbCross';
    return this.ctx.named(op, () => {
      const { accel, ...rest } = options;
      checkSet(this.ctx, a, 'a', op);
      const tree = this.treeOption(b, accel, 'pairs', op, 'b');
      return this.pairs.obbCross(a, b, tree ? { ...rest, tree } : rest);
    });
  }

  /**
   * Every overlapping pair within one set (i < j); `accel` picks brute force, the BVH, or (here
   * only) `'grid'`: a uniform grid built for the query (no tree to keep; each box against the
   * boxes whose centres lie within its AABB widened by half the widest box). `'auto'` (default),
   * from `thresholds.pairs` boxes: the grid while it is not crowded (GRID_MAX_CROWDING: boxes of
   * similar sizes), else the BVH (a few boxes as wide as the scene crowd every search region).
   */
  allPairs(set: BoxSet, options: ObbAllPairsOptions = {}): Promise<GpuPairList> {
    const op = 'allPairs';
    return this.ctx.named(op, () => {
      const { accel, ...rest } = options;
      checkSet(this.ctx, set, 'set', op);
      let path = this.accelFor('allPairs', set.count, accel);
      if (path === 'grid' && set instanceof GpuSourcedBoxSet) {
        // The grid is laid out from the host's float64 boxes, which a GPU-sourced set has not.
        if (accel === 'grid') {
          throw new ValidationError('argument', undefined, 'accel', "'grid' lays the grid out from the set's host boxes, which a GPU-sourced set has not; use 'bvh' or 'auto'");
        }
        path = Bvh.fits(this.ctx, set.count) ? 'bvh' : 'brute';
      }
      if (path === 'grid') {
        return this.pairs.allPairs(set, { ...rest, grid: accel === 'grid' ? true : 'auto', tree: () => this.currentTree(set, op) });
      }
      return this.pairs.allPairs(set, path === 'bvh' ? { ...rest, tree: () => this.currentTree(set, op) } : rest);
    });
  }

  /**
   * Frees the caches the queries keep between calls: pooled buffers, readback staging buffers,
   * upload scratch memory, the grid's scan, the uniforms of encodeClosestHit. What objects own
   * (sets, trees, sensors, cullers) stays. Once every object made here is destroyed and trim()
   * has run, `ctx.liveBuffers` is 0. Not between an encodeClosestHit and the submission of its
   * encoder.
   *
   * @example
   * set.destroy(); gpu.trim(); console.log(gpu.ctx.liveBuffers); // 0
   */
  trim(): void {
    this.pool.trim();
    this.rays.trim();
    this.pairs.trim();
    this.ctx.trimCaches();
  }

  /**
   * Frees every set, tree, sensor and culler still alive, the caches, and (if this object
   * requested it) the device. Idempotent.
   */
  destroy(): void {
    for (const object of [...this.owned]) {
      object.destroy();
    }
    this.owned.clear();
    for (const st of this.trees.values()) {
      st.bvh.destroy();
    }
    this.trees.clear();
    this.trim();
    this.ctx.destroy();
  }
}
