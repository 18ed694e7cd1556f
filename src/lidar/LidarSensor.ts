/**
 * A LiDAR sensor on the GPU: each sweep uploads a pose (64 bytes), the rays are generated inside
 * the kernels from cos/sin tables uploaded once, and the closest hit of each ray is found by one
 * of two methods:
 * - `raster` (the default when the channel table allows it): every box is rasterised into the
 *   sensor's (channel, azimuth) grid over the cells whose rays can hit it, and each of those
 *   cells is one slab test, each ray's closest hit kept in registers over its tile's list, no atomics
 *   (shaders/lidar/raster.wgsl).
 *   No tree is needed, so moving scenes cost nothing to prepare; the cost is the boxes' total
 *   footprint, about the scene's depth complexity per ray.
 * - `bvh`: each ray walks the set's BVH (`bvhLidar`). For channel tables with elevations at or
 *   beyond ±89.9° (where a ray's azimuth is ill-defined in f32), and on request.
 * Both give the same answers (smallest t, then smallest box index). Results stay on the GPU (a
 * range image, hit boxes, and a point buffer usable directly as a vertex buffer) and are read
 * back only when asked.
 */
import { LIDAR_NO_RETURN, LIDAR_TILE_CHANNELS, LIDAR_UNANSWERED, RAY_OPT_BOX_MASKS, RAY_OPT_GEOMETRY } from '../constants.ts';
import { RAY_F64, type BoxArray, type Vec3 } from '../core/types.ts';
import type { BoxSet } from '../boxes/BoxSet.ts';
import type { GpuContext } from '../runtime/context.ts';
import { BufferUsage } from '../runtime/flags.ts';
import { getKernel } from '../runtime/pipelines.ts';
import { LIDAR_PARAMS, RAY_PARAMS } from '../layout/index.ts';
import { checkLidar, checkPose, lidarTables, poseAxes, type LidarDescription, type LidarPose } from '../core/lidar.ts';
// The float64 reference answers the rays a sweep left unanswered (never expected).
import { lidarRays } from '../reference/lidar.ts';
import { closestHit } from '../reference/raycast.ts';
import type { Bvh } from '../tree/Bvh.ts';
import { dispatch } from '../runtime/bind.ts';
import { ExclusiveScan } from '../runtime/scan.ts';
import { Lifetime } from '../runtime/lifetime.ts';
import { checkSet } from '../boxes/BoxSet.ts';
import { ValidationError } from '../errors.ts';

const STORAGE_OUT = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;

/** How a sensor finds each ray's closest hit (see LidarSensor). */
export type LidarMethod = 'raster' | 'bvh';

/**
 * Whether the raster method can serve a channel table: every elevation strictly inside ±89.9°
 * (cos e ≥ 1.7e-3), so each ray has a well-defined azimuth in f32, and fewer than 65,536
 * channels (a footprint packs its channel range in 16-bit halves).
 */
export function lidarRasterizable(desc: LidarDescription): boolean {
  return desc.elevations.length < 65_536 && desc.elevations.every((e) => Math.cos(e) >= 1.7e-3);
}

/**
 * The tables the kernels read: lidarTables (cos/sin per azimuth step, then per channel), then one
 * entry per channel in ascending order of sin e: (sin e, channel) — the raster method's lookup
 * from an elevation range to channels.
 */
