/**
 * A LiDAR sensor on the GPU (the description and its contract: src/core/lidar.ts): each sweep
 * uploads a pose, the rays are generated inside the kernels from tables uploaded once, and the
 * closest hit of each ray is found by one of two methods:
 * - `raster` (the default wherever every elevation is inside ±89.9°; per-channel azimuth
 *   offsets, the beam-origin circle, clockwise turns, partial fields of view and motion during
 *   the sweep are fine): every box is rasterised into the sensor's (channel, azimuth) grid over
 *   the cells whose rays can hit it (with motion, swept over chunks of columns), and each of those
 *   cells is one slab test, each ray's closest hit kept in registers over its tile's list, no
 *   atomics (shaders/lidar/raster.wgsl). No tree is needed, so moving scenes cost nothing to
 *   prepare; the cost is the boxes' total footprint, about the scene's depth complexity per ray.
 * - `bvh`: each ray walks the set's BVH (`bvhLidar`, shaders/lidar/tree.wgsl) from its column's
 *   beam origin with its column's pose (host tables, float64 rounded once), and tests the boxes
 *   that move during the sweep, at its column's time, one by one. For every description the
 *   raster method cannot serve (`methodReason` says why), and on request.
 * Both give the same answers (smallest t, then smallest box index; a hit nearer than minRange is
 * no return). Results stay on the GPU (a range image, hit boxes, and a point buffer usable
 * directly as a vertex buffer) and are read back only when asked.
 * What the beam sees (./returnStage.ts; docs/lidar.md): intensities on request; with noise in the
 * description, rays perturbed before the sweep and range noise and dropout after it; with a
 * beam, one sensor per sub-ray beside this one and each beam's returns chosen from their hits.
 * A sensor without any of it records exactly the sweep it always did.
 */
import { LIDAR_CLOCKWISE, LIDAR_LIFT, LIDAR_MOTION, LIDAR_NO_RETURN, LIDAR_PARTIAL, LIDAR_PER_RAY_AZIMUTH, LIDAR_TILE_CHANNELS, LIDAR_UNANSWERED, RAY_OPT_BOX_MASKS, RAY_OPT_GEOMETRY } from '../constants.ts';
import type { BoxArray, Vec3 } from '../core/types.ts';
import type { BoxMaterialArrays, BoxSet } from '../boxes/BoxSet.ts';
import type { GpuContext } from '../runtime/context.ts';
import { BufferUsage } from '../runtime/flags.ts';
import { getKernel } from '../runtime/pipelines.ts';
import { LIDAR_PARAMS, LIDAR_SWEEP_PARAMS, OBB, packBoxes, RAY_PARAMS } from '../layout/index.ts';
import {
  azimuthSpan, beamSubRayDescription, beamSubRays, boxAtTime, channelAzimuthOffset, checkLidar, firingGroups, hasAngularNoise, hasAzimuthOffsets, hasFiringOffsets, hasPerLaserData,
  hasVerticalOffsets,
  hasReturnNoise, isFullTurn, checkMotion, checkPose, columnFrames, columnTime, lidarRayAzimuths, sensorMoves,
  lidarTables, motionMatters, motionOf, poseAxes,
  type LidarDescription, type LidarMotion, type LidarPose,
} from '../core/lidar.ts';
import { BOX_F64 } from '../core/types.ts';
import { detCos, detSin } from '../core/detmath.ts';
// The float64 reference answers the rays a sweep left unanswered (never expected), and gives the per-point fields.
import { countReturns, lidarSweepReference } from '../reference/lidar.ts';
import { lidarSweepCloud } from './sweepCloud.ts';
import type { LidarPointCloud } from '../files/pointCloud.ts';
import type { Bvh } from '../tree/Bvh.ts';
import { dispatch } from '../runtime/bind.ts';
import { ExclusiveScan } from '../runtime/scan.ts';
import { Lifetime } from '../runtime/lifetime.ts';
import { checkSet } from '../boxes/BoxSet.ts';
import { lidarMotionRecords, motionChunkWidth } from './motionRecords.ts';
import { angularNoiseBounds, LidarReturnStage } from './returnStage.ts';
import { ValidationError } from '../errors.ts';

const STORAGE_OUT = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;

/** How a sensor finds each ray's closest hit (see LidarSensor). */
export type LidarMethod = 'raster' | 'bvh';

/**
 * Whether the raster method can serve a description (lidarRasterReason): every elevation strictly inside ±89.9°
 * (cos e ≥ 1.7e-3), so each ray has a well-defined azimuth in f32, and fewer than 65,536 channels
 * (a footprint packs its channel range in 16-bit halves).
 */
export function lidarRasterizable(desc: LidarDescription): boolean {
  return lidarRasterReason(desc) === undefined;
}

/**
 * Why the raster method cannot serve `desc` (undefined when it can): elevations at or beyond
 * ±89.9°; 65,536 channels or more. Per-channel azimuth offsets, the beam-origin circle, a
 * clockwise turn and a partial field of view it serves.
 */
export function lidarRasterReason(desc: LidarDescription): string | undefined {
  const reasons: string[] = [];
  if (desc.elevations.length >= 65_536) {
    reasons.push('65,536 channels or more');
  }
  if (!desc.elevations.every((e) => Math.cos(e) >= 1.7e-3)) {
    reasons.push('elevations at or beyond ±89.9°');
  } else if (hasAngularNoise(desc) || desc.beam) {
    // The beams' jitter and their sub-rays must keep every ray's elevation inside ±89.9° too.
    const spread = angularNoiseBounds(desc).elevation + (desc.beam?.divergence[1] ?? 0) / 2;
    if (!desc.elevations.every((e) => Math.abs(e) + spread < Math.PI / 2 && Math.cos(Math.abs(e) + spread) >= 1.7e-3)) {
      reasons.push('elevation noise or beam divergence reaching ±89.9°');
    }
  }
  return reasons.length > 0 ? reasons.join(', ') : undefined;
}

/**
 * The tree method's static table: per ray (cos φ, sin φ, cos e, sin e), φ = θ_a + δ_c, float64
 * rounded once (the first 16 bytes per ray of the kernel's lidarSetup).
 */
export function lidarRayTable(desc: LidarDescription): Float32Array<ArrayBuffer> {
  const A = desc.azimuthSteps;
  const C = desc.elevations.length;
  const tables = lidarTables(desc);
  const perRay = hasAzimuthOffsets(desc) ? lidarRayAzimuths(desc) : undefined;
  const out = new Float32Array(4 * C * A);
  for (let c = 0; c < C; c++) {
    for (let a = 0; a < A; a++) {
      const r = c * A + a;
      out[4 * r] = perRay ? perRay[2 * r]! : tables[2 * a]!;
      out[4 * r + 1] = perRay ? perRay[2 * r + 1]! : tables[2 * a + 1]!;
      out[4 * r + 2] = tables[2 * (A + c)]!;
      out[4 * r + 3] = tables[2 * (A + c) + 1]!;
    }
  }
  return out;
}

/**
 * The raster method's tables: lidarTables (cos/sin per azimuth step, then per channel), then one
 * entry per channel in ascending order of sin e: (sin e, channel) — the lookup from an elevation
 * range to channels — then, for a sensor with per-channel azimuth offsets, cos/sin of θ_a + δ_c
 * per ray (channel-major) and per sorted channel its column shift (k_c mod A, 0): see
 * lidarColumnShifts; for a sensor with vertical offsets, per channel (v_c, 0) (read by static
 * sweeps, LIDAR_LIFT); with angular noise, last, the jitter's bounds (cos γ_el, sin γ_el) and
 * (γ_az, 0) (angularNoiseBounds).
 */
