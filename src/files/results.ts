/**
 * Result files of the `webgpu-obb` command (docs/design.md, "Scene and result files"): either
 * backend's typed results, turned into the result JSON (one entry per ray and per pair, in input
 * order; the all-pairs list sorted).
 *
 * @example
 * const result = sceneResultFromCpu(scene, runReference(scene)); // { backend: 'cpu', … }
 */
import { FACE_NONE, SAT_AXIS_NAMES, type SatAxisName } from '../constants.ts';
import { BOX_F64, RAY_F64, type BoxArray, type RayArray } from '../core/types.ts';
import type { ClosestHits, PairResults } from '../core/queries.ts';
import type { Scene } from './scene.ts';


/** Adapter name the CPU backend reports. */
export const CPU_ADAPTER = 'cpu reference (float64)';

/** One ray's entry in a result file. `normal` is absent when there is none (origin inside). */
export type RayResult =
  | {
    readonly hit: true;
    readonly box: number;
    readonly t: number;
    readonly point: [number, number, number];
    readonly normal?: [number, number, number];
    readonly inside: boolean;
  }
  | { readonly hit: false };

/** One listed pair's entry in a result file. */
export interface PairResult {
  readonly overlap: boolean;
  readonly gap: number;
  readonly axis: SatAxisName;
}

/**
 * One LiDAR sweep's entry in a result file: channel-major images (ray c · columns + a), range −1
 * and box −1 for no return, and the returns per box of the scene.
 */
export interface LidarResult {
  readonly channels: number;
  readonly columns: number;
  readonly range: number[];
  readonly box: number[];
  readonly returnsPerBox: number[];
  /** Each return's intensity (0 where none): when the scene's entry asks for it or the sweep has a returns stage. */
  readonly intensity?: number[];
  /** A sensor with a `beam`: each beam's returns, 0 to 2. */
  readonly returnCount?: number[];
  /** A beam in 'dual' mode: each beam's second return (range −1, box −1, intensity 0 where none). */
  readonly second?: LidarImages;
  /** A sweep with a returns stage: each sub-ray pass's hits before it (the beam's own ray first), what the judge checks ray by ray. */
  readonly passes?: LidarImages[];
}

/** Range (−1 = none), box (−1) and intensity (0) per ray, channel-major. */
export interface LidarImages {
  readonly range: number[];
  readonly box: number[];
  readonly intensity: number[];
}

/** A sweep's images as either backend gives them (the GPU's read back, the reference's in float64). */
export interface LidarRaw {
  readonly range: ArrayLike<number>;
  readonly box: ArrayLike<number>;
  readonly returnsPerBox: ArrayLike<number>;
  readonly intensity?: ArrayLike<number> | undefined;
  readonly returnCount?: ArrayLike<number> | undefined;
  readonly second?: { readonly range: ArrayLike<number>; readonly box: ArrayLike<number>; readonly intensity: ArrayLike<number> } | undefined;
  readonly passes?: readonly { readonly range: ArrayLike<number>; readonly box: ArrayLike<number>; readonly intensity?: ArrayLike<number> | undefined }[] | undefined;
}

/** A result file. `rays`, `pairs`, `allPairs` and `lidars` are present exactly when the scene asked. */
export interface SceneResult {
  readonly backend: 'gpu' | 'cpu';
  readonly adapter: string;
  /** The scene answered: `"sha256:"` and the SHA-256 of the scene file's bytes (`run` writes it; `judge` checks it). */
  readonly scene?: string;
  readonly rays?: RayResult[];
  readonly pairs?: PairResult[];
  readonly allPairs?: [number, number][];
  readonly lidars?: LidarResult[];
}

/**
 * The GPU's typed results as plain JSON-safe arrays, so they can cross from the browser page to
 * Node and be fed to the comparator there. Misses have box -1 (their t, face and normal are 0).
 */
export interface GpuSceneRaw {
  readonly adapter: string;
  /** The BoxSet's floating origin (what the comparator's error model needs). */
  readonly origin: [number, number, number];
  readonly rays?: {
    readonly box: number[];
    readonly t: number[];
    readonly face: number[];
    readonly inside: number[];
    /** 3 per ray. */
    readonly normal: number[];
  };
  readonly pairs?: { readonly overlap: number[]; readonly gap: number[]; readonly axis: number[] };
  /** Flat, sorted `[i0, j0, …]`. */
  readonly allPairs?: number[];
  /** One per scene sweep: the images as the GPU wrote them (range, intensity float32), and the counts. */
  readonly lidars?: readonly {
    readonly range: number[]; readonly box: number[]; readonly returnsPerBox: number[];
    readonly intensity?: number[]; readonly returnCount?: number[]; readonly second?: LidarImages; readonly passes?: LidarImages[];
  }[];
}