export function lidarKernelTables(desc: LidarDescription): Float32Array {
  const base = lidarTables(desc);
  const order = desc.elevations.map((e, c) => [Math.fround(Math.sin(e)), c] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const out = new Float32Array(base.length + 2 * order.length);
  out.set(base);
  order.forEach(([sin, c], k) => {
    out[base.length + 2 * k] = sin;
    out[base.length + 2 * k + 1] = c;
  });
  return out;
}

/** The raster method's kernels, in dispatch order. */
const RASTER_KERNELS = ['lidarFootprint', 'lidarBin', 'lidarSortTiles', 'lidarTiles'] as const;

/** Bytes per box of the raster method's boxData (RasterBox and rectangle, shaders/lidar/raster.wgsl). */
const RASTER_BOX_BYTES = 80;

/** Options of LidarSensor.create. */
export interface LidarOptions {
  /** 'auto' (default): raster when lidarRasterizable(desc), else bvh. */
  readonly method?: LidarMethod | 'auto';
  /**
   * Raster method: initial entries of the tile lists (default 8 per box + 65,536, grown to what a
   * sweep needs). A sweep that needs more is sized by its own count and run again.
   */
  readonly listCapacity?: number;
}

/**
 * The raster method's tile shape: 4 sorted channels (LIDAR_TILE_CHANNELS, TILE_CH in shaders/lidar/raster.wgsl, one invocation
 * runs all four) × `az` azimuth steps (one invocation each; narrow workgroups on CPU adapters).
 */
function rasterTile(ctx: GpuContext): { readonly ch: number; readonly az: number } {
  return { ch: LIDAR_TILE_CHANNELS, az: ctx.adapter.isFallbackAdapter ? 4 : 64 };
}

/** Per-box and per-tile buffers of the raster method, grown with the largest set swept. */
interface RasterBuffers {
  readonly boxCapacity: number;
  readonly listCapacity: number;
  readonly boxData: GPUBuffer;
  readonly lists: GPUBuffer;
}

const UNIFORM = BufferUsage.UNIFORM | BufferUsage.COPY_DST;

/** One sweep read back. Ray (c, a) is at index c · azimuths + a. */
export interface LidarSweep {
  readonly channels: number;
  readonly azimuths: number;
  /** Range image, channels × azimuths; LIDAR_NO_RETURN (−1) where nothing was hit. */
  readonly range: Float32Array;
  /** Box hit per ray, −1 for no return. */
  readonly box: Int32Array;
  /** xyz (relative to the set's floating origin) and w (1 = return, 0 = none) per ray. */
  readonly points: Float32Array | undefined;
  /** Returns whose BVH walk overflowed its stack and were answered by the CPU reference instead. */
  readonly overflowed: number;
}

/**
 * @example
 * const lidar = await LidarSensor.create(ctx, { elevations: linearElevations(128, -25, 15), azimuthSteps: 2048, maxRange: 200 });
 * const sweep = await lidar.sweep(set, bvh, { origin: [10, 0, 2], rotation: [0, 0, 0, 1] });
 * sweep.range // Float32Array(262144)
 * renderPass.setVertexBuffer(0, lidar.pointsBuffer) // the same points, no readback
 */
export class LidarSensor {
  readonly desc: LidarDescription;
  /** The method every sweep of this sensor uses. */
  readonly method: LidarMethod;
  readonly channels: number;
  readonly azimuths: number;
  /** Range image (f32 per ray). */
  readonly rangeBuffer: GPUBuffer;
  /** Box per ray (u32, NO_BOX for none). */
  readonly boxBuffer: GPUBuffer;
  /**
   * vec4f per ray (VERTEX usage: bind it as a vertex buffer of float32x4); written by encodeSweep
   * (unless `points: false`) and by sweep with `points: true`.
   */
  readonly pointsBuffer: GPUBuffer;
  private readonly tables: GPUBuffer;
  private readonly params: GPUBuffer;
  private readonly rayParams: GPUBuffer;
  private readonly overflow: GPUBuffer;
  /** Bound as the tree when the set has fewer than two boxes (the kernel needs no tree then). */
  private readonly noNodes: GPUBuffer;
  /** Raster method: tile grid; per-tile counts (scanned into starts), fill counters, then the list-entry total. */
  private readonly tile: { readonly ch: number; readonly az: number; readonly rows: number; readonly cols: number } | undefined;
  private readonly tileCounters: GPUBuffer | undefined;
  private readonly tileScan: ExclusiveScan | undefined;
  private raster: RasterBuffers | undefined;
  private wantedListCapacity: number | undefined;
  private readonly lifetime: Lifetime;

  private constructor(readonly ctx: GpuContext, desc: LidarDescription, method: LidarMethod, tileScan: ExclusiveScan | undefined, listCapacity: number | undefined) {
    this.desc = desc;
    this.method = method;
    this.channels = desc.elevations.length;
    this.azimuths = desc.azimuthSteps;
    this.lifetime = new Lifetime(ctx, 'LidarSensor', false);
    const n = this.channels * this.azimuths;
    const make = (label: string, size: number, usage: number): GPUBuffer =>
      ctx.createBuffer({ label: `${ctx.label}:lidar:${label}`, size: Math.max(16, size), usage });
    this.rangeBuffer = make('range', n * 4, STORAGE_OUT);
    this.boxBuffer = make('box', n * 4, STORAGE_OUT);
    this.pointsBuffer = make('points', n * 16, STORAGE_OUT | BufferUsage.VERTEX);
    this.tables = make('tables', 8 * (this.azimuths + 2 * this.channels), BufferUsage.STORAGE | BufferUsage.COPY_DST);
    this.params = make('params', LIDAR_PARAMS.SIZE, UNIFORM);
    this.rayParams = make('ray-params', RAY_PARAMS.SIZE, UNIFORM);
    this.overflow = make('overflow', 4, STORAGE_OUT);
    this.noNodes = make('no-nodes', 32, BufferUsage.STORAGE);
    if (method === 'raster' && tileScan) {
      const { ch, az } = rasterTile(ctx);
      const rows = Math.ceil(this.channels / ch);
      const cols = Math.ceil(this.azimuths / az);
      this.tile = { ch, az, rows, cols };
      this.tileCounters = make('tile-counters', (2 * rows * cols + 2) * 4, STORAGE_OUT);
      this.tileScan = tileScan;
      this.wantedListCapacity = listCapacity;
    }
    ctx.device.queue.writeBuffer(this.tables, 0, lidarKernelTables(desc));
  }

  /**
   * Validates the description and uploads its tables. `method` (default 'auto': raster when
   * lidarRasterizable(desc), else bvh) picks how sweeps find their hits; see LidarOptions.
   */
  static async create(ctx: GpuContext, desc: LidarDescription, options: LidarOptions = {}): Promise<LidarSensor> {
    checkLidar(desc);
    const rays = desc.elevations.length * desc.azimuthSteps;
    ctx.assertBindingFits('LiDAR points', rays * 16, `${desc.elevations.length} channels × ${desc.azimuthSteps} azimuth steps × 16 bytes`);
    const wanted = options.method ?? 'auto';
    if (wanted !== 'auto' && wanted !== 'raster' && wanted !== 'bvh') {
      throw new ValidationError('argument', undefined, 'method', `must be 'auto', 'raster' or 'bvh' (got ${String(wanted)})`);
    }
    if (wanted === 'raster' && !lidarRasterizable(desc)) {
      throw new ValidationError('argument', undefined, 'method', '\'raster\' needs fewer than 65,536 channels, every elevation strictly inside ±89.9° (use method: \'bvh\')');
    }
    const method: LidarMethod = wanted === 'auto' ? (lidarRasterizable(desc) ? 'raster' : 'bvh') : wanted;
    if (options.listCapacity !== undefined && !(Number.isInteger(options.listCapacity) && options.listCapacity >= 1)) {
      throw new ValidationError('argument', undefined, 'listCapacity', `must be a positive integer (got ${String(options.listCapacity)})`);
    }
    if (method === 'bvh') {
      await getKernel(ctx.device, 'bvhLidar');
      return new LidarSensor(ctx, desc, method, undefined, undefined);
    }
    const tile = rasterTile(ctx);
    await Promise.all(RASTER_KERNELS.map((k) => getKernel(ctx.device, k, undefined, LidarSensor.tileConstants(tile))));
    const tiles = Math.ceil(desc.elevations.length / tile.ch) * Math.ceil(desc.azimuthSteps / tile.az);
    return new LidarSensor(ctx, desc, method, await ExclusiveScan.create(ctx, tiles), options.listCapacity);
  }

  /** Whether sweeps need the set's BVH (the bvh method) or not (raster). */
  get needsTree(): boolean {
    return this.method === 'bvh';
  }

  /** Rays per sweep. */
  get rayCount(): number {
    return this.channels * this.azimuths;
  }

  /**
   * Records one sweep into `encoder` (results in rangeBuffer, boxBuffer and, unless `points` is
   * false, pointsBuffer). The bvh method needs the set's tree current (built or refitted after the
   * last change); the raster method ignores it.
   */
  async encodeSweep(
    encoder: GPUCommandEncoder, set: BoxSet, bvh: Bvh | undefined, pose: LidarPose,
    options: { readonly mask?: number; readonly points?: boolean; readonly timestampWrites?: GPUComputePassTimestampWrites } = {},
    operation = 'LidarSensor.encodeSweep',
  ): Promise<void> {
    this.assertUsable(operation);
    checkSet(this.ctx, set, 'set', operation);
    checkPose(pose);
    const [ax, ay, az] = poseAxes(pose);
    const bytes = new ArrayBuffer(LIDAR_PARAMS.SIZE);
    const f = new Float32Array(bytes);
    const u = new Uint32Array(bytes);
    const o: Vec3 = [pose.origin[0] - set.origin[0], pose.origin[1] - set.origin[1], pose.origin[2] - set.origin[2]];
    f.set(o, LIDAR_PARAMS.ORIGIN / 4);
    f[LIDAR_PARAMS.MAX_RANGE / 4] = this.desc.maxRange;
    f.set(ax, LIDAR_PARAMS.AXIS_X / 4);
    u[LIDAR_PARAMS.CHANNELS / 4] = this.channels;
    f.set(ay, LIDAR_PARAMS.AXIS_Y / 4);
    u[LIDAR_PARAMS.AZIMUTHS / 4] = this.azimuths;
    f.set(az, LIDAR_PARAMS.AXIS_Z / 4);
    u[LIDAR_PARAMS.MASK / 4] = (options.mask ?? 0xffffffff) >>> 0;
    const device = this.ctx.device;
    device.queue.writeBuffer(this.params, 0, bytes);
    const flags = (set.masks ? RAY_OPT_BOX_MASKS : 0) | (options.points === false ? 0 : RAY_OPT_GEOMETRY);
    device.queue.writeBuffer(this.rayParams, 0, new Uint32Array([this.rayCount, set.count, flags, 0]));
    encoder.clearBuffer(this.overflow);
    if (this.method === 'raster') {
      await this.encodeRaster(encoder, set, options.timestampWrites);
      return;
    }
    const kernel = await getKernel(device, 'bvhLidar');
    const pass = encoder.beginComputePass(options.timestampWrites ? { label: 'obb:lidar', timestampWrites: options.timestampWrites } : { label: 'obb:lidar' });
    dispatch(device, pass, kernel, {
      params: this.rayParams, boxes: set.buffer, boxMasks: set.maskBuffer, nodes: bvh?.nodes ?? this.noNodes, overflowCount: this.overflow,
      lidar: this.params, lidarTables: this.tables, lidarRange: this.rangeBuffer, lidarBox: this.boxBuffer, lidarPoints: this.pointsBuffer,
    }, Math.ceil(this.rayCount / kernel.workgroupSize), 'obb:lidar');
    pass.end();
  }

  private static tileConstants(tile: { readonly ch: number; readonly az: number }): Record<string, number> {
    return { TILE_AZ: tile.az };
  }

  /** The raster method's per-box records and tile lists for `count` boxes (grown, never shrunk). */
  private rasterBuffersFor(count: number): RasterBuffers {
    const have = this.raster;
    const boxCapacity = Math.max(have?.boxCapacity ?? 0, 1024, 2 ** Math.ceil(Math.log2(Math.max(1, count))));
    const listCapacity = Math.max(have?.listCapacity ?? 0, this.wantedListCapacity ?? 8 * boxCapacity + 65_536);
    if (have && have.boxCapacity === boxCapacity && have.listCapacity === listCapacity) {
      return have;
    }
    this.ctx.assertBindingFits('LiDAR raster box records', boxCapacity * RASTER_BOX_BYTES);
    this.ctx.assertBindingFits('LiDAR raster tile lists', listCapacity * 4);
    if (have) {
      this.ctx.destroyBuffer(have.boxData);
      this.ctx.destroyBuffer(have.lists);
    }
    const label = `${this.ctx.label}:lidar`;
    this.raster = {
      boxCapacity, listCapacity,
      boxData: this.ctx.createBuffer({ label: `${label}:box-data`, size: boxCapacity * RASTER_BOX_BYTES, usage: BufferUsage.STORAGE }),
      lists: this.ctx.createBuffer({ label: `${label}:tile-lists`, size: listCapacity * 4, usage: BufferUsage.STORAGE }),
    };
    return this.raster;
  }

  /** Entries of the raster method's tile lists now. */
  get listCapacity(): number {
    return this.raster?.listCapacity ?? this.wantedListCapacity ?? 0;
  }

  /**
   * The raster method (shaders/lidar/raster.wgsl), one pass: footprints and tile counts,
   * the scan of the counts, binning, then one workgroup per tile.
   */
  private async encodeRaster(encoder: GPUCommandEncoder, set: BoxSet, timestampWrites: GPUComputePassTimestampWrites | undefined): Promise<void> {
    const device = this.ctx.device;
    const tile = this.tile!;
    const buffers = this.rasterBuffersFor(set.count);
    const constants = LidarSensor.tileConstants(tile);
    const [footprint, bin, sortTiles, tiles] = await Promise.all([
      getKernel(device, 'lidarFootprint', undefined, constants), getKernel(device, 'lidarBin', undefined, constants),
      getKernel(device, 'lidarSortTiles', undefined, constants), getKernel(device, 'lidarTiles', undefined, constants),
    ]);
    const tileCounters = this.tileCounters!;
    encoder.clearBuffer(tileCounters);
    const pass = encoder.beginComputePass(timestampWrites ? { label: 'obb:lidar-raster', timestampWrites } : { label: 'obb:lidar-raster' });
    const boxGroups = Math.ceil(set.count / footprint.workgroupSize);
    const lists = { lidar: this.params, boxData: buffers.boxData, tileCounters, tileLists: buffers.lists };
    dispatch(device, pass, footprint, {
      ...lists, params: this.rayParams, boxes: set.buffer, boxMasks: set.maskBuffer, lidarTables: this.tables,
    }, boxGroups, 'obb:lidar-footprint');
    await this.tileScan!.encode(pass, tileCounters, tile.rows * tile.cols);
    dispatch(device, pass, bin, { ...lists, params: this.rayParams }, boxGroups, 'obb:lidar-bin');
    dispatch(device, pass, sortTiles, lists, Math.ceil(tile.rows * tile.cols / sortTiles.workgroupSize), 'obb:lidar-sort-tiles');
    // CPU adapters: a few workgroups per core striding over the tiles; GPUs: one per tile.
    dispatch(device, pass, tiles, {
      ...lists, params: this.rayParams, overflowCount: this.overflow, lidarTables: this.tables,
      lidarRange: this.rangeBuffer, lidarBox: this.boxBuffer, lidarPoints: this.pointsBuffer,
    }, this.ctx.adapter.isFallbackAdapter ? Math.min(tile.rows * tile.cols, 64) : tile.rows * tile.cols, 'obb:lidar-tiles');
    pass.end();
  }

  /**
   * One sweep, submitted in order with the set's other work, read back. Nothing is silently lost:
   * a raster sweep whose tile lists did not fit is run again with lists of the size it needs; a ray
   * still without an answer (a BVH walk over its stack bound, or more than 2^32 list entries —
   * neither expected) is answered by the CPU reference.
   */
  async sweep(
    set: BoxSet, tree: Bvh | (() => Promise<Bvh | undefined>), pose: LidarPose,
    options: { readonly points?: boolean; readonly mask?: number } = {},
  ): Promise<LidarSweep> {
    const operation = 'lidarSweep';
    this.assertUsable(operation);
    checkSet(this.ctx, set, 'set', operation);
    checkPose(pose);
    const n = this.rayCount;
    const tiles = this.tile ? this.tile.rows * this.tile.cols : 0;
    // One sweep in the set's turn, its readbacks started in the same turn (their copies follow the
    // sweep on the queue, so a later sweep of this sensor cannot overwrite the results first).
    const attempt = (): Promise<{ version: number; boxes: BoxArray; masks: Uint32Array | undefined; reads: Promise<(ArrayBuffer | undefined)[]> }> =>
      this.ctx.sequence(operation, async () => {
        const bvh = !this.needsTree ? undefined : typeof tree === 'function' ? await tree() : tree;
        const encoder = this.ctx.device.createCommandEncoder({ label: 'obb:lidar' });
        await this.encodeSweep(encoder, set, bvh, pose, { points: options.points === true, ...(options.mask === undefined ? {} : { mask: options.mask }) }, operation);
        // The sweep and the copies of its results in one submission.
        const reads = this.ctx.readbackParts([
          { source: this.rangeBuffer, size: n * 4 },
          { source: this.boxBuffer, size: n * 4 },
          { source: this.pointsBuffer, size: options.points ? n * 16 : 0 },
          { source: this.overflow, size: 4 },
          { source: this.tileCounters ?? this.overflow, size: this.tileCounters ? 8 : 0, offset: 8 * tiles },
        ], operation, undefined, encoder);
        return { version: set.version, boxes: set.boxes, masks: set.masks, reads };
      });
    let run = await attempt();
    const firstReads = await run.reads;
    let [rangeBytes, boxBytes, pointBytes, overflowBytes] = firstReads;
    const totalBytes = firstReads[4]!;
    if (totalBytes.byteLength > 0) {
      // Raster tile lists too small for this sweep: size them by its own count and sweep again,
      // if the boxes are still those of the first sweep (else the CPU answers below, on them).
      const [total, high] = new Uint32Array(totalBytes);
      if (high === 0 && total! > this.listCapacity) {
        this.ctx.assertBindingFits('LiDAR raster tile lists', total! * 4);
        this.wantedListCapacity = Math.ceil(total! * 1.25);
        const first = run;
        const again = await attempt();
        if (again.version === first.version) {
          run = again;
          [rangeBytes, boxBytes, pointBytes, overflowBytes] = await again.reads;
        }
      }
    }
    const snapshot = run.boxes;
    const masks = run.masks;
    const range = new Float32Array(rangeBytes!);
    // Read as int32, NO_BOX is already -1 (box indices stay below 2^31: one binding holds them).
    const box = new Int32Array(boxBytes!);
    const points = options.points ? new Float32Array(pointBytes!) : undefined;
    const overflowed = new Uint32Array(overflowBytes!)[0]!;
    const redo: number[] = [];
    // Rays left unanswered (LIDAR_UNANSWERED, −2 as int32) are counted in `overflowed`: none when it is 0.
    for (let r = 0; overflowed > 0 && r < n; r++) {
      if (box[r] === LIDAR_UNANSWERED << 0) {
        redo.push(r);
        box[r] = -1;
      }
    }
    if (redo.length > 0) {
      const all = lidarRays(this.desc, pose);
      const S = RAY_F64.STRIDE;
      const rays = { count: redo.length, data: Float64Array.from(redo.flatMap((r) => Array.from(all.data.subarray(r * S, (r + 1) * S)))) };
      const ref = closestHit(snapshot, rays, masks ? { boxMasks: masks, rayMasks: new Uint32Array(redo.length).fill(options.mask ?? 0xffffffff) } : {});
      redo.forEach((r, k) => {
        box[r] = ref.box[k]!;
        range[r] = ref.box[k]! >= 0 ? ref.t[k]! : LIDAR_NO_RETURN;
      });
    }
    return { channels: this.channels, azimuths: this.azimuths, range, box, points, overflowed };
  }

  /** Throws StaleObjectError when this sensor was destroyed or its device replaced. */
  assertUsable(operation: string): void {
    this.lifetime.assertUsable(operation);
  }

  /** Runs `hook` once when this sensor is destroyed (its owner forgets it then). */
  onDestroy(hook: () => void): () => void {
    return this.lifetime.onDestroy(hook);
  }

  /** Frees the sensor's buffers, its scan and its raster lists (idempotent). */
  destroy(): void {
    if (!this.lifetime.end()) {
      return;
    }
    for (const b of [this.rangeBuffer, this.boxBuffer, this.pointsBuffer, this.tables, this.params, this.rayParams, this.overflow, this.noNodes, this.tileCounters]) {
      if (b) {
        this.ctx.destroyBuffer(b);
      }
    }
    this.tileScan?.destroy();
    if (this.raster) {
      this.ctx.destroyBuffer(this.raster.boxData);
      this.ctx.destroyBuffer(this.raster.lists);
      this.raster = undefined;
    }
  }
}
