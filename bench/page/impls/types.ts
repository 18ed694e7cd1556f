/**
 * What an implementation offers the benchmark workloads. Every workload asks each registered
 * implementation (./index.ts) for the capability it needs and skips those that lack it, so a new
 * backend (the GPU BVH, a float32 JS path, another peer) adds rows by registering one object.
 */
import type { BoxArray, BoxMotion, RayArray, Vec3 } from '../../../src/index.ts';

/** Closest hits as a workload reads them; `face`/`inside` only from implementations that report ours. */
export interface BenchHits {
  readonly box: Int32Array;
  readonly t: Float32Array | Float64Array;
  readonly face?: Uint8Array;
  readonly inside?: Uint8Array;
}

/** Result of timing a kernel alone (GPU implementations). */
export interface KernelTiming {
  /** Per-run milliseconds. */
  readonly samples: number[];
  /** Per-run milliseconds from submit to onSubmittedWorkDone. */
  readonly wallSamples: number[];
  readonly timing: 'gpu-timestamp' | 'gpu-wall';
}

/** Boxes made queryable by rays (uploaded, acceleration structure built, world stepped…). */
export interface RayScene {
  /** Positions were re-based to this origin (the comparator's error model needs it). */
  readonly origin: Vec3;
  /** Closest hit of each ray: solid boxes, smallest t, `box = -1` for a miss. */
  closestHit(rays: RayArray): Promise<BenchHits>;
  /** GPU implementations: the kernel alone, rays already resident, `runs` times (pipelines already warm). */
  timeKernel?(rays: RayArray, runs: number): Promise<KernelTiming>;
  destroy(): void;
}

/** Listed box pairs made testable (boxes uploaded, shapes created). */
export interface PairRunner {
  readonly origin: Vec3;
  /** 1 = the pair overlaps; GPU implementations also return our gap and axis. */
  run(): Promise<{ overlap: Uint8Array; gap?: Float32Array | Float64Array; axis?: Uint8Array }>;
  destroy(): void;
}

/** A set of moving boxes: each frame moves every box and asks for every overlapping pair. */
export interface MovingScene {
  readonly origin: Vec3;
  /** Moves the boxes to `boxes` (same count) and returns `[i0, j0, …]`, i < j, sorted. */
  frame(boxes: BoxArray): Promise<Uint32Array>;
  destroy(): void;
}

/**
 * Boxes of which some move while rays are cast column by column (a LiDAR sweep with motion):
 * before column a's rays, the listed boxes are moved to where they are at `times[a]`.
 */
export interface TimedRayScene {
  readonly origin: Vec3;
  /** Rays channel-major (c · columns + a); box −1 for a miss. */
  sweep(rays: RayArray, channels: number, columns: number, times: Float64Array): Promise<BenchHits>;
  destroy(): void;
}

/** One implementation, as the workloads see it. */
export interface Implementation {
  /** Row name: 'gpu-brute', 'gpu-bvh', 'reference', 'rapier', 'three', … (stable across versions). */
  readonly name: string;
  /** 'gpu' rows also get a kernel-only row; 'reference' is the oracle; 'peer' is another library. */
  readonly kind: 'gpu' | 'reference' | 'peer';
  /**
   * Cost per query grows linearly with the box count (no acceleration structure). CPU brute-force
   * implementations run on a slice of the rays, and skip all-pairs sizes beyond the mode's limit.
   */
  readonly bruteForce: boolean;
  /** Where the implementation runs: 'gpu' or 'cpu' (JS or WASM on one thread). */
  readonly device: 'gpu' | 'cpu';
  /** Version string for the report (library version, or the adapter for GPU paths). */
  version(): Promise<string>;
  buildRays?(boxes: BoxArray): Promise<RayScene>;
  /**
   * Implementations that generate a LiDAR sweep's rays themselves (the GPU sensor): a RayScene
   * whose closestHit takes only that sweep's rays (bench/page/scenes.ts lidarRays, azimuth-major).
   */
  buildLidar?(boxes: BoxArray, elevations: number, azimuths: number): Promise<RayScene>;
  pairs?(boxes: BoxArray, pairs: Uint32Array): Promise<PairRunner>;
  moving?(boxes: BoxArray): Promise<MovingScene>;
  /** LiDAR with moving boxes: the listed boxes move during the sweep (src/core/lidar.ts BoxMotion). */
  timedRays?(boxes: BoxArray, motion: BoxMotion): Promise<TimedRayScene>;
}