/** The CPU reference's typed results for a scene. */
export interface CpuSceneRaw {
  readonly hits?: ClosestHits;
  readonly pairs?: PairResults;
  readonly allPairs?: Uint32Array;
  readonly lidars?: readonly LidarRaw[];
}

function rayPoint(rays: RayArray, r: number, t: number): [number, number, number] {
  const d = rays.data;
  const o = r * RAY_F64.STRIDE;
  const p = (k: number): number => (d[o + RAY_F64.ORIGIN + k] as number) + t * (d[o + RAY_F64.DIR + k] as number);
  return [p(0), p(1), p(2)];
}

/** Outward world normal of `face` of box `b`, from the canonical float64 axes. */
function cpuNormal(boxes: BoxArray, b: number, face: number): [number, number, number] {
  const o = b * BOX_F64.STRIDE + BOX_F64.U + 3 * (face >> 1);
  const s = face & 1 ? -1 : 1;
  const d = boxes.data;
  // `+ 0` turns -0 into 0 so the JSON shows 0, not -0.
  return [s * (d[o] as number) + 0, s * (d[o + 1] as number) + 0, s * (d[o + 2] as number) + 0];
}

function axisName(id: number): SatAxisName {
  const name = SAT_AXIS_NAMES[id];
  if (name === undefined) {
    throw new Error(`webgpu-obb invariant failed: SAT axis id ${id} is out of range`);
  }
  return name;
}

function pairList(flat: ArrayLike<number>): [number, number][] {
  const out: [number, number][] = [];
  for (let k = 0; k + 1 < flat.length; k += 2) {
    out.push([flat[k] as number, flat[k + 1] as number]);
  }
  return out;
}

function pairResults(r: { overlap: ArrayLike<number>; gap: ArrayLike<number>; axis: ArrayLike<number> }, n: number, gapOf: (g: number) => number = (g) => g): PairResult[] {
  const out: PairResult[] = [];
  for (let k = 0; k < n; k++) {
    out.push({ overlap: r.overlap[k] === 1, gap: gapOf(r.gap[k] as number), axis: axisName(r.axis[k] as number) });
  }
  return out;
}

/** One image set in the file's form: −1 range and box, 0 intensity, where there is no return. */
function lidarImages(i: { readonly range: ArrayLike<number>; readonly box: ArrayLike<number>; readonly intensity?: ArrayLike<number> | undefined }, valueOf: (t: number) => number): LidarImages {
  const box = Array.from(i.box, (b) => (b < 0 ? -1 : b));
  return {
    range: Array.from(i.range, (t, r) => (box[r] === -1 ? -1 : valueOf(t))), box,
    intensity: box.map((b, r) => (b === -1 ? 0 : valueOf(i.intensity?.[r] ?? 0))),
  };
}

function lidarResults(scene: Scene, sweeps: CpuSceneRaw['lidars'], valueOf: (t: number) => number = (t) => t): LidarResult[] | undefined {
  if (!scene.lidars || !sweeps) {
    return undefined;
  }
  return scene.lidars.map((l, k) => {
    const s = sweeps[k]!;
    const box = Array.from(s.box, (b) => (b < 0 ? -1 : b));
    const out: { -readonly [K in keyof LidarResult]: LidarResult[K] } = {
      channels: l.desc.elevations.length, columns: l.desc.azimuthSteps,
      range: Array.from(s.range, (t, r) => (box[r] === -1 ? -1 : valueOf(t))), box, returnsPerBox: Array.from(s.returnsPerBox),
    };
    // What the beam sees, key by key, only where the scene's entry gives rise to it.
    if (l.intensity) {
      out.intensity = lidarImages(s, valueOf).intensity;
    }
    if (l.desc.beam) {
      out.returnCount = Array.from(s.returnCount ?? box.map((b) => (b >= 0 ? 1 : 0)));
    }
    if (l.desc.beam?.returns === 'dual' && s.second) {
      out.second = lidarImages(s.second, valueOf);
    }
    if (s.passes) {
      out.passes = s.passes.map((p) => lidarImages(p, valueOf));
    }
    return out;
  });
}

