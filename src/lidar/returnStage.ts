/**
 * The return stages of a LiDAR sweep: what a sensor computes about each beam beyond the sweep
 * kernels' closest hits (raster or tree), in order:
 * - before the sweep, the beams' seeded angular noise (shaders/lidar/noise_rays.wgsl): the setup
 *   table's rays rewritten from the sensor's unperturbed table;
 * - after it, each return's intensity from the hit box's material and the incidence
 *   (shaders/lidar/intensity.wgsl);
 * - last, each beam's returns from its sub-ray hits (one pass per sub-ray, copied into one
 *   buffer), with seeded range noise and dropout (shaders/lidar/returns.wgsl).
 * Each is recorded only when a sweep needs it, so a plain sweep runs none of it and keeps its
 * speed and its answers. Every stage reads the sweep's setup table (the tree method's: rays,
 * column frames, moving boxes), which the sensor writes for such sweeps whatever its method.
 * The formulas: src/core/lidar.ts (lidarIntensity, LidarNoise); the float64 twin:
 * src/reference/lidar.ts.
 */
import {
  LIDAR_GAUSS_MAX, LIDAR_GAUSS_TABLE, LIDAR_RETURN_ANGULAR_NOISE, LIDAR_RETURN_MATERIALS, LIDAR_RETURN_POINTS,
  LIDAR_RETURNS_DUAL, LIDAR_RETURNS_LAST, LIDAR_RETURNS_STRONGEST,
} from '../constants.ts';
import { dropoutThreshold, hasAngularNoise, hasPerLaserData, type LidarDescription } from '../core/lidar.ts';
import type { BoxSet } from '../boxes/BoxSet.ts';
import type { GpuContext } from '../runtime/context.ts';
import { BufferUsage } from '../runtime/flags.ts';
import { getKernel } from '../runtime/pipelines.ts';
import { dispatch } from '../runtime/bind.ts';

/** Byte offsets of WGSL struct LidarReturnParams (shaders/lidar/returns_common.wgsl). */
export const RETURN_PARAMS = {
  SIZE: 80, CHANNELS: 0, AZIMUTHS: 4, MOVING: 8, FLAGS: 12, REFERENCE_RANGE: 16, ATMOSPHERE: 20, SEED: 24, PASSES: 28,
  AZIMUTH_SIGMA: 32, ELEVATION_SIGMA: 36, RANGE_SIGMA: 40, RANGE_SIGMA_PER_UNIT: 44, DROPOUT: 48, ZERO_INTENSITY_DROP: 52,
  INTENSITY_LIMIT: 56, MIN_SEPARATION: 60, MODE: 64, BOX_COUNT: 68, FRAME_ROWS: 72,
} as const;

const STORAGE_OUT = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;

/**
 * The bounds of a description's beam jitter, radians: the largest deviate (LIDAR_GAUSS_MAX)
 * times σ, rounded up by 10⁻⁶ relative for the kernel's float32 product; 0 without noise.
 */
export function angularNoiseBounds(desc: LidarDescription): { readonly azimuth: number; readonly elevation: number } {
  const up = (sigma: number | undefined): number => (sigma ?? 0) * LIDAR_GAUSS_MAX * (1 + 1e-6);
  return { azimuth: up(desc.noise?.azimuthStdDev), elevation: up(desc.noise?.elevationStdDev) };
}

/** The return mode's code in LidarReturnParams.mode. */
function modeCode(mode: 'strongest' | 'last' | 'dual' | undefined): number {
  return mode === 'last' ? LIDAR_RETURNS_LAST : mode === 'dual' ? LIDAR_RETURNS_DUAL : LIDAR_RETURNS_STRONGEST;
}

/** One sweep's choices the stages' parameters carry. */
export interface ReturnSweep {
  readonly set: BoxSet;
  /** Moving boxes listed in the setup table this sweep. */
  readonly moving: number;
  /** The noise seed (u32). */
  readonly seed: number;
  /** Sub-ray passes per beam (1 without divergence). */
  readonly passes: number;
  /** Write each beam's first return into the point buffer. */
  readonly points: boolean;
  readonly mode?: 'strongest' | 'last' | 'dual';
  readonly minSeparation?: number;
}

