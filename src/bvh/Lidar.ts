/**
 * A LiDAR sensor on the GPU: each sweep uploads a pose (64 bytes), the rays are generated inside
 * the kernels from cos/sin tables uploaded once, and the closest hit of each ray is found by one
 * of two methods:
 * - `raster` (the default when the channel table allows it): every box is rasterised into the
 *   sensor's (channel, azimuth) grid over the cells whose rays can hit it, and each of those
 *   cells is one slab test, the closest hit kept with atomics (shaders/kernels/lidar_raster.wgsl).
 *   No tree is needed, so moving scenes cost nothing to prepare; the cost is the boxes' total
 *   footprint, about the scene's depth complexity per ray.
 * - `bvh`: each ray walks the set's BVH (`bvhLidar`). For channel tables with elevations at or
 *   beyond ±89.9° (where a ray's azimuth is ill-defined in f32), and on request.
 * Both give the same answers (smallest t, then smallest box index). Results stay on the GPU (a
 * range image, hit boxes, and a point buffer usable directly as a vertex buffer) and are read
 * back only when asked.
 */
import { LIDAR_NO_RETURN, NO_BOX, RAY_OPT_BOX_MASKS } from '../constants.ts';
import type { Vec3 } from '../core/types.ts';
import type { BoxSet } from '../gpu/BoxSet.ts';
import type { GpuContext } from '../gpu/device.ts';
import { BufferUsage } from '../gpu/flags.ts';
import { getKernel } from '../gpu/pipelines.ts';
import { LIDAR_PARAMS, RAY_PARAMS } from '../layout/index.ts';
import { closestHit } from '../reference/raycast.ts';
import { checkLidar, lidarRays, lidarTables, poseAxes, type LidarDescription, type LidarPose } from '../reference/lidar.ts';
import type { Bvh } from './Bvh.ts';
import { dispatch, dispatchIndirect } from './encode.ts';
import { ExclusiveScan } from './RadixSort.ts';

const STORAGE_OUT = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;

/** How a sensor finds each ray's closest hit (see LidarSensor). */
export type LidarMethod = 'raster' | 'bvh';

/**
 * Whether the raster method can serve a channel table: every elevation strictly inside ±89.9°
 * (cos e ≥ 1.7e-3), so each ray has a well-defined azimuth in f32.
 */