function withQueries(
  head: { backend: 'gpu' | 'cpu'; adapter: string },
  rays: RayResult[] | undefined, pairs: PairResult[] | undefined, all: [number, number][] | undefined, lidars?: LidarResult[],
): SceneResult {
  // Built key by key so absent queries leave no key at all (exactOptionalPropertyTypes).
  const out: { -readonly [K in keyof SceneResult]: SceneResult[K] } = { ...head };
  if (rays) {
    out.rays = rays;
  }
  if (pairs) {
    out.pairs = pairs;
  }
  if (all) {
    out.allPairs = all;
  }
  if (lidars) {
    out.lidars = lidars;
  }
  return out;
}

/**
 * The shortest decimal that reads back as the same float32 as `x` (a float32 value): 1.8786798
 * rather than 1.8786797523498535, which is the same float32 printed as a float64. Non-finite and
 * integral values pass through.
 *
 * @example
 * shortestFloat32(Math.fround(0.1)) // 0.1
 */
export function shortestFloat32(x: number): number {
  if (!Number.isFinite(x) || Number.isInteger(x)) {
    return x;
  }
  const f = Math.fround(x);
  for (let digits = 1; digits < 9; digits++) {
    const y = Number(f.toPrecision(digits));
    if (Math.fround(y) === f) {
      return y;
    }
  }
  return Number(f.toPrecision(9));
}

/** Per-ray closest hits of either backend as result-file entries (normal only when there is a face). */
function rayResults(
  sceneRays: RayArray,
  h: { readonly box: ArrayLike<number>; readonly t: ArrayLike<number>; readonly face: ArrayLike<number>; readonly inside: ArrayLike<number> },
  normalOf: (ray: number, box: number, face: number) => [number, number, number],
  tOf: (t: number) => number = (t) => t,
): RayResult[] {
  return Array.from({ length: sceneRays.count }, (_, r): RayResult => {
    const b = h.box[r] as number;
    if (b < 0) {
      return { hit: false };
    }
    const exact = h.t[r] as number;
    const t = tOf(exact);
    const face = h.face[r] as number;
    const point = rayPoint(sceneRays, r, exact);
    const inside = h.inside[r] === 1;
    return face === FACE_NONE
      ? { hit: true, box: b, t, point, inside }
      : { hit: true, box: b, t, point, normal: normalOf(r, b, face), inside };
  });
}

/**
 * The result file of the CPU backend from its typed results.
 *
 * @example
 * sceneResultFromCpu(scene, runReference(scene)).rays?.[0] // { hit: true, box: 0, t: 9, … }
 */
export function sceneResultFromCpu(scene: Scene, raw: CpuSceneRaw): SceneResult {
  const rays = scene.rays && raw.hits
    ? rayResults(scene.rays, raw.hits, (_r, b, face) => cpuNormal(scene.boxes, b, face))
    : undefined;
  const pairs = scene.pairs && raw.pairs ? pairResults(raw.pairs, raw.pairs.count) : undefined;
  const all = scene.allPairs && raw.allPairs ? pairList(raw.allPairs) : undefined;
  return withQueries({ backend: 'cpu', adapter: CPU_ADAPTER }, rays, pairs, all, lidarResults(scene, raw.lidars));
}

/**
 * The result file of the GPU backend from its typed results: `t`, the normal and the gap as the
 * GPU computed them (float32), each written as the shortest decimal that reads back as that
 * float32; the point from `t` in float64 on the canonical ray.
 *
 * @example
 * sceneResultFromGpu(scene, raw).adapter // "google swiftshader (fallback)"
 */
export function sceneResultFromGpu(scene: Scene, raw: GpuSceneRaw): SceneResult {
  const h = raw.rays;
  const rays = scene.rays && h
    ? rayResults(scene.rays, h, (r) => {
      const n = (k: number): number => shortestFloat32((h.normal[3 * r + k] as number) + 0);
      return [n(0), n(1), n(2)];
    }, shortestFloat32)
    : undefined;
  const pairs = scene.pairs && raw.pairs ? pairResults(raw.pairs, scene.pairs.length / 2, shortestFloat32) : undefined;
  const all = scene.allPairs && raw.allPairs ? pairList(raw.allPairs) : undefined;
  return withQueries({ backend: 'gpu', adapter: raw.adapter }, rays, pairs, all, lidarResults(scene, raw.lidars, shortestFloat32));
}