/** What the intensity stage reads: the set, the sweep's setup table and images. */
export interface ReturnInputs {
  readonly set: BoxSet;
  /** The sweep's setup table (lidarSetup). */
  readonly setup: GPUBuffer;
  readonly range: GPUBuffer;
  readonly box: GPUBuffer;
}

/**
 * One sensor's return stages: its parameters, its intensity image and the set's reflectivities
 * as last uploaded (re-uploaded when the set or its materials change). Whatever it creates, its
 * destroy() frees.
 *
 * @example
 * declare const setup: GPUBuffer, rangeImage: GPUBuffer, boxImage: GPUBuffer; // a sweep's, as LidarSensor has them
 * const stage = new LidarReturnStage(ctx, desc);
 * stage.prepare({ set, moving: 0, seed: 7, passes: 1, points: false });
 * await stage.encodeIntensity(pass, { set, setup, range: rangeImage, box: boxImage });
 */
export class LidarReturnStage {
  /** Intensity per ray (f32; 0 where there is no return), written by encodeIntensity. */
  readonly intensityBuffer: GPUBuffer;
  private readonly params: GPUBuffer;
  private gauss: GPUBuffer | undefined;
  private baseRays: GPUBuffer | undefined;
  private passesOf: { readonly buffer: GPUBuffer; readonly passes: number } | undefined;
  private second: GPUBuffer | undefined;
  private reflectivity: { readonly buffer: GPUBuffer; readonly capacity: number; set: BoxSet | undefined; version: number; count: number } | undefined;
  private readonly rays: number;

  constructor(private readonly ctx: GpuContext, private readonly desc: LidarDescription) {
    this.rays = desc.elevations.length * desc.azimuthSteps;
    const label = `${ctx.label}:lidar`;
    this.intensityBuffer = ctx.createBuffer({ label: `${label}:intensity`, size: Math.max(16, this.rays * 4), usage: STORAGE_OUT });
    this.params = ctx.createBuffer({ label: `${label}:return-params`, size: RETURN_PARAMS.SIZE, usage: BufferUsage.UNIFORM | BufferUsage.COPY_DST });
  }

  /** The set's reflectivities on the GPU (one f32 per box), uploaded when they changed. */
  private reflectivityFor(set: BoxSet): GPUBuffer | undefined {
    const materials = set.materials;
    if (!materials) {
      return undefined;
    }
    const count = set.count;
    let r = this.reflectivity;
    if (!r || r.capacity < count) {
      if (r) {
        this.ctx.destroyBuffer(r.buffer);
      }
      const capacity = Math.max(count, 2 * (r?.capacity ?? 0), 4);
      this.ctx.assertBindingFits('LiDAR reflectivities', capacity * 4);
      r = { buffer: this.ctx.createBuffer({ label: `${this.ctx.label}:lidar:reflectivity`, size: capacity * 4, usage: BufferUsage.STORAGE | BufferUsage.COPY_DST }), capacity, set: undefined, version: -1, count: -1 };
      this.reflectivity = r;
    }
    if (r.set !== set || r.version !== set.materialsVersion || r.count !== count) {
      this.ctx.device.queue.writeBuffer(r.buffer, 0, materials.reflectivity);
      r.set = set;
      r.version = set.materialsVersion;
      r.count = count;
    }
    return r.buffer;
  }