export function lidarKernelTables(desc: LidarDescription): Float32Array {
  const base = lidarTables(desc);
  const order = desc.elevations.map((e, c) => [Math.fround(detSin(e)), c] as const).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const perRay = hasAzimuthOffsets(desc) ? lidarRayAzimuths(desc) : undefined;
  const lifts = hasVerticalOffsets(desc) ? desc.verticalOffsets! : undefined;
  const liftsAt = base.length + 2 * order.length + (perRay ? perRay.length + 2 * order.length : 0);
  const out = new Float32Array(liftsAt + (lifts ? 2 * lifts.length : 0));
  out.set(base);
  order.forEach(([sin, c], k) => {
    out[base.length + 2 * k] = sin;
    out[base.length + 2 * k + 1] = c;
  });
  if (perRay) {
    out.set(perRay, base.length + 2 * order.length);
    const shifts = lidarColumnShifts(desc).shift;
    const at = base.length + 2 * order.length + perRay.length;
    const A = desc.azimuthSteps;
    order.forEach(([, c], k) => {
      out[at + 2 * k] = ((shifts[c]! % A) + A) % A;
    });
  }
  lifts?.forEach((v, c) => {
    out[liftsAt + 2 * c] = v;
  });
  if (!hasAngularNoise(desc)) {
    return out;
  }
  // With angular noise, the jitter's bounds last (noiseTurn in shaders/lidar/raster.wgsl):
  // (cos γ_el, sin γ_el), (γ_az, 0), rounded outwards.
  const { azimuth, elevation } = angularNoiseBounds(desc);
  const withNoise = new Float32Array(out.length + 4);
  withNoise.set(out);
  withNoise.set([detCos(elevation) * (1 - 2 ** -20), detSin(elevation) * (1 + 2 ** -20), azimuth * (1 + 2 ** -20), 0], out.length);
  return withNoise;
}

/**
 * Per channel, its azimuth offset in whole columns (k_c = round(δ_c / step), step = span / A,
 * negative for a clockwise sensor) and what is left (ρ_c = δ_c − k_c · step, at most half a
 * column): the raster method lays its image out by the rays' azimuths, channel c's ray of encoder
 * column a in image column a + k_c, and widens footprints by the residuals' range only. A partial
 * field of view keeps k_c = 0 (its image has no columns past its ends), ρ_c = δ_c.
 */
