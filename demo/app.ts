/**
 * What the views share: the GPU objects, the renderer, the timer, and the interface each view
 * implements (compute, then render, then a callback after submit), plus the test hook's shape.
 */
import type GUI from 'lil-gui';
import type { BoxArray, BoxSet, ObbGpu } from 'webgpu-obb';
import type { Bvh } from 'webgpu-obb/advanced';
import { cityScene, type City } from './scenes.ts';
import type { CameraMatrices, OrbitCamera } from './gfx/camera.ts';
import type { Renderer } from './gfx/renderer.ts';
import type { GpuTimer } from './gfx/timer.ts';

export type ViewName = 'picking' | 'lidar' | 'overlaps' | 'instances';
export const VIEW_NAMES: readonly ViewName[] = ['picking', 'lidar', 'overlaps', 'instances'];

export interface DemoContext {
  readonly gpu: ObbGpu;
  readonly device: GPUDevice;
  readonly renderer: Renderer;
  readonly timer: GpuTimer;
  readonly canvas: HTMLCanvasElement;
  /** Shows a transient line in the stats panel (scene rebuilt, verification done, …). */
  note(text: string): void;
  /** Reports an error without stopping the demo (panel + console). */
  fail(error: unknown): void;
}

export interface FrameContext {
  readonly encoder: GPUCommandEncoder;
  readonly camera: CameraMatrices;
  /** Seconds since the previous frame (capped). */
  readonly dt: number;
  readonly frame: number;
}

export interface StatLine {
  readonly label: string;
  readonly value: string;
  readonly tone?: 'ok' | 'warn' | 'bad' | 'dim';
}

/** The result of "verify on CPU": the comparator's totals for the current frame's queries. */
export interface VerifyReport {
  readonly what: string;
  readonly total: number;
  readonly agree: number;
  readonly ambiguous: number;
  readonly mismatch: number;
  readonly ms: number;
  /** formatComparison's text (first cases when something is not agreed). */
  readonly detail: string;
}

export interface View {
  readonly name: ViewName;
  readonly title: string;
  readonly camera: OrbitCamera;
  readonly folder: GUI;
  /** Builds the scene on first use (or after a size change). */
  activate(): Promise<void>;
  deactivate(): void;
  /** Whether the scene is ready to draw. */
  readonly ready: boolean;
  /**
   * Whether the view has something new to show (a moving car, a new simulation step, a new
   * mouse position). Frames are drawn on demand: when nothing changed (and the camera did not
   * move), none is drawn, which keeps a CPU adapter free for the queries.
   */
  needsFrame(): boolean;
  /** Records this frame's compute work (may await pipeline lookups, never a readback). */
  compute(f: FrameContext): Promise<void>;
  /** Records the frame's draws into the open render pass (synchronous). */
  render(f: FrameContext, pass: GPURenderPassEncoder): void;
  /** After the frame's submit: starts non-blocking readbacks. */
  afterSubmit(): void;
  verify(): Promise<VerifyReport>;
  stats(): StatLine[];
  pointerMove?(x: number, y: number): void;
  pointerLeave?(): void;
  click?(x: number, y: number): void;
  /** The test hook's view-specific facts (scene size, seed, checksum…). */
  sceneInfo(): SceneInfo;
  /** The float64 boxes the GPU has now (for overlaps: those of the last step). */
  currentBoxes(): BoxArray | undefined;
}

export interface SceneInfo {
  readonly view: ViewName;
  readonly size: number;
  readonly seed: number;
  /** boxChecksum of the boxes the GPU has (demo/scenes.ts). */
  readonly checksum: number;
}

export interface PickInfo {
  /** Canvas CSS pixel the ray went through. */
  readonly x: number;
  readonly y: number;
  readonly box: number;
  readonly t: number;
  readonly face: number;
  readonly aabbBox: number | null;
  readonly frame: number;
}

export interface LidarInfo {
  readonly count: number;
  readonly s: number;
  readonly pose: { origin: [number, number, number]; rotation: [number, number, number, number] };
  readonly channels: number;
  readonly azimuths: number;
  readonly maxRange: number;
  readonly elevations: number[];
  readonly size: number;
  readonly seed: number;
  readonly checksum: number;
}

export interface OverlapInfo {
  readonly count: number;
  readonly faceOnlyCount: number | null;
  readonly t: number;
  readonly size: number;
  readonly seed: number;
  readonly checksum: number;
  /** First pairs of the GPU list, flat [i0, j0, …] (for a readable failure). */
  readonly head: number[];
}