  /**
   * Writes the stages' parameters for one sweep (once, before its stages are recorded: every
   * stage of the sweep reads them) and uploads the set's reflectivities if they changed.
   */
  prepare(sweep: ReturnSweep): void {
    const reflectivity = this.reflectivityFor(sweep.set);
    const noise = this.desc.noise;
    const bytes = new ArrayBuffer(RETURN_PARAMS.SIZE);
    const u = new Uint32Array(bytes);
    const f = new Float32Array(bytes);
    u[RETURN_PARAMS.CHANNELS / 4] = this.desc.elevations.length;
    u[RETURN_PARAMS.AZIMUTHS / 4] = this.desc.azimuthSteps;
    u[RETURN_PARAMS.MOVING / 4] = sweep.moving;
    u[RETURN_PARAMS.FLAGS / 4] = (reflectivity ? LIDAR_RETURN_MATERIALS : 0) | (hasAngularNoise(this.desc) ? LIDAR_RETURN_ANGULAR_NOISE : 0) |
      (sweep.points ? LIDAR_RETURN_POINTS : 0);
    f[RETURN_PARAMS.REFERENCE_RANGE / 4] = this.desc.intensity?.referenceRange ?? 0;
    f[RETURN_PARAMS.ATMOSPHERE / 4] = this.desc.intensity?.atmosphere ?? 0;
    u[RETURN_PARAMS.SEED / 4] = sweep.seed >>> 0;
    u[RETURN_PARAMS.PASSES / 4] = sweep.passes;
    f[RETURN_PARAMS.AZIMUTH_SIGMA / 4] = noise?.azimuthStdDev ?? 0;
    f[RETURN_PARAMS.ELEVATION_SIGMA / 4] = noise?.elevationStdDev ?? 0;
    f[RETURN_PARAMS.RANGE_SIGMA / 4] = noise?.rangeStdDev ?? 0;
    f[RETURN_PARAMS.RANGE_SIGMA_PER_UNIT / 4] = noise?.rangeStdDevPerUnit ?? 0;
    u[RETURN_PARAMS.DROPOUT / 4] = dropoutThreshold(noise?.dropout ?? 0);
    f[RETURN_PARAMS.ZERO_INTENSITY_DROP / 4] = noise?.intensityDropout?.atZero ?? 0;
    f[RETURN_PARAMS.INTENSITY_LIMIT / 4] = noise?.intensityDropout?.limit ?? 0;
    f[RETURN_PARAMS.MIN_SEPARATION / 4] = sweep.minSeparation ?? 0;
    u[RETURN_PARAMS.MODE / 4] = modeCode(sweep.mode);
    u[RETURN_PARAMS.BOX_COUNT / 4] = sweep.set.count;
    // The setup table's frames: one per column, or with per-laser data one per ray (LidarSensor).
    u[RETURN_PARAMS.FRAME_ROWS / 4] = hasPerLaserData(this.desc) ? this.desc.elevations.length : 1;
    this.ctx.device.queue.writeBuffer(this.params, 0, bytes);
    this.materials = reflectivity;
  }

  /** The reflectivities bound by the sweep being recorded (prepare). */
  private materials: GPUBuffer | undefined;

  /** The Gaussian table (LIDAR_GAUSS_TABLE), uploaded once. */
  private gaussTable(): GPUBuffer {
    if (!this.gauss) {
      const table = Uint32Array.from(LIDAR_GAUSS_TABLE);
      this.gauss = this.ctx.createBuffer({ label: `${this.ctx.label}:lidar:gauss`, size: table.byteLength, usage: BufferUsage.STORAGE | BufferUsage.COPY_DST });
      this.ctx.device.queue.writeBuffer(this.gauss, 0, table);
    }
    return this.gauss;
  }

  /**
   * Records the beams' angular noise (shaders/lidar/noise_rays.wgsl): the setup table's first
   * C · A entries rewritten from `baseRays` (the sensor's unperturbed per-ray table, uploaded
   * once), before the sweep kernels read them.
   */
  async encodeNoiseRays(pass: GPUComputePassEncoder, setup: GPUBuffer, baseRays: () => Float32Array<ArrayBuffer>): Promise<void> {
    const device = this.ctx.device;
    if (!this.baseRays) {
      const table = baseRays();
      this.baseRays = this.ctx.createBuffer({ label: `${this.ctx.label}:lidar:base-rays`, size: Math.max(16, table.byteLength), usage: BufferUsage.STORAGE | BufferUsage.COPY_DST });
      device.queue.writeBuffer(this.baseRays, 0, table);
    }
    const kernel = await getKernel(device, 'lidarNoiseRays');
    dispatch(device, pass, kernel, { lidarSetup: setup, returnParams: this.params, lidarGauss: this.gaussTable(), lidarBaseRays: this.baseRays },
      Math.ceil(this.rays / kernel.workgroupSize), 'obb:lidar-noise-rays');
  }

  /** The buffer of every pass's images (P ranges, P boxes, P intensities, each C · A u32), grown to `passes`. */
  passesBuffer(passes: number): GPUBuffer {
    if (!this.passesOf || this.passesOf.passes < passes) {
      if (this.passesOf) {
        this.ctx.destroyBuffer(this.passesOf.buffer);
      }
      this.ctx.assertBindingFits('LiDAR sub-ray passes', 12 * passes * this.rays, `3 images × ${passes} sub-rays × ${this.rays} rays × 4 bytes`);
      this.passesOf = {
        passes,
        buffer: this.ctx.createBuffer({ label: `${this.ctx.label}:lidar:passes`, size: Math.max(16, 12 * passes * this.rays), usage: STORAGE_OUT }),
      };
    }
    return this.passesOf.buffer;
  }