export function lidarColumnShifts(desc: LidarDescription): { readonly shift: Int32Array; readonly residualMin: number; readonly residualMax: number } {
  const span = azimuthSpan(desc);
  const step = span / desc.azimuthSteps;
  // A partial field's image has no columns beyond its ends to shift rays into: no shifts there,
  // the footprints widen by the whole offsets' range instead.
  const partial = !isFullTurn(desc);
  const C = desc.elevations.length;
  const shift = new Int32Array(C);
  let residualMin = 0;
  let residualMax = 0;
  for (let c = 0; c < C; c++) {
    // The firing turn is part of the channel's offset (its rays point at θ_a + δ_c + span · f_c / T).
    const d = channelAzimuthOffset(desc, c);
    const k = partial ? 0 : Math.round(d / step);
    shift[c] = k;
    const rho = d - k * step;
    residualMin = Math.min(residualMin, rho);
    residualMax = Math.max(residualMax, rho);
  }
  return { shift, residualMin, residualMax };
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

/** Read-back parts per sweep: range, box, points, overflow count, tile-list total, compacted count, intensity, passes, second returns. */
const PARTS = 9;

/** One sweep's read bytes and the set's state it ran on. */
interface SweepRun {
  readonly version: number;
  readonly boxes: BoxArray;
  readonly masks: Uint32Array | undefined;
  readonly materials: BoxMaterialArrays | undefined;
  readonly reads: readonly (ArrayBuffer | undefined)[];
}


/** The options of one sweep. */
export interface LidarSweepOptions extends LidarMotion {
  /** Read the points back (xyz relative to the set's floating origin, w = 1 for a return); default false. */
  readonly points?: boolean;
  /**
   * Compute the per-point fields on the host, float64 (sensor-frame xyz at each ray's own time,
   * world xyz, time, incidence cosine; `fields` of the result, ready for the point-cloud writers);
   * default false.
   */
  readonly fields?: boolean;
  /** ANDed with the set's box masks (default all bits). */
  readonly mask?: number;
  /**
   * Also compact the returns on the GPU (sensor.compactPointsBuffer, compactRaysBuffer and the
   * drawIndirect arguments in compactArgsBuffer), for drawing exactly the returns with no
   * readback; the sweep reads back their count (`returns`). Writes the point buffer. Default false.
   */
  readonly compact?: boolean;
  /**
   * Also compute each return's intensity on the GPU (the sensor's intensity model over the set's
   * materials: docs/lidar.md, "Materials and intensity") and read it back (`intensity`); it stays in
   * `sensor.intensityBuffer`. Default false.
   */
  readonly intensity?: boolean;
  /**
   * The noise seed, an integer in [0, 2³²) (default 0): a sensor with noise in its description
   * draws every perturbation from (seed, channel, column), so a sweep and its seed give the same
   * noise on every device and in the reference (docs/lidar.md, "Noise and dropout"). Give each
   * sweep its own (a frame number) for independent noise.
   */
  readonly seed?: number;
  /**
   * For a sensor whose sweeps end in the returns stage (range noise, dropout): also read back
   * each sub-ray pass's own hits before it (`passes`: range, box, intensity), which is what
   * compareLidarReturns judges against the reference ray by ray. Default false.
   */
  readonly passes?: boolean;
}

/** A beam's second return (dual mode): range (LIDAR_NO_RETURN where none), box (−1), intensity (0). */
export interface LidarSecondReturn {
  readonly range: Float32Array;
  readonly box: Int32Array;
  readonly intensity: Float32Array;
}

/** One sub-ray pass of a sweep, before the returns stage (noise, dropout, return selection). */
export interface LidarPass {
  /** Range per ray (LIDAR_NO_RETURN where none). */
  readonly range: Float32Array;
  /** Box per ray (−1 where none). */
  readonly box: Int32Array;
  readonly intensity: Float32Array;
}

/** One sweep read back. Ray (c, a) is at index c · azimuths + a. */
export interface LidarSweep {
  readonly channels: number;
  readonly azimuths: number;
  /** Range image, channels × azimuths; LIDAR_NO_RETURN (−1) where nothing was hit. */
  readonly range: Float32Array;
  /** Box hit per ray, −1 for no return. */
  readonly box: Int32Array;
  /** Returns per box of the set (visibility counts for ground-truth labels). */
  readonly returnsPerBox: Uint32Array;
  /** With `compact: true`: how many returns the GPU compacted (the drawIndirect vertex count). */
  readonly compacted: number | undefined;
  /** xyz (relative to the set's floating origin) and w (1 = return, 0 = none) per ray, with `points: true`. */
  readonly points: Float32Array | undefined;
  /** The per-point fields, float64, with `fields: true`. */
  readonly fields: LidarPointCloud | undefined;
  /**
   * With `intensity: true`: each return's intensity, min(1, ρ · cos α · (r₀ / r)² · e^(−a·r))
   * (lidarIntensity in src/core/lidar.ts), 0 where there is no return.
   */
  readonly intensity: Float32Array | undefined;
  /** The noise seed the sweep used (0 by default). */
  readonly seed: number;
  /** With `passes: true` (a sensor with a returns stage): each sub-ray pass's hits before it. */
  readonly passes: readonly LidarPass[] | undefined;
  /**
   * A sensor with a beam in its description: each beam's count of returns (0 to 2); return 0 is
   * `range` / `box` / `intensity`, return 1 `second`.
   */
  readonly returnCount: Uint8Array | undefined;
  /** A beam in 'dual' mode: each beam's second return (the last, when two are kept). */
  readonly second: LidarSecondReturn | undefined;
  /** The method this sweep ran by (its sensor's), and why not the raster method (its sensor's methodReason). */
  readonly method: LidarMethod;
  readonly reason: string | undefined;
  /** Returns whose BVH walk overflowed its stack and were answered by the CPU reference instead. */
  readonly overflowed: number;
}

/** One sensor's sweep in a lidarSweepMany submission. */
export interface LidarSweepJob {
  readonly sensor: LidarSensor;
  readonly pose: LidarPose;
  readonly options?: LidarSweepOptions;
}

/** The tree method's per-sweep buffers, grown with the largest sweep. */
interface WalkBuffers {
  /** vec4 entries of `setup`. */
  readonly capacity: number;
  readonly setup: GPUBuffer;
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
  /** The method every sweep of this sensor uses, with or without motion. */
  readonly method: LidarMethod;
  /** Why this sensor walks the tree instead of rasterising (undefined for the raster method). */
  readonly methodReason: string | undefined;
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
  private readonly tables: GPUBuffer | undefined;
  private readonly params: GPUBuffer;
  private readonly sweepParams: GPUBuffer;
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
  /** The tree method's setup (ray table, columns, moving boxes) and the masks that hide moving boxes from the tree. */
  private walk: WalkBuffers | undefined;
  private rayTable: Float32Array<ArrayBuffer> | undefined;
  private sweepMasks: { readonly capacity: number; readonly buffer: GPUBuffer } | undefined;
  private shifts: ReturnType<typeof lidarColumnShifts> | undefined;
  private compaction: { readonly points: GPUBuffer; readonly rays: GPUBuffer; readonly args: GPUBuffer; readonly slots: GPUBuffer; readonly params: GPUBuffer; readonly scan: ExclusiveScan } | undefined;
  /** The return stages (intensity), made by the first sweep that asks for them. */
  private returns: LidarReturnStage | undefined;
  private readonly lifetime: Lifetime;

  private constructor(readonly ctx: GpuContext, desc: LidarDescription, method: LidarMethod, methodReason: string | undefined, tileScan: ExclusiveScan | undefined, listCapacity: number | undefined) {
    this.desc = desc;
    this.method = method;
    this.methodReason = methodReason;
    this.channels = desc.elevations.length;
    this.azimuths = desc.azimuthSteps;
    this.lifetime = new Lifetime(ctx, 'LidarSensor', false);
    const n = this.channels * this.azimuths;
    const make = (label: string, size: number, usage: number): GPUBuffer =>
      ctx.createBuffer({ label: `${ctx.label}:lidar:${label}`, size: Math.max(16, size), usage });
    this.rangeBuffer = make('range', n * 4, STORAGE_OUT);
    this.boxBuffer = make('box', n * 4, STORAGE_OUT);
    this.pointsBuffer = make('points', n * 16, STORAGE_OUT | BufferUsage.VERTEX);
    this.params = make('params', LIDAR_PARAMS.SIZE, UNIFORM);
    this.sweepParams = make('sweep-params', LIDAR_SWEEP_PARAMS.SIZE, UNIFORM);
    this.rayParams = make('ray-params', RAY_PARAMS.SIZE, UNIFORM);
    this.overflow = make('overflow', 4, STORAGE_OUT);
    this.noNodes = make('no-nodes', 32, BufferUsage.STORAGE);
    if (method === 'raster' && tileScan) {
      const { ch, az } = rasterTile(ctx);
      const rows = Math.ceil(this.channels / ch);
      const cols = Math.ceil(this.azimuths / az);
      this.tile = { ch, az, rows, cols };
      // Counts and fill counters per tile, the list total (two words), the rays left unanswered.
      this.tileCounters = make('tile-counters', (2 * rows * cols + 4) * 4, STORAGE_OUT);
      this.tileScan = tileScan;
      this.wantedListCapacity = listCapacity;
      const tables = lidarKernelTables(desc);
      this.tables = make('tables', tables.byteLength, BufferUsage.STORAGE | BufferUsage.COPY_DST);
      ctx.device.queue.writeBuffer(this.tables, 0, tables);
    }
  }

  /**
   * Validates the description and uploads its tables. `method` (default 'auto': raster when
   * lidarRasterizable(desc), else bvh) picks how motionless sweeps find their hits; see LidarOptions.
   */
  static async create(ctx: GpuContext, desc: LidarDescription, options: LidarOptions = {}): Promise<LidarSensor> {
    checkLidar(desc);
    const rays = desc.elevations.length * desc.azimuthSteps;
    ctx.assertBindingFits('LiDAR points', rays * 16, `${desc.elevations.length} channels × ${desc.azimuthSteps} azimuth steps × 16 bytes`);
    const wanted = options.method ?? 'auto';
    if (wanted !== 'auto' && wanted !== 'raster' && wanted !== 'bvh') {
      throw new ValidationError('argument', undefined, 'method', `must be 'auto', 'raster' or 'bvh' (got ${String(wanted)})`);
    }
    const rasterReason = lidarRasterReason(desc);
    if (wanted === 'raster' && rasterReason) {
      throw new ValidationError('argument', undefined, 'method', `'raster' cannot serve this sensor (${rasterReason}; use method: 'bvh')`);
    }
    const method: LidarMethod = wanted === 'auto' ? (rasterReason ? 'bvh' : 'raster') : wanted;
    if (options.listCapacity !== undefined && !(Number.isInteger(options.listCapacity) && options.listCapacity >= 1)) {
      throw new ValidationError('argument', undefined, 'listCapacity', `must be a positive integer (got ${String(options.listCapacity)})`);
    }
    await getKernel(ctx.device, 'bvhLidar', undefined, { BOX_MASKS: false });
    // A beam of several sub-rays: one sensor of this method per sub-ray beside the beam's own,
    // each a sweep of its own (beamSubRayDescription), owned and destroyed by this sensor.
    const subs = await Promise.all(beamSubRays(desc.beam).slice(1).map((_, k) =>
      LidarSensor.create(ctx, beamSubRayDescription(desc, k + 1), { method, ...(options.listCapacity === undefined ? {} : { listCapacity: options.listCapacity }) })));
    let sensor: LidarSensor;
    if (method === 'bvh') {
      sensor = new LidarSensor(ctx, desc, method, wanted === 'bvh' && !rasterReason ? 'requested' : rasterReason, undefined, undefined);
    } else {
      const tile = rasterTile(ctx);
      await Promise.all(RASTER_KERNELS.map((k) => getKernel(ctx.device, k, undefined, LidarSensor.tileConstants(tile, false))));
      const tiles = Math.ceil(desc.elevations.length / tile.ch) * Math.ceil(desc.azimuthSteps / tile.az);
      sensor = new LidarSensor(ctx, desc, method, undefined, await ExclusiveScan.create(ctx, tiles), options.listCapacity);
    }
    sensor.subRays = subs;
    return sensor;
  }

  /** The sensors of a beam's other sub-rays (sub-ray k at index k − 1; none without divergence). */
  private subRays: readonly LidarSensor[] = [];

  /** Sub-ray passes per beam (1 without divergence). */
  get passCount(): number {
    return 1 + this.subRays.length;
  }

  /** Whether motionless sweeps need the set's BVH (the bvh method) or not (raster). */
  get needsTree(): boolean {
    return this.method === 'bvh' || this.subRays.some((s) => s.method === 'bvh');
  }

  /** Rays per sweep. */
  get rayCount(): number {
    return this.channels * this.azimuths;
  }

  /**
   * Records one sweep into `encoder` (results in rangeBuffer, boxBuffer and, unless `points` is
   * false, pointsBuffer). The tree method (this sensor's, or any sweep with motion) needs the
   * set's tree current (built or refitted after the last change); the raster method ignores it.
   */
  async encodeSweep(
    encoder: GPUCommandEncoder, set: BoxSet, bvh: Bvh | undefined, pose: LidarPose,
    options: LidarMotion & {
      readonly mask?: number; readonly points?: boolean; readonly compact?: boolean; readonly intensity?: boolean; readonly seed?: number;
      readonly timestampWrites?: GPUComputePassTimestampWrites;
    } = {},
    operation = 'LidarSensor.encodeSweep',
  ): Promise<void> {
    const rays = options.compact ? { ...options, points: true } : options;
    await this.encodeRays(encoder, set, bvh, pose, rays, operation);
    // The beam's other sub-rays: each its own sweep (with its intensities), its images a pass.
    for (const sub of this.subRays) {
      sub.assertUsable(operation);
      await sub.encodeRays(encoder, set, bvh, pose, {
        ...(options.poseEnd === undefined ? {} : { poseEnd: options.poseEnd }),
        ...(options.boxMotion === undefined ? {} : { boxMotion: options.boxMotion }),
        ...(options.mask === undefined ? {} : { mask: options.mask }),
        ...(options.seed === undefined ? {} : { seed: options.seed }),
        points: false, intensity: true,
      }, operation);
    }
    if (this.returnsAfter || options.intensity) {
      const stage = this.returns!;
      let pass = encoder.beginComputePass({ label: 'obb:lidar-returns' });
      await stage.encodeIntensity(pass, { set, setup: this.walk!.setup, range: this.rangeBuffer, box: this.boxBuffer });
      for (const sub of this.subRays) {
        await sub.returns!.encodeIntensity(pass, { set, setup: sub.walk!.setup, range: sub.rangeBuffer, box: sub.boxBuffer });
      }
      if (this.returnsAfter) {
        // Each sub-ray's hits are a pass of its beam (this sweep's own hits pass 0); the beams'
        // returns replace the images.
        pass.end();
        const passes = this.passCount;
        stage.copyPass(encoder, 0, passes, { range: this.rangeBuffer, box: this.boxBuffer, intensity: stage.intensityBuffer });
        this.subRays.forEach((sub, k) => stage.copyPass(encoder, k + 1, passes, { range: sub.rangeBuffer, box: sub.boxBuffer, intensity: sub.returns!.intensityBuffer }));
        pass = encoder.beginComputePass({ label: 'obb:lidar-beam-returns' });
        await stage.encodeReturns(pass, {
          setup: this.walk!.setup, range: this.rangeBuffer, box: this.boxBuffer, points: this.pointsBuffer, passes, dual: this.desc.beam?.returns === 'dual',
        });
      }
      pass.end();
    }
    if (options.compact) {
      await this.encodeCompact(encoder);
    }
  }

  /**
   * Frames per column in the sweep's setup table: 1 (a column's rays share its frame), or with
   * per-laser data (vertical offsets, firing times) one per channel, so one per ray.
   */
  private get frameRows(): number {
    return hasPerLaserData(this.desc) ? this.channels : 1;
  }

  /** Firing times per column at which the setup table holds the moving boxes (firingGroups). */
  private get timeRows(): number {
    return this.groups.offsets.length;
  }

  private groupsCache: ReturnType<typeof firingGroups> | undefined;

  private get groups(): ReturnType<typeof firingGroups> {
    return this.groupsCache ??= firingGroups(this.desc);
  }

  /** Whether this sensor's sweeps end with the returns stage (range noise, dropout, a beam). */
  private get returnsAfter(): boolean {
    return hasReturnNoise(this.desc) || this.desc.beam !== undefined;
  }

  /** Whether this sensor's sweeps need the return stages at all (with or without `intensity`). */
  private get needsReturnStage(): boolean {
    return hasAngularNoise(this.desc) || this.returnsAfter;
  }

  /** Intensity per ray (f32), written by a sweep with `intensity: true`; undefined before the first. */
  get intensityBuffer(): GPUBuffer | undefined {
    return this.returns?.intensityBuffer;
  }

  /**
   * Records the sweep kernels; returns how many boxes move in this sweep. With the return stages
   * (`intensity`, or noise in the description) the sweep's setup table is written whatever the
   * method (the stages read their rays and boxes from it), the stages' parameters are written,
   * and with angular noise the setup's rays are perturbed before the sweep reads them.
   */
  private async encodeRays(
    encoder: GPUCommandEncoder, set: BoxSet, bvh: Bvh | undefined, pose: LidarPose,
    options: LidarMotion & {
      readonly mask?: number; readonly points?: boolean; readonly intensity?: boolean; readonly seed?: number; readonly timestampWrites?: GPUComputePassTimestampWrites;
    },
    operation: string,
  ): Promise<number> {
    this.assertUsable(operation);
    checkSet(this.ctx, set, 'set', operation);
    checkPose(pose);
    checkMotion(options, set.count);
    const device = this.ctx.device;
    const mask = (options.mask ?? 0xffffffff) >>> 0;
    encoder.clearBuffer(this.overflow);
    const points = options.points === false ? 0 : RAY_OPT_GEOMETRY;
    const moving = motionMatters(this.desc, options) ? options.boxMotion?.boxes.length ?? 0 : 0;
    if (this.method === 'raster') {
      // Per-laser data (vertical offsets, firing times) gives every ray a frame of its own when
      // something moves: the raster method then takes its motion path (rays from the setup table,
      // bounds per chunk). When nothing moves, a firing time is only a further turn of its
      // channel's azimuth (in the channel's offset already) and a vertical offset only lifts its
      // channel's beam origin: the static path, its rays lifted by the tables' v_c (LIDAR_LIFT),
      // unless a beam-origin circle meets firing times (the origin's angle is then the firing's).
      const still = moving === 0 && !sensorMoves(this.desc, pose, options.poseEnd);
      const motion = hasPerLaserData(this.desc)
        ? !(still && ((this.desc.beamOriginOffset ?? 0) === 0 || !hasFiringOffsets(this.desc)))
        : motionMatters(this.desc, options);
      const lift = !motion && hasVerticalOffsets(this.desc);
      // With motion: the tree method's setup (each column's frame, the moving boxes at each
      // column's time) and the chunks' motion records; the moving boxes' masks cleared.
      const chunkWidth = motion ? motionChunkWidth(this.azimuths, moving === 0 && !sensorMoves(this.desc, pose, options.poseEnd)) : 0;
      const masks = motion ? this.writeWalkSetup(set, pose, options, moving, chunkWidth) : undefined;
      if (!motion && (options.intensity || this.needsReturnStage)) {
        // The return stages read the rays from the setup table, which a static raster sweep skips.
        this.writeWalkSetup(set, pose, options, 0);
      }
      const noise = await this.beginReturns(encoder, set, moving, options);
      const [ax, ay, az] = poseAxes(pose);
      const bytes = new ArrayBuffer(LIDAR_PARAMS.SIZE);
      const f = new Float32Array(bytes);
      const u = new Uint32Array(bytes);
      const o: Vec3 = [pose.origin[0] - set.origin[0], pose.origin[1] - set.origin[1], pose.origin[2] - set.origin[2]];
      f.set(o, LIDAR_PARAMS.ORIGIN / 4);
      f[LIDAR_PARAMS.MAX_RANGE / 4] = this.desc.maxRange;
      f[LIDAR_PARAMS.MIN_RANGE / 4] = this.desc.minRange ?? 0;
      f.set(ax, LIDAR_PARAMS.AXIS_X / 4);
      u[LIDAR_PARAMS.CHANNELS / 4] = this.channels;
      f.set(ay, LIDAR_PARAMS.AXIS_Y / 4);
      u[LIDAR_PARAMS.AZIMUTHS / 4] = this.azimuths;
      f.set(az, LIDAR_PARAMS.AXIS_Z / 4);
      u[LIDAR_PARAMS.MASK / 4] = mask;
      // The residual offsets (lidarColumnShifts), rounded outwards to f32.
      const { residualMin, residualMax } = this.shifts ??= lidarColumnShifts(this.desc);
      f[LIDAR_PARAMS.OFFSET_MIN / 4] = residualMin - Math.abs(residualMin) * 2 ** -20;
      f[LIDAR_PARAMS.OFFSET_MAX / 4] = residualMax + Math.abs(residualMax) * 2 ** -20;
      const span = azimuthSpan(this.desc);
      u[LIDAR_PARAMS.FLAGS / 4] = (span < 0 ? LIDAR_CLOCKWISE : 0) | (hasAzimuthOffsets(this.desc) ? LIDAR_PER_RAY_AZIMUTH : 0) | (isFullTurn(this.desc) ? 0 : LIDAR_PARTIAL) |
        (motion ? LIDAR_MOTION : 0) | (lift ? LIDAR_LIFT : 0);
      f[LIDAR_PARAMS.SPAN / 4] = span;
      const n = this.desc.beamOriginOffset ?? 0;
      f[LIDAR_PARAMS.BEAM_OFFSET / 4] = n;
      // A static sweep's beam origins lie within n + max |v_c| of the sensor origin (rounded up;
      // n itself without lifts): its footprints grow by that (staticPrint).
      f[LIDAR_PARAMS.ORIGIN_GROW / 4] = lift ? (n + Math.max(...this.desc.verticalOffsets!.map(Math.abs))) * (1 + 2 ** -20) : n;
      u[LIDAR_PARAMS.MOVING / 4] = moving;
      u[LIDAR_PARAMS.CHUNK_WIDTH / 4] = chunkWidth;
      u[LIDAR_PARAMS.FRAME_ROWS / 4] = this.frameRows;
      u[LIDAR_PARAMS.TIME_ROWS / 4] = this.timeRows;
      device.queue.writeBuffer(this.params, 0, bytes);
      device.queue.writeBuffer(this.rayParams, 0, new Uint32Array([this.rayCount, set.count, (masks || set.masks ? RAY_OPT_BOX_MASKS : 0) | points, 0]));
      await this.encodeRaster(encoder, set, options.timestampWrites, motion ? { setup: this.walk!.setup, masks, slots: set.count + moving } : undefined, noise);
      return moving;
    }
    if (set.count >= 2 && !bvh) {
      throw new ValidationError('argument', undefined, 'tree', `${operation}: this sweep walks the set's tree (${this.methodReason ?? 'the bvh method'}); pass it`);
    }
    // Still, with per-laser data and no beam-origin circle, every column of a channel has the same
    // frame (its origin lifted by v_c, the pose's axes): one frame per channel (frameCols = 1), the
    // bits of the frames per ray. Not for the return stages, which read a frame per ray.
    const perChannel = hasPerLaserData(this.desc) && (this.desc.beamOriginOffset ?? 0) === 0 && moving === 0 && !sensorMoves(this.desc, pose, options.poseEnd) &&
      !options.intensity && !this.needsReturnStage;
    const masks = this.writeWalkSetup(set, pose, options, moving, 0, perChannel);
    await this.beginReturns(encoder, set, moving, options);
    const boxMasks = masks !== undefined || set.masks !== undefined;
    device.queue.writeBuffer(this.rayParams, 0, new Uint32Array([this.rayCount, set.count, (boxMasks ? RAY_OPT_BOX_MASKS : 0) | points, 0]));
    const sweepBytes = new ArrayBuffer(LIDAR_SWEEP_PARAMS.SIZE);
    const su = new Uint32Array(sweepBytes);
    const sf = new Float32Array(sweepBytes);
    su[LIDAR_SWEEP_PARAMS.CHANNELS / 4] = this.channels;
    su[LIDAR_SWEEP_PARAMS.AZIMUTHS / 4] = this.azimuths;
    su[LIDAR_SWEEP_PARAMS.MASK / 4] = mask;
    su[LIDAR_SWEEP_PARAMS.MOVING_COUNT / 4] = moving;
    sf[LIDAR_SWEEP_PARAMS.MIN_RANGE / 4] = this.desc.minRange ?? 0;
    sf[LIDAR_SWEEP_PARAMS.MAX_RANGE / 4] = this.desc.maxRange;
    su[LIDAR_SWEEP_PARAMS.FRAME_ROWS / 4] = this.frameRows;
    su[LIDAR_SWEEP_PARAMS.FRAME_COLS / 4] = perChannel ? 1 : this.azimuths;
    device.queue.writeBuffer(this.sweepParams, 0, sweepBytes);
    // The box masks' test compiled in only when there are masks (shaders/rays/common.wgsl, BOX_MASKS).
    const kernel = await getKernel(device, 'bvhLidar', undefined, { BOX_MASKS: boxMasks });
    const pass = encoder.beginComputePass(options.timestampWrites ? { label: 'obb:lidar', timestampWrites: options.timestampWrites } : { label: 'obb:lidar' });
    dispatch(device, pass, kernel, {
      params: this.rayParams, boxes: set.buffer, boxMasks: masks ?? set.maskBuffer, wide: bvh?.wide ?? this.noNodes, overflowCount: this.overflow,
      sweep: this.sweepParams, lidarSetup: this.walk!.setup, lidarRange: this.rangeBuffer, lidarBox: this.boxBuffer, lidarPoints: this.pointsBuffer,
    }, Math.ceil(this.rayCount / kernel.workgroupSize), 'obb:lidar');
    pass.end();
    return moving;
  }

  /**
   * The return stages' share of a sweep before its kernels (the setup table written): their
   * parameters, and with angular noise in the description the perturbed rays
   * (shaders/lidar/noise_rays.wgsl) in a pass of their own. Returns the setup table when the
   * rays were perturbed (the raster method then reads them from it), else undefined.
   */
  private async beginReturns(encoder: GPUCommandEncoder, set: BoxSet, moving: number, options: { readonly intensity?: boolean; readonly seed?: number; readonly points?: boolean }): Promise<GPUBuffer | undefined> {
    if (!options.intensity && !this.needsReturnStage) {
      return undefined;
    }
    const stage = this.returns ??= new LidarReturnStage(this.ctx, this.desc);
    stage.prepare({
      set, moving, seed: options.seed ?? 0, passes: this.passCount, points: options.points !== false,
      ...(this.desc.beam ? { mode: this.desc.beam.returns ?? 'strongest', minSeparation: this.desc.beam.minSeparation ?? 1 } : {}),
    });
    if (!hasAngularNoise(this.desc)) {
      return undefined;
    }
    const pass = encoder.beginComputePass({ label: 'obb:lidar-noise' });
    await stage.encodeNoiseRays(pass, this.walk!.setup, () => this.rayTable ??= lidarRayTable(this.desc));
    pass.end();
    return this.walk!.setup;
  }

  /**
   * The tree method's setup for one sweep (shaders/lidar/tree.wgsl, lidarSetup): the ray table
   * (uploaded once), each column's beam origin and axes at its time, the moving boxes' indices and
   * masks, and each column's moving boxes at its time (float64, re-based to the set's origin,
   * rounded once); with `chunkWidth` (the raster method), the motion records after them
   * (lidarMotionRecords: the whole sweep's, then each chunk's). Returns the box masks to bind when
   * boxes move (the set's, with the moving boxes' cleared, so the walk skips them), else
   * undefined (the set's own).
   */
  private writeWalkSetup(set: BoxSet, pose: LidarPose, motion: LidarMotion, moving: number, chunkWidth = 0, perChannel = false): GPUBuffer | undefined {
    const A = this.azimuths;
    const n = this.rayCount;
    // Frames per row: every column's, or with `perChannel` (a still sweep with per-laser data and
    // no beam-origin circle, the tree method's) one, the channel's frame at its first firing.
    const cols = perChannel ? 1 : A;
    const F = this.frameRows * cols;
    const G = this.timeRows;
    const records = chunkWidth > 0 ? 1 + Math.ceil(A / chunkWidth) : 0;
    const entries = n + 4 * F + moving + 3 * G * A * moving + 3 * records;
    this.ctx.assertBindingFits('LiDAR sweep setup', entries * 16,
      `(${n} rays + 4 × ${F} frames + ${moving} moving boxes × (1 + 3 × ${G * A} firing times)${records ? ` + 3 × ${records} motion records` : ''}) × 16 bytes`);
    if (!this.walk || this.walk.capacity < entries) {
      if (this.walk) {
        this.ctx.destroyBuffer(this.walk.setup);
      }
      const capacity = Math.max(entries, this.walk ? 2 * this.walk.capacity : 0);
      const setup = this.ctx.createBuffer({ label: `${this.ctx.label}:lidar:setup`, size: Math.min(capacity, Math.max(entries, this.ctx.limits.maxStorageBufferBindingSize >> 4)) * 16, usage: BufferUsage.STORAGE | BufferUsage.COPY_DST });
      this.walk = { capacity: setup.size / 16, setup };
      this.rayTable ??= lidarRayTable(this.desc);
      this.ctx.device.queue.writeBuffer(setup, 0, this.rayTable);
    }
    const bytes = new ArrayBuffer((entries - n) * 16);
    const f = new Float32Array(bytes);
    const u = new Uint32Array(bytes);
    const [ox, oy, oz] = set.origin;
    // One row of frames (each column's), or with per-laser data one per channel (its firings),
    // each frame's w its firing-time row (firingGroups) as u32.
    const rows = this.frameRows > 1
      ? Array.from({ length: this.channels }, (_, c) => columnFrames(perChannel ? { ...this.desc, azimuthSteps: 1 } : this.desc, pose, motion.poseEnd, c))
      : [columnFrames(this.desc, pose, motion.poseEnd)];
    rows.forEach((frames, c) => {
      const g = this.groups.group[c] ?? 0;
      const row = rows.length > 1 ? g : 0;
      for (let a = 0; a < cols; a++) {
        const { beamOrigin, axes } = frames[a]!;
        const o = 16 * (c * cols + a);
        f[o] = beamOrigin[0] - ox;
        f[o + 1] = beamOrigin[1] - oy;
        f[o + 2] = beamOrigin[2] - oz;
        u[o + 3] = row;
        for (let k = 0; k < 3; k++) {
          f[o + 4 + 4 * k] = axes[k]![0];
          f[o + 5 + 4 * k] = axes[k]![1];
          f[o + 6 + 4 * k] = axes[k]![2];
        }
      }
    });
    if (records > 0) {
      // Rounded outwards to f32 (and δ by the f32 rounding of the positions the kernel sees).
      const up = (x: number): number => x * (1 + 2 ** -20);
      const at = 16 * F + 4 * moving + 12 * G * A * moving;
      lidarMotionRecords(this.desc, rows, chunkWidth, (this.shifts ??= lidarColumnShifts(this.desc)).shift, angularNoiseBounds(this.desc)).forEach((r, k) => {
        const rel: Vec3 = [r.position[0] - ox, r.position[1] - oy, r.position[2] - oz];
        const o = at + 12 * k;
        // The reference frame and its time slot: channel 0's firing in the column (frame and slot
        // `column` in either layout: channel 0's row and firing-time row are the first).
        u[o] = r.column;
        u[o + 3] = r.column;
        f[o + 1] = up(r.grow + 2 ** -20 * (2 * Math.hypot(...rel) + r.grow));
        f[o + 2] = up(r.timeSpread);
        f[o + 4] = r.turn > 0 ? detCos(r.turn) * (1 - 2 ** -20) : 1;
        f[o + 5] = r.turn > 0 ? up(detSin(r.turn)) : 0;
        f[o + 6] = up(r.azimuthPad);
        f.set(rel, o + 8);
      });
    }
    if (moving === 0) {
      this.ctx.device.queue.writeBuffer(this.walk.setup, n * 16, bytes);
      return undefined;
    }
    const m = motion.boxMotion!;
    const at = 16 * F;
    const boxes = set.boxes;
    for (let k = 0; k < moving; k++) {
      const i = m.boxes[k]!;
      u[at + 4 * k] = i;
      u[at + 4 * k + 1] = set.masks?.[i] ?? 0xffffffff;
      // Its growth rate (the raster method): no point of it moves faster than |v| + |ω|·|h|.
      const { v, w } = motionOf(m, k);
      const h = Math.hypot(boxes.data[i * BOX_F64.STRIDE + BOX_F64.HALF]!, boxes.data[i * BOX_F64.STRIDE + BOX_F64.HALF + 1]!, boxes.data[i * BOX_F64.STRIDE + BOX_F64.HALF + 2]!);
      f[at + 4 * k + 2] = (Math.hypot(...v) + Math.hypot(...w) * h) * (1 + 2 ** -20);
    }
    // The moving boxes at each firing time, slot g · A + a at τ_a + f_g (firing-time row g), in
    // the Obb layout (three vec4 per box); the times are the reference's (columnBoxes).
    const timed = new Float64Array(moving * BOX_F64.STRIDE);
    const view = { count: moving, data: timed };
    const motions = Array.from({ length: moving }, (_, k) => motionOf(m, k));
    const obbFloats = OBB.SIZE / 4;
    this.groups.offsets.forEach((fire, g) => {
      for (let a = 0; a < A; a++) {
        const tau = fire === 0 ? columnTime(this.desc, a) : columnTime(this.desc, a) + fire;
        for (let k = 0; k < moving; k++) {
          boxAtTime(boxes, m.boxes[k]!, motions[k]!.v, motions[k]!.w, tau, timed, k);
        }
        const s = g * A + a;
        packBoxes(view, set.origin, 0, moving, f.subarray(at + 4 * moving + s * moving * obbFloats, at + 4 * moving + (s + 1) * moving * obbFloats));
      }
    });
    this.ctx.device.queue.writeBuffer(this.walk.setup, n * 16, bytes);
    // The set's masks with the moving boxes' cleared: the walk skips them, the table tests them.
    if (!this.sweepMasks || this.sweepMasks.capacity < set.count) {
      if (this.sweepMasks) {
        this.ctx.destroyBuffer(this.sweepMasks.buffer);
      }
      const capacity = Math.max(set.count, 2 * (this.sweepMasks?.capacity ?? 0), 4);
      this.sweepMasks = { capacity, buffer: this.ctx.createBuffer({ label: `${this.ctx.label}:lidar:sweep-masks`, size: capacity * 4, usage: BufferUsage.STORAGE | BufferUsage.COPY_DST }) };
    }
    const masks = set.masks ? set.masks.slice() : new Uint32Array(set.count).fill(0xffffffff);
    for (let k = 0; k < moving; k++) {
      masks[m.boxes[k]!] = 0;
    }
    this.ctx.device.queue.writeBuffer(this.sweepMasks.buffer, 0, masks);
    return this.sweepMasks.buffer;
  }

  /** The compacted returns' points (float32x4, VERTEX usage), written by a sweep with `compact: true`. */
  get compactPointsBuffer(): GPUBuffer | undefined {
    return this.compaction?.points;
  }

  /** The compacted returns' ray indices (u32, c · azimuths + a). */
  get compactRaysBuffer(): GPUBuffer | undefined {
    return this.compaction?.rays;
  }

  /** drawIndirect arguments for the compacted points: (returns, 1, 0, 0), INDIRECT usage. */
  get compactArgsBuffer(): GPUBuffer | undefined {
    return this.compaction?.args;
  }

  /**
   * Records the compaction of the last recorded sweep's returns (shaders/lidar/compact.wgsl): a
   * flag per ray, their exclusive scan, then each return's point and ray index into its slot and
   * the count into the drawIndirect arguments. Needs the sweep's points (encodeSweep writes them
   * unless `points: false`).
   */
  async encodeCompact(encoder: GPUCommandEncoder): Promise<void> {
    const device = this.ctx.device;
    const n = this.rayCount;
    if (!this.compaction) {
      const make = (label: string, size: number, usage: number): GPUBuffer =>
        this.ctx.createBuffer({ label: `${this.ctx.label}:lidar:${label}`, size: Math.max(16, size), usage });
      this.compaction = {
        points: make('compact-points', n * 16, STORAGE_OUT | BufferUsage.VERTEX),
        rays: make('compact-rays', n * 4, STORAGE_OUT),
        args: make('compact-args', 16, STORAGE_OUT | BufferUsage.INDIRECT),
        slots: make('compact-slots', n * 4, BufferUsage.STORAGE),
        params: make('compact-params', 16, UNIFORM),
        scan: await ExclusiveScan.create(this.ctx, n),
      };
      device.queue.writeBuffer(this.compaction.params, 0, new Uint32Array([n, 0, 0, 0]));
    }
    const c = this.compaction;
    const [flags, scatter] = await Promise.all([getKernel(device, 'lidarCompactFlags'), getKernel(device, 'lidarCompactScatter')]);
    const groups = Math.ceil(n / flags.workgroupSize);
    const pass = encoder.beginComputePass({ label: 'obb:lidar-compact' });
    dispatch(device, pass, flags, { lidarBox: this.boxBuffer, compactParams: c.params, compactSlots: c.slots }, groups, 'obb:lidar-compact-flags');
    await c.scan.encode(pass, c.slots, n);
    dispatch(device, pass, scatter, {
      lidarBox: this.boxBuffer, lidarPoints: this.pointsBuffer, compactParams: c.params, compactSlots: c.slots,
      compactPoints: c.points, compactRays: c.rays, compactArgs: c.args,
    }, groups, 'obb:lidar-compact-scatter');
    pass.end();
  }

  /**
   * The raster kernels' overrides: the tile width, whether the motion path is compiled in (for
   * sweeps with LIDAR_MOTION alone) and with it the moving boxes, and (only when on, so a sensor
   * without it compiles what it always did) the beams' angular noise.
   */
  private static tileConstants(tile: { readonly ch: number; readonly az: number }, motion: boolean, noise = false, moving = false): Record<string, number> {
    const base = { TILE_AZ: tile.az, MOTION: motion ? 1 : 0, ...(motion && moving ? { MOVING: 1 } : {}) };
    return noise ? { ...base, NOISE: 1 } : base;
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
  private async encodeRaster(
    encoder: GPUCommandEncoder, set: BoxSet, timestampWrites: GPUComputePassTimestampWrites | undefined,
    motion: { readonly setup: GPUBuffer; readonly masks: GPUBuffer | undefined; readonly slots: number } | undefined,
    noiseSetup?: GPUBuffer,
  ): Promise<void> {
    const device = this.ctx.device;
    const tile = this.tile!;
    const slots = motion?.slots ?? set.count;
    const buffers = this.rasterBuffersFor(slots);
    const constants = LidarSensor.tileConstants(tile, motion !== undefined, noiseSetup !== undefined, motion !== undefined && motion.slots > set.count);
    const [footprint, bin, sortTiles, tiles] = await Promise.all([
      getKernel(device, 'lidarFootprint', undefined, constants), getKernel(device, 'lidarBin', undefined, constants),
      getKernel(device, 'lidarSortTiles', undefined, constants), getKernel(device, 'lidarTiles', undefined, constants),
    ]);
    const tileCounters = this.tileCounters!;
    const tables = this.tables!;
    encoder.clearBuffer(tileCounters);
    const pass = encoder.beginComputePass(timestampWrites ? { label: 'obb:lidar-raster', timestampWrites } : { label: 'obb:lidar-raster' });
    const boxGroups = Math.ceil(slots / footprint.workgroupSize);
    // Without motion (or noise) the setup is not read: any storage buffer stands in.
    const lidarSetup = motion?.setup ?? noiseSetup ?? this.noNodes;
    const lists = { lidar: this.params, boxData: buffers.boxData, tileCounters, tileLists: buffers.lists };
    dispatch(device, pass, footprint, {
      ...lists, params: this.rayParams, boxes: set.buffer, boxMasks: motion?.masks ?? set.maskBuffer, lidarTables: tables, lidarSetup,
    }, boxGroups, 'obb:lidar-footprint');
    await this.tileScan!.encode(pass, tileCounters, tile.rows * tile.cols);
    dispatch(device, pass, bin, { ...lists, params: this.rayParams }, boxGroups, 'obb:lidar-bin');
    dispatch(device, pass, sortTiles, lists, Math.ceil(tile.rows * tile.cols / sortTiles.workgroupSize), 'obb:lidar-sort-tiles');
    // CPU adapters: a few workgroups per core striding over the tiles; GPUs: one per tile.
    dispatch(device, pass, tiles, {
      ...lists, params: this.rayParams, lidarTables: tables, lidarSetup,
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
  sweep(set: BoxSet, tree: Bvh | (() => Promise<Bvh | undefined>), pose: LidarPose, options: LidarSweepOptions = {}): Promise<LidarSweep> {
    return LidarSensor.sweepMany(this.ctx, set, tree, [{ sensor: this, pose, options }], 'lidarSweep').then((s) => s[0]!);
  }

  /**
   * Several sensors' sweeps over one set: every sweep encoded into one submission, every result
   * read back through one staging buffer (a raster sensor whose tile lists did not fit is swept
   * again on its own, as in `sweep`). Each sensor appears at most once (its result buffers are
   * its own).
   */
  static async sweepMany(
    ctx: GpuContext, set: BoxSet, tree: Bvh | (() => Promise<Bvh | undefined>), jobs: readonly LidarSweepJob[], operation = 'lidarSweepMany',
  ): Promise<LidarSweep[]> {
    if (!Array.isArray(jobs) || jobs.length === 0) {
      throw new ValidationError('argument', undefined, 'sweeps', 'must be a non-empty array of { sensor, pose, options? }');
    }
    const seen = new Set<LidarSensor>();
    jobs.forEach((job, k) => {
      if (!(job?.sensor instanceof LidarSensor)) {
        throw new ValidationError('argument', k, 'sensor', 'must be a LidarSensor');
      }
      if (seen.has(job.sensor)) {
        throw new ValidationError('argument', k, 'sensor', 'appears twice in one submission (its result buffers would be overwritten); use another sensor');
      }
      seen.add(job.sensor);
      job.sensor.assertUsable(operation);
      checkPose(job.pose);
      checkMotion(job.options ?? {}, set.count);
      const seed = job.options?.seed;
      if (seed !== undefined && !(Number.isInteger(seed) && seed >= 0 && seed <= 0xffffffff)) {
        throw new ValidationError('argument', k, 'seed', `must be an integer in [0, 2^32) (got ${String(seed)})`);
      }
    });
    checkSet(ctx, set, 'set', operation);
    const runs = await LidarSensor.submit(ctx, set, tree, jobs, operation);
    const out: LidarSweep[] = [];
    for (const [k, job] of jobs.entries()) {
      let run = runs[k]!;
      const sensor = job.sensor;
      const total = run.reads[4]!;
      if (total.byteLength > 0) {
        // Raster tile lists too small for this sweep: size them by its own count and sweep again,
        // if the boxes are still those of the first sweep (else the CPU answers below, on them).
        const [count, high] = new Uint32Array(total);
        if (high === 0 && count! > sensor.listCapacity) {
          ctx.assertBindingFits('LiDAR raster tile lists', count! * 4);
          sensor.wantedListCapacity = Math.ceil(count! * 1.25);
          // A beam's sub-rays have nearly its footprints: their lists grow with it.
          for (const sub of sensor.subRays) {
            sub.wantedListCapacity = Math.max(sub.wantedListCapacity ?? 0, sensor.wantedListCapacity);
          }
          const [again] = await LidarSensor.submit(ctx, set, tree, [job], operation);
          if (again!.version === run.version) {
            run = again!;
          }
        }
      }
      out.push(sensor.finish(run, job.pose, job.options ?? {}));
    }
    return out;
  }

  /** One submission of every job's sweep and the copies of its results, in the set's turn. */
  private static async submit(
    ctx: GpuContext, set: BoxSet, tree: Bvh | (() => Promise<Bvh | undefined>), jobs: readonly LidarSweepJob[], operation: string,
  ): Promise<SweepRun[]> {
    // The sweeps and their readbacks started in the same turn (the copies follow the sweeps on the
    // queue, so a later sweep of these sensors cannot overwrite the results first).
    const started = await ctx.sequence(operation, async () => {
      const needsTree = jobs.some((j) => j.sensor.needsTree);
      const bvh = !needsTree ? undefined : typeof tree === 'function' ? await tree() : tree;
      const encoder = ctx.device.createCommandEncoder({ label: 'obb:lidar' });
      const parts: { source: GPUBuffer; size: number; offset?: number }[] = [];
      for (const { sensor, pose, options = {} } of jobs) {
        await sensor.encodeSweep(encoder, set, bvh, pose, {
          points: options.points === true,
          compact: options.compact === true,
          intensity: options.intensity === true,
          seed: options.seed ?? 0,
          ...(options.mask === undefined ? {} : { mask: options.mask }),
          ...(options.poseEnd === undefined ? {} : { poseEnd: options.poseEnd }),
          ...(options.boxMotion === undefined ? {} : { boxMotion: options.boxMotion }),
        }, operation);
        const n = sensor.rayCount;
        const raster = sensor.method === 'raster';
        const tiles = sensor.tile ? sensor.tile.rows * sensor.tile.cols : 0;
        parts.push(
          { source: sensor.rangeBuffer, size: n * 4 },
          { source: sensor.boxBuffer, size: n * 4 },
          { source: sensor.pointsBuffer, size: options.points ? n * 16 : 0 },
          // Rays left unanswered: the tree's count, or the raster's after its list total.
          raster ? { source: sensor.tileCounters!, size: 4, offset: 8 * tiles + 8 } : { source: sensor.overflow, size: 4 },
          { source: sensor.tileCounters ?? sensor.overflow, size: raster && sensor.tileCounters ? 8 : 0, offset: 8 * tiles },
          { source: sensor.compaction?.args ?? sensor.overflow, size: options.compact ? 4 : 0 },
          { source: sensor.returns?.intensityBuffer ?? sensor.overflow, size: options.intensity ? n * 4 : 0 },
          sensor.returnsAfter && options.passes
            ? { source: sensor.returns!.passesBuffer(sensor.passCount), size: 12 * n * sensor.passCount }
            : { source: sensor.overflow, size: 0 },
          sensor.desc.beam?.returns === 'dual' ? { source: sensor.returns!.secondBuffer, size: 16 * n } : { source: sensor.overflow, size: 0 },
        );
      }
      // The sweeps and the copies of their results in one submission.
      const reads = ctx.readbackParts(parts, operation, undefined, encoder);
      return { version: set.version, boxes: set.boxes, masks: set.masks, materials: set.materials, reads };
    });
    const all = await started.reads;
    return jobs.map((_, k) => ({
      version: started.version, boxes: started.boxes, masks: started.masks, materials: started.materials, reads: all.slice(PARTS * k, PARTS * k + PARTS),
    }));
  }

  /** A sweep's results from its read bytes: unanswered rays by the reference, counts, fields. */
  private finish(run: SweepRun, pose: LidarPose, options: LidarSweepOptions): LidarSweep {
    const [rangeBytes, boxBytes, pointBytes, overflowBytes, , compactBytes, intensityBytes, passBytes, secondBytes] = run.reads;
    const n = this.rayCount;
    const range = new Float32Array(rangeBytes!);
    // Read as int32, NO_BOX is already -1 (box indices stay below 2^31: one binding holds them).
    const box = new Int32Array(boxBytes!);
    const points = options.points ? new Float32Array(pointBytes!) : undefined;
    const intensity = options.intensity ? new Float32Array(intensityBytes!) : undefined;
    const seed = options.seed ?? 0;
    const passes = passBytes!.byteLength > 0 ? LidarSensor.passesOf(passBytes!, this.passCount, n) : undefined;
    // Dual mode: the second returns and the counts, from (range bits, box, intensity bits, count) per beam.
    let second: LidarSecondReturn | undefined;
    let returnCount: Uint8Array | undefined;
    if (secondBytes!.byteLength > 0) {
      const words = new Uint32Array(secondBytes!);
      const floats = new Float32Array(secondBytes!);
      const ints = new Int32Array(secondBytes!);
      second = {
        range: Float32Array.from({ length: n }, (_, r) => floats[4 * r]!),
        box: Int32Array.from({ length: n }, (_, r) => ints[4 * r + 1]!),
        intensity: Float32Array.from({ length: n }, (_, r) => floats[4 * r + 2]!),
      };
      returnCount = Uint8Array.from({ length: n }, (_, r) => words[4 * r + 3]!);
    } else if (this.desc.beam) {
      returnCount = Uint8Array.from(box, (b) => (b >= 0 ? 1 : 0));
    }
    const overflowed = new Uint32Array(overflowBytes!)[0]!;
    const motion: LidarMotion = {
      ...(options.poseEnd === undefined ? {} : { poseEnd: options.poseEnd }),
      ...(options.boxMotion === undefined ? {} : { boxMotion: options.boxMotion }),
    };
    // Rays left unanswered (LIDAR_UNANSWERED, −2 as int32) are counted in `overflowed`: none when it
    // is 0, unless a sub-ray's sweep left some (its beam then says so).
    let reference: ReturnType<typeof lidarSweepReference> | undefined;
    for (let r = 0; (overflowed > 0 || this.subRays.length > 0) && r < n; r++) {
      if (box[r] === LIDAR_UNANSWERED << 0) {
        reference ??= lidarSweepReference(run.boxes, this.desc, pose, motion, {
          ...(run.masks ? { boxMasks: run.masks, ...(options.mask === undefined ? {} : { mask: options.mask }) } : {}),
          ...(intensity ? { intensity: true } : {}), ...(run.materials ? { materials: run.materials } : {}), seed,
        });
        box[r] = reference.box[r]!;
        range[r] = reference.box[r]! >= 0 ? reference.range[r]! : LIDAR_NO_RETURN;
        if (intensity) {
          intensity[r] = reference.intensity![r]!;
        }
        if (second && reference.second) {
          second.range[r] = reference.second.box[r]! >= 0 ? reference.second.range[r]! : LIDAR_NO_RETURN;
          second.box[r] = reference.second.box[r]!;
          second.intensity[r] = reference.second.intensity[r]!;
        }
        if (returnCount) {
          returnCount[r] = reference.returnCount?.[r] ?? (reference.box[r]! >= 0 ? 1 : 0);
        }
      }
    }
    if (reference && this.subRays.length > 0) {
      // A sub-ray's raster lists may have been short where this sensor's were not: the next
      // sweep gives them twice the room rather than leave its beams to the CPU again.
      for (const sub of this.subRays) {
        if (sub.method === 'raster') {
          sub.wantedListCapacity = Math.max(sub.wantedListCapacity ?? 0, 2 * sub.listCapacity);
        }
      }
    }
    const { method, methodReason: reason } = this;
    const returnsPerBox = countReturns(box, run.boxes.count);
    for (const b of second?.box ?? []) {
      if (b >= 0) {
        returnsPerBox[b]!++;
      }
    }
    return {
      channels: this.channels, azimuths: this.azimuths, range, box,
      returnsPerBox,
      compacted: options.compact ? new Uint32Array(compactBytes!)[0]! : undefined,
      points,
      fields: options.fields ? lidarSweepCloud(run.boxes, this.desc, pose, motion, { range, box, intensity, second }, { seed }) : undefined,
      intensity, seed, passes, second, returnCount,
      method, reason, overflowed,
    };
  }


  /** The passes buffer's bytes (P ranges, P boxes, P intensities) as one image set per pass. */
  private static passesOf(bytes: ArrayBuffer, count: number, n: number): LidarPass[] {
    return Array.from({ length: count }, (_, p) => ({
      range: new Float32Array(bytes, 4 * p * n, n).slice(),
      box: new Int32Array(bytes, 4 * (count + p) * n, n).slice(),
      intensity: new Float32Array(bytes, 4 * (2 * count + p) * n, n).slice(),
    }));
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
    for (const b of [this.rangeBuffer, this.boxBuffer, this.pointsBuffer, this.tables, this.params, this.sweepParams, this.rayParams, this.overflow, this.noNodes,
      this.tileCounters, this.walk?.setup, this.sweepMasks?.buffer, this.compaction?.points, this.compaction?.rays, this.compaction?.args,
      this.compaction?.slots, this.compaction?.params]) {
      if (b) {
        this.ctx.destroyBuffer(b);
      }
    }
    this.tileScan?.destroy();
    this.returns?.destroy();
    this.returns = undefined;
    for (const sub of this.subRays) {
      sub.destroy();
    }
    this.compaction?.scan.destroy();
    this.compaction = undefined;
    this.walk = undefined;
    this.sweepMasks = undefined;
    if (this.raster) {
      this.ctx.destroyBuffer(this.raster.boxData);
      this.ctx.destroyBuffer(this.raster.lists);
      this.raster = undefined;
    }
  }
}