/** The instances view's state, as its panel shows it. */
export interface InstancesInfo {
  /** Instances (boxes derived each frame). */
  readonly count: number;
  /** Frames the view has computed. */
  readonly frame: number;
  /** The tree work of the last refresh. */
  readonly tree: 'none' | 'refit' | 'rebuild';
  /** Whether the adapter has timestamp queries (else every GPU phase reads 'n/a'). */
  readonly timestamps: boolean;
  /** The panel's text per phase (GPU time): animate, derive, refit/rebuild, pick, pairs, draw. */
  readonly phases: Readonly<Record<string, string>>;
  /** Pairs in contact in the last pair list read (null: off or none yet). */
  readonly contacts: number | null;
  /** The pair list's overflow bits (PAIR_LIST_OVERFLOW_*; 0: complete). */
  readonly overflow: number;
  /** The last read-back pick (-1: nothing; null: none yet). */
  readonly picked: number | null;
}

/** window.__demo: what test/gpu/demo.test.ts drives. */
export interface DemoHook {
  ready: boolean;
  /** Why the demo could not start (no WebGPU, no adapter, …). */
  error: string | null;
  /** Uncaptured GPU errors and frame errors, in order; must stay empty. */
  readonly errors: string[];
  frames: number;
  adapter: string;
  view(): ViewName;
  setView(name: ViewName): Promise<void>;
  waitFrames(n: number): Promise<void>;
  setPaused(paused: boolean): void;
  camera(): { invViewProj: number[]; viewProj: number[]; width: number; height: number; left: number; top: number };
  scene(): SceneInfo;
  /**
   * The current view's float64 boxes, exactly as the GPU got them, as base64 of the Float64Array
   * bytes (BOX_F64 records): the test runs the reference on these very numbers.
   */
  sceneBoxes(): string;
  lastPick(): PickInfo | null;
  pickAt(x: number, y: number): Promise<PickInfo>;
  lidarSweep(s: number): Promise<LidarInfo>;
  lidarPointCount(): number;
  overlapAt(t: number): Promise<OverlapInfo>;
  overlapCount(): number;
  instances(): InstancesInfo;
  verify(): Promise<VerifyReport>;
}

declare global {
  interface Window {
    __demo?: DemoHook;
  }
}

/** A number with thin thousands separators. */
export function fmtInt(n: number): string {
  return Math.round(n).toLocaleString('en-US');
}

export function fmtMs(ms: number | undefined): string {
  if (ms === undefined) {
    return '…';
  }
  return ms < 1 ? `${(ms * 1000).toFixed(0)} µs` : ms < 100 ? `${ms.toFixed(1)} ms` : `${ms.toFixed(0)} ms`;
}

/** The median of the last few samples: a steady figure that one slow outlier (a compile) does not skew. */
export class RecentMedian {
  private readonly samples: number[] = [];
  constructor(private readonly size = 9) {}
  add(x: number): void {
    this.samples.push(x);
    if (this.samples.length > this.size) {
      this.samples.shift();
    }
  }
  get value(): number | undefined {
    if (this.samples.length === 0) {
      return undefined;
    }
    const s = [...this.samples].sort((a, b) => a - b);
    return s[Math.floor(s.length / 2)];
  }
}

export const FACE_NAMES = ['+u', '−u', '+v', '−v', '+w', '−w'] as const;

/** A seeded city on the GPU: its boxes, one RGBA8 colour per box for the renderer, and its BVH. */
export interface GpuCity {
  readonly city: City;
  readonly set: BoxSet;
  readonly colors: GPUBuffer;
  /** Undefined when not asked for, or for a set too small to have a tree (see ObbGpu.bvhOf). */
  readonly tree: Bvh | undefined;
}

/**
 * Generates the city of `n` boxes (seeded) and puts it on the GPU: into `previous`'s BoxSet when
 * there is one (its colour buffer is replaced), else into a new one; then builds its BVH unless
 * `withTree` is false.
 */
export async function uploadCity(
  ctx: DemoContext, n: number, seed: number, label: string,
  previous?: { set: BoxSet | undefined; colors: GPUBuffer | undefined }, withTree = true,
): Promise<GpuCity> {
  ctx.note(`building a city of ${fmtInt(n)} boxes…`);
  await new Promise((r) => setTimeout(r, 0));
  const city = cityScene(n, seed);
  let set = previous?.set;
  if (set) {
    await set.set(city.boxes);
  } else {
    set = ctx.gpu.createBoxSet(city.boxes, { origin: [0, 0, 0], label });
  }
  previous?.colors?.destroy();
  const colors = ctx.device.createBuffer({ label: `demo:${label}:colors`, size: 4 * n, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
  ctx.device.queue.writeBuffer(colors, 0, city.colors);
  return { city, set, colors, tree: withTree ? await ctx.gpu.bvhOf(set) : undefined };
}

/** The report of a "verify" with nothing to verify yet. */
export function nothingToVerify(what: string): VerifyReport {
  return { what, total: 0, agree: 0, ambiguous: 0, mismatch: 0, ms: 0, detail: '' };
}