  /** Per beam the second return and the count (vec4u; dual mode), created on first use. */
  get secondBuffer(): GPUBuffer {
    this.second ??= this.ctx.createBuffer({ label: `${this.ctx.label}:lidar:second`, size: Math.max(16, 16 * this.rays), usage: STORAGE_OUT });
    return this.second;
  }

  /**
   * Records the copy of one pass's images (its range, box and intensity) into slot `p` of the
   * passes buffer of `passes` slots.
   */
  copyPass(encoder: GPUCommandEncoder, p: number, passes: number, images: { readonly range: GPUBuffer; readonly box: GPUBuffer; readonly intensity: GPUBuffer }): void {
    const size = 4 * this.rays;
    const buffer = this.passesBuffer(passes);
    encoder.copyBufferToBuffer(images.range, 0, buffer, p * size, size);
    encoder.copyBufferToBuffer(images.box, 0, buffer, (passes + p) * size, size);
    encoder.copyBufferToBuffer(images.intensity, 0, buffer, (2 * passes + p) * size, size);
  }

  /**
   * Records each beam's returns from the passes buffer (shaders/lidar/returns.wgsl) into the
   * sweep's images, the point buffer (with `points` in prepare), the intensity image and, in
   * dual mode, the second return.
   */
  async encodeReturns(pass: GPUComputePassEncoder, outputs: {
    readonly setup: GPUBuffer; readonly range: GPUBuffer; readonly box: GPUBuffer; readonly points: GPUBuffer; readonly passes: number; readonly dual: boolean;
  }): Promise<void> {
    const device = this.ctx.device;
    const kernel = await getKernel(device, 'lidarReturns');
    dispatch(device, pass, kernel, {
      lidarRange: outputs.range, lidarBox: outputs.box, lidarPoints: outputs.points, lidarSetup: outputs.setup, returnParams: this.params,
      lidarIntensity: this.intensityBuffer, lidarGauss: this.gaussTable(), lidarPasses: this.passesBuffer(outputs.passes),
      lidarSecond: outputs.dual ? this.secondBuffer : this.placeholder(),
    }, Math.ceil(this.rays / kernel.workgroupSize), 'obb:lidar-returns');
  }

  /**
   * Records the intensity of every return of the sweep whose images are `inputs.range` and
   * `inputs.box` (shaders/lidar/intensity.wgsl) into intensityBuffer. Call prepare first.
   */
  async encodeIntensity(pass: GPUComputePassEncoder, inputs: ReturnInputs): Promise<void> {
    const device = this.ctx.device;
    const reflectivity = this.materials;
    const kernel = await getKernel(device, 'lidarHitIntensity');
    dispatch(device, pass, kernel, {
      boxes: inputs.set.buffer, lidarRange: inputs.range, lidarBox: inputs.box, lidarSetup: inputs.setup, returnParams: this.params,
      // Without materials every box has reflectivity 1 (the kernel does not read this then).
      lidarReflectivity: reflectivity ?? this.placeholder(),
      lidarIntensity: this.intensityBuffer,
    }, Math.ceil(this.rays / kernel.workgroupSize), 'obb:lidar-intensity');
  }

  private placeholderBuffer: GPUBuffer | undefined;

  /** A small storage buffer bound where a binding is not read. */
  private placeholder(): GPUBuffer {
    this.placeholderBuffer ??= this.ctx.createBuffer({ label: `${this.ctx.label}:lidar:return-placeholder`, size: 16, usage: BufferUsage.STORAGE });
    return this.placeholderBuffer;
  }

  /** Frees what the stages created (idempotent). */
  destroy(): void {
    for (const b of [this.intensityBuffer, this.params, this.reflectivity?.buffer, this.placeholderBuffer, this.gauss, this.baseRays, this.passesOf?.buffer, this.second]) {
      if (b) {
        this.ctx.destroyBuffer(b);
      }
    }
    this.reflectivity = undefined;
    this.placeholderBuffer = undefined;
    this.gauss = undefined;
    this.baseRays = undefined;
    this.passesOf = undefined;
    this.second = undefined;
  }
}