export function lidarRasterizable(desc: LidarDescription): boolean {
  return desc.elevations.every((e) => Math.cos(e) >= 1.7e-3);
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
const RASTER_KERNELS = ['lidarDirections', 'lidarFootprint', 'lidarRasterArgs', 'lidarDepth', 'lidarWinnerArgs', 'lidarWinnerList', 'lidarWinner', 'lidarResolve'] as const;

/** Candidate-list entries per ray (beyond it, the winner pass redoes every work item). */
const CANDIDATES_PER_RAY = 2;

/** Options of LidarSensor.create. */
export interface LidarOptions {
  /** 'auto' (default): raster when lidarRasterizable(desc), else bvh. */
  readonly method?: LidarMethod | 'auto';
  /** Raster method: entries of the candidate list (default 2 per ray + 1,024). */
  readonly candidateCapacity?: number;
}

/** Per-box buffers of the raster method, grown with the largest set swept. */
interface RasterBoxes {
  readonly capacity: number;
  readonly footprints: GPUBuffer;
  readonly offsets: GPUBuffer;
  readonly scan: ExclusiveScan;
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
  /** vec4f per ray (VERTEX usage: bind it as a vertex buffer of float32x4). */
  readonly pointsBuffer: GPUBuffer;
  private readonly tables: GPUBuffer;
  private readonly params: GPUBuffer;
  private readonly rayParams: GPUBuffer;
  private readonly overflow: GPUBuffer;
  /** Bound as the tree when the set has fewer than two boxes (the kernel needs no tree then). */
  private readonly noNodes: GPUBuffer;
  /** Raster method: per-ray best t and winning box (inverted, 0 = none), cell totals, dispatch arguments. */
  private readonly depth: GPUBuffer | undefined;
  private readonly winner: GPUBuffer | undefined;
  private readonly totals: GPUBuffer | undefined;
  private readonly rasterArgs: GPUBuffer | undefined;
  private readonly rayDirs: GPUBuffer | undefined;
  private readonly candidateCount: GPUBuffer | undefined;
  private readonly candidates: GPUBuffer | undefined;
  private rasterBoxes: RasterBoxes | undefined;
  private destroyed = false;

  private constructor(readonly ctx: GpuContext, desc: LidarDescription, method: LidarMethod, candidateCapacity: number | undefined) {
    this.desc = desc;
    this.method = method;
    this.channels = desc.elevations.length;
    this.azimuths = desc.azimuthSteps;
    const n = this.channels * this.azimuths;
    ctx.assertBindingFits('LiDAR points', n * 16);
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
    if (method === 'raster') {
      this.depth = make('depth', n * 4, STORAGE_OUT);
      this.winner = make('winner', n * 4, STORAGE_OUT);
      this.totals = make('totals', 8, STORAGE_OUT);
      this.rasterArgs = make('raster-args', 64, BufferUsage.STORAGE | BufferUsage.INDIRECT);
      this.rayDirs = make('directions', n * 16, BufferUsage.STORAGE);
      this.candidateCount = make('candidate-count', 4, STORAGE_OUT);
      this.candidates = make('candidates', 12 * Math.max(1, candidateCapacity ?? CANDIDATES_PER_RAY * n + 1024), BufferUsage.STORAGE);
    }
    ctx.device.queue.writeBuffer(this.tables, 0, lidarKernelTables(desc));
  }

  /**
   * Validates the description and uploads its tables. `method` (default 'auto': raster when
   * lidarRasterizable(desc), else bvh) picks how sweeps find their hits. `candidateCapacity`
   * (raster; default 2 per ray + 1,024) sizes the depth pass's candidate list; a sweep with more
   * candidates is still exact, its winner pass just redoes every work item.
   */
  static async create(ctx: GpuContext, desc: LidarDescription, options: LidarOptions = {}): Promise<LidarSensor> {
    checkLidar(desc);
    const wanted = options.method ?? 'auto';
    if (wanted === 'raster' && !lidarRasterizable(desc)) {
      throw new RangeError('LidarSensor: the raster method needs every elevation strictly inside ±89.9° (use method: \'bvh\')');
    }
    const method: LidarMethod = wanted === 'auto' ? (lidarRasterizable(desc) ? 'raster' : 'bvh') : wanted;
    if (method === 'raster') {
      await Promise.all(RASTER_KERNELS.map((k) => getKernel(ctx.device, k)));
    } else {
      await getKernel(ctx.device, 'bvhLidar');
    }
    if (options.candidateCapacity !== undefined && !(Number.isInteger(options.candidateCapacity) && options.candidateCapacity >= 0)) {
      throw new RangeError(`LidarSensor: candidateCapacity must be a non-negative integer (got ${String(options.candidateCapacity)})`);
    }
    return new LidarSensor(ctx, desc, method, options.candidateCapacity);
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
   * Records one sweep into `encoder` (results in rangeBuffer, boxBuffer, pointsBuffer). The tree
   * must be current for the set (built or refitted after the last change).
   */
  async encodeSweep(
    encoder: GPUCommandEncoder, set: BoxSet, bvh: Bvh | undefined, pose: LidarPose,
    options: { readonly mask?: number; readonly timestampWrites?: GPUComputePassTimestampWrites } = {},
  ): Promise<void> {
    if (this.destroyed) {
      throw new Error('LidarSensor: this sensor was destroyed');
    }
    const [ax, ay, az] = poseAxes(pose);
    if (!pose.origin.every(Number.isFinite)) {
      throw new RangeError('LidarSensor: pose origin must be three finite numbers');
    }
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
    device.queue.writeBuffer(this.rayParams, 0, new Uint32Array([this.rayCount, set.count, set.masks ? RAY_OPT_BOX_MASKS : 0, 0]));
    encoder.clearBuffer(this.overflow);
    if (this.method === 'raster') {
      await this.encodeRaster(encoder, set, options.timestampWrites);
      return;
    }
    const kernel = await getKernel(device, 'bvhLidar');
    const pass = encoder.beginComputePass(options.timestampWrites ? { label: 'obb:lidar', timestampWrites: options.timestampWrites } : { label: 'obb:lidar' });
    dispatch(device, pass, kernel, {
      0: this.rayParams, 1: set.buffer, 2: set.maskBuffer, 9: bvh?.nodes ?? this.noNodes, 10: this.overflow,
      11: this.params, 12: this.tables, 13: this.rangeBuffer, 14: this.boxBuffer, 15: this.pointsBuffer,
    }, Math.ceil(this.rayCount / kernel.workgroupSize), 'obb:lidar');
    pass.end();
  }

  /** The per-box buffers of the raster method for `count` boxes (grown by doubling). */
  private async rasterBoxesFor(count: number): Promise<RasterBoxes> {
    const have = this.rasterBoxes;
    if (have && have.capacity >= count) {
      return have;
    }
    const capacity = Math.max(1024, 2 ** Math.ceil(Math.log2(Math.max(1, count))));
    this.ctx.assertBindingFits('LiDAR raster footprints', capacity * 16);
    const scan = await ExclusiveScan.create(this.ctx, capacity);
    if (have) {
      this.ctx.destroyBuffer(have.footprints);
      this.ctx.destroyBuffer(have.offsets);
      have.scan.destroy();
    }
    const label = `${this.ctx.label}:lidar`;
    this.rasterBoxes = {
      capacity, scan,
      footprints: this.ctx.createBuffer({ label: `${label}:footprints`, size: capacity * 16, usage: BufferUsage.STORAGE }),
      offsets: this.ctx.createBuffer({ label: `${label}:offsets`, size: capacity * 4, usage: BufferUsage.STORAGE }),
    };
    return this.rasterBoxes;
  }

  /**
   * The raster method (shaders/kernels/lidar_raster.wgsl): footprints, the scan of their cell
   * counts, the dispatch size, the depth and winner passes (indirect), then the images; one pass.
   */
  private async encodeRaster(encoder: GPUCommandEncoder, set: BoxSet, timestampWrites: GPUComputePassTimestampWrites | undefined): Promise<void> {
    const device = this.ctx.device;
    const boxes = await this.rasterBoxesFor(set.count);
    const [directions, footprint, args, depthK, winnerArgs, winnerList, winnerK, resolve] = await Promise.all(RASTER_KERNELS.map((k) => getKernel(device, k)));
    for (const b of [this.depth!, this.winner!, this.totals!, this.candidateCount!]) {
      encoder.clearBuffer(b);
    }
    const pass = encoder.beginComputePass(timestampWrites ? { label: 'obb:lidar-raster', timestampWrites } : { label: 'obb:lidar-raster' });
    const common = { 0: this.rayParams, 1: set.buffer, 11: this.params, 12: this.tables, 16: boxes.footprints, 17: boxes.offsets };
    dispatch(device, pass, directions!, { 11: this.params, 12: this.tables, 23: this.rayDirs! }, Math.ceil(this.rayCount / directions!.workgroupSize), 'obb:lidar-directions');
    dispatch(device, pass, footprint!, { ...common, 2: set.maskBuffer, 20: this.totals! }, Math.ceil(set.count / footprint!.workgroupSize), 'obb:lidar-footprint');
    await boxes.scan.encode(pass, boxes.offsets, set.count);
    dispatch(device, pass, args!, { 20: this.totals!, 21: this.rasterArgs! }, 1, 'obb:lidar-raster-args');
    const perItem = { ...common, 18: this.depth!, 19: this.winner!, 22: this.rasterArgs!, 23: this.rayDirs!, 24: this.candidateCount!, 25: this.candidates! };
    dispatchIndirect(device, pass, depthK!, perItem, this.rasterArgs!, 0, 'obb:lidar-depth');
    dispatch(device, pass, winnerArgs!, { 21: this.rasterArgs!, 24: this.candidateCount!, 25: this.candidates! }, 1, 'obb:lidar-winner-args');
    dispatchIndirect(device, pass, winnerList!, { 18: this.depth!, 19: this.winner!, 22: this.rasterArgs!, 25: this.candidates! }, this.rasterArgs!, 32, 'obb:lidar-winner-list');
    dispatchIndirect(device, pass, winnerK!, perItem, this.rasterArgs!, 48, 'obb:lidar-winner');
    dispatch(device, pass, resolve!, {
      10: this.overflow, 11: this.params, 13: this.rangeBuffer, 14: this.boxBuffer, 15: this.pointsBuffer,
      18: this.depth!, 19: this.winner!, 22: this.rasterArgs!, 23: this.rayDirs!,
    }, Math.ceil(this.rayCount / resolve!.workgroupSize), 'obb:lidar-resolve');
    pass.end();
  }

  /**
   * One sweep, submitted in order with the set's other work, read back. A ray whose BVH walk
   * overflowed (never expected: the stack holds the tree's height bound) is answered by the CPU
   * reference, so no return is ever silently lost.
   */
  async sweep(
    set: BoxSet, tree: Bvh | (() => Promise<Bvh | undefined>), pose: LidarPose,
    options: { readonly points?: boolean; readonly mask?: number } = {},
  ): Promise<LidarSweep> {
    const n = this.rayCount;
    let snapshot = set.boxes;
    let masks = set.masks;
    await this.ctx.sequence('LidarSensor.sweep', async () => {
      // The tree and the boxes as of this sweep's turn.
      const bvh = !this.needsTree ? undefined : typeof tree === 'function' ? await tree() : tree;
      snapshot = set.boxes;
      masks = set.masks;
      const encoder = this.ctx.device.createCommandEncoder({ label: 'obb:lidar' });
      await this.encodeSweep(encoder, set, bvh, pose, options.mask === undefined ? {} : { mask: options.mask });
      await this.ctx.scoped(`LiDAR sweep (${n} rays × ${set.count} boxes)`, () => this.ctx.device.queue.submit([encoder.finish()]));
    });
    const [rangeBytes, boxBytes, pointBytes, overflowBytes] = await Promise.all([
      this.ctx.readback(this.rangeBuffer, n * 4, 0, 'LiDAR range'),
      this.ctx.readback(this.boxBuffer, n * 4, 0, 'LiDAR boxes'),
      options.points ? this.ctx.readback(this.pointsBuffer, n * 16, 0, 'LiDAR points') : undefined,
      this.ctx.readback(this.overflow, 4, 0, 'LiDAR overflow'),
    ]);
    const range = new Float32Array(rangeBytes);
    const raw = new Uint32Array(boxBytes);
    const box = new Int32Array(n);
    const points = pointBytes ? new Float32Array(pointBytes) : undefined;
    const overflowed = new Uint32Array(overflowBytes)[0]!;
    const redo: number[] = [];
    for (let r = 0; r < n; r++) {
      const b = raw[r]!;
      if (b === NO_BOX - 1) {
        redo.push(r);
      }
      box[r] = b >= NO_BOX - 1 ? -1 : b;
    }
    if (redo.length > 0) {
      const all = lidarRays(this.desc, pose);
      const rays = { count: redo.length, data: Float64Array.from(redo.flatMap((r) => Array.from(all.data.subarray(r * 7, r * 7 + 7)))) };
      const ref = closestHit(snapshot, rays, masks ? { boxMasks: masks, rayMasks: new Uint32Array(redo.length).fill(options.mask ?? 0xffffffff) } : {});
      redo.forEach((r, k) => {
        box[r] = ref.box[k]!;
        range[r] = ref.box[k]! >= 0 ? ref.t[k]! : LIDAR_NO_RETURN;
      });
    }
    return { channels: this.channels, azimuths: this.azimuths, range, box, points, overflowed };
  }

  destroy(): void {
    if (this.destroyed) {
      return;
    }
    this.destroyed = true;
    for (const b of [this.rangeBuffer, this.boxBuffer, this.pointsBuffer, this.tables, this.params, this.rayParams, this.overflow, this.noNodes, this.depth, this.winner, this.totals, this.rasterArgs, this.rayDirs, this.candidateCount, this.candidates]) {
      if (b) {
        this.ctx.destroyBuffer(b);
      }
    }
    if (this.rasterBoxes) {
      this.ctx.destroyBuffer(this.rasterBoxes.footprints);
      this.ctx.destroyBuffer(this.rasterBoxes.offsets);
      this.rasterBoxes.scan.destroy();
      this.rasterBoxes = undefined;
    }
  }
}
