/**
 * Scene and result files of the `webgpu-obb` command (DESIGN.md, "Scene and result files"):
 * parsing and validating a scene, running it on the CPU reference or on an {@link ObbGpu}, and
 * turning either backend's typed results into the result JSON.
 *
 * Browser- and Node-safe (no `node:` imports): the CLI parses in Node, the GPU page parses the
 * same text with the same code, so both backends see bit-identical canonical inputs.
 *
 * @example
 * const scene = parseScene(JSON.parse(text)); // throws SceneError('boxes[3].halfExtents[1]', …)
 * const cpu = runSceneCpu(scene);             // { backend: 'cpu', adapter: 'cpu reference (float64)', … }
 */
import { FACE_NONE, SAT_AXIS_NAMES, type SatAxisName } from '../constants.ts';
import { boxArrayFrom, rayArrayFrom } from '../core/canonical.ts';
import { BOX_F64, RAY_F64, type BoxArray, type BoxInput, type Ray, type RayArray, type Vec3 } from '../core/types.ts';
import { ValidationError } from '../errors.ts';
import { checkBoxRange, checkRayRange, defaultOrigin } from '../gpu/inputs.ts';
import type { Accel, ObbGpu } from '../gpu/ObbGpu.ts';
import { allPairs as referenceAllPairs, obbPairs as referenceObbPairs, type PairResults } from '../reference/pairs.ts';
import { closestHit as referenceClosestHit, type ClosestHits } from '../reference/raycast.ts';

/** Adapter name the CPU backend reports. */
export const CPU_ADAPTER = 'cpu reference (float64)';

/** Top-level scene fields that are known without being queries (ignored silently). */
const QUIET_FIELDS = new Set(['description', 'comment', '$schema']);
const SCENE_FIELDS = new Set(['boxes', 'rays', 'pairs', 'allPairs']);

/**
 * A scene file that does not follow the format. `path` names the offending value in the JSON,
 * e.g. `boxes[3].halfExtents[1]`, `rays[2].direction`, `pairs[0][1]` (empty for the whole file).
 *
 * @example
 * try { parseScene(json) } catch (e) {
 *   if (e instanceof SceneError) console.error(e.message); // "boxes[3].halfExtents[1] is negative (-0.5); …"
 * }
 */
export class SceneError extends Error {
  override readonly name = 'SceneError';
  constructor(
    readonly path: string,
    readonly detail: string,
  ) {
    super(path ? `${path} ${detail}` : detail);
  }
}

/** A validated scene: canonical boxes and rays, flat pairs, and which queries to run. */
export interface Scene {
  readonly boxes: BoxArray;
  /** Present when the file had `rays` (possibly empty). */
  readonly rays: RayArray | undefined;
  /** Flat `[i0, j0, i1, j1, …]`; present when the file had `pairs`. */
  readonly pairs: Uint32Array | undefined;
  /** The file had `"allPairs": true`. */
  readonly allPairs: boolean;
  /** Top-level fields the format does not know (reported as a warning by the CLI). */
  readonly unknownFields: readonly string[];
}

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

/** A result file. `rays`, `pairs` and `allPairs` are present exactly when the scene asked. */
export interface SceneResult {
  readonly backend: 'gpu' | 'cpu';
  readonly adapter: string;
  readonly rays?: RayResult[];
  readonly pairs?: PairResult[];
  readonly allPairs?: [number, number][];
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
}

/** The CPU reference's typed results for a scene. */
export interface CpuSceneRaw {
  readonly hits?: ClosestHits;
  readonly pairs?: PairResults;
  readonly allPairs?: Uint32Array;
}

/** Progress messages of a long run ("closest hit: 10000 rays × 5000 boxes…"). */
export type ProgressFn = (message: string) => void;

// ---------------------------------------------------------------------------------------------
// Parsing

function describe(value: unknown): string {
  if (value === null) {
    return 'null';
  }
  if (Array.isArray(value)) {
    return `an array of length ${value.length}`;
  }
  if (typeof value === 'string') {
    const s = JSON.stringify(value);
    return `string ${s.length > 24 ? `${s.slice(0, 21)}..."` : s}`;
  }
  return typeof value;
}

/** JSON.parse turns numbers beyond ±1.8e308 into ±Infinity; say so, since the file shows a number. */
function infinityHint(detail: string): string {
  return /\((-?Infinity)\)/.test(detail)
    ? `${detail}; JSON numbers beyond ±1.8e308 read as Infinity`
    : detail;
}

/** Re-states a ValidationError from boxArrayFrom/rayArrayFrom with a JSON path. */
function fromValidation(list: 'boxes' | 'rays', error: ValidationError): SceneError {
  const prefix = `${error.index === undefined ? error.kind : `${error.kind} ${error.index}`}: ${error.field} `;
  const detail = error.message.startsWith(prefix) ? error.message.slice(prefix.length) : error.message;
  const item = error.index === undefined ? list : `${list}[${error.index}]`;
  // 'value' is the whole item ("is not an object"); anything else is a field of it.
  const path = error.field === 'value' ? item : `${item}.${error.field}`;
  return new SceneError(path, infinityHint(detail));
}

function parseList<T>(list: 'boxes' | 'rays', value: unknown, convert: (items: readonly unknown[]) => T): T {
  if (!Array.isArray(value)) {
    throw new SceneError(list, `must be an array (got ${describe(value)})`);
  }
  try {
    return convert(value as readonly unknown[]);
  } catch (error) {
    if (error instanceof ValidationError) {
      throw fromValidation(list, error);
    }
    throw error;
  }
}

function parsePairs(value: unknown, boxCount: number): Uint32Array {
  if (!Array.isArray(value)) {
    throw new SceneError('pairs', `must be an array of [i, j] box index pairs (got ${describe(value)})`);
  }
  const out = new Uint32Array(2 * value.length);
  const range = boxCount > 0 ? `0..${boxCount - 1}` : 'there are no boxes';
  value.forEach((pair: unknown, k) => {
    if (!Array.isArray(pair) || pair.length !== 2) {
      throw new SceneError(`pairs[${k}]`, `must be an array of two box indices [i, j] (got ${describe(pair)})`);
    }
    pair.forEach((x: unknown, c) => {
      const path = `pairs[${k}][${c}]`;
      if (typeof x !== 'number') {
        throw new SceneError(path, `is not a number (got ${describe(x)})`);
      }
      if (!Number.isInteger(x) || x < 0 || x >= boxCount) {
        throw new SceneError(path, `= ${x} is not a box index (${range})`);
      }
      out[2 * k + c] = x;
    });
  });
  return out;
}

/**
 * A scene must run on both backends: the GPU re-bases positions to the centre of the box
 * centres' bounds (the BoxSet default) and accepts magnitudes up to GPU_MAX_COORDINATE from
 * there, so a finite but huge number (1e300) is refused here, naming the value, rather than
 * turning into an infinity on the GPU.
 */
function checkSceneRange(boxes: BoxArray, rays: RayArray | undefined): void {
  // Absolute magnitudes first, so the message names the huge value itself; then the distances
  // from the origin the GPU will use (a spread beyond the range with no single huge value).
  const zero: Vec3 = [0, 0, 0];
  for (const origin of [zero, defaultOrigin(boxes)]) {
    try {
      checkBoxRange(boxes, origin);
    } catch (error) {
      throw error instanceof ValidationError ? fromValidation('boxes', error) : error;
    }
    try {
      if (rays) {
        checkRayRange(rays, origin);
      }
    } catch (error) {
      throw error instanceof ValidationError ? fromValidation('rays', error) : error;
    }
  }
}

/**
 * Validates a parsed scene JSON value and returns its canonical form. Throws {@link SceneError}
 * naming the first bad value; unknown top-level fields are tolerated (listed in `unknownFields`).
 *
 * @example
 * const scene = parseScene({ boxes: [{ center: [0, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] }],
 *                            rays: [{ origin: [-10, 0, 0], direction: [1, 0, 0] }] });
 * scene.boxes.count // 1
 */
export function parseScene(json: unknown): Scene {
  if (typeof json !== 'object' || json === null || Array.isArray(json)) {
    throw new SceneError('', `the scene must be a JSON object with a "boxes" array (got ${describe(json)})`);
  }
  const rec = json as Readonly<Record<string, unknown>>;
  if (rec['boxes'] === undefined) {
    throw new SceneError('boxes', 'is missing (a scene needs "boxes": [ … ])');
  }
  const boxes = parseList('boxes', rec['boxes'], (items) => boxArrayFrom(items as readonly BoxInput[]));
  const rays = rec['rays'] === undefined
    ? undefined
    : parseList('rays', rec['rays'], (items) => rayArrayFrom(items as readonly Ray[]));
  checkSceneRange(boxes, rays);
  const pairs = rec['pairs'] === undefined ? undefined : parsePairs(rec['pairs'], boxes.count);
  const all = rec['allPairs'];
  if (all !== undefined && typeof all !== 'boolean') {
    throw new SceneError('allPairs', `must be true or false (got ${describe(all)})`);
  }
  const unknownFields = Object.keys(rec).filter((k) => !SCENE_FIELDS.has(k) && !QUIET_FIELDS.has(k));
  return { boxes, rays, pairs, allPairs: all === true, unknownFields };
}

/**
 * Parses scene text (a file's contents). JSON syntax errors become a {@link SceneError} too.
 *
 * @example
 * parseSceneText('{"boxes": []}').boxes.count // 0
 */
export function parseSceneText(text: string): Scene {
  let json: unknown;
  try {
    // Editors on Windows may start the file with a byte-order mark, which JSON.parse rejects.
    json = JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);
  } catch (error) {
    const why = error instanceof Error ? error.message : String(error);
    throw new SceneError('', `not valid JSON (${why.replace(/\s+/g, ' ')})`);
  }
  return parseScene(json);
}

/** "1 box", "3 boxes". */
function count(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** "300 boxes, 1000 rays, 200 pairs, all pairs". */
export function describeScene(scene: Scene): string {
  const parts = [count(scene.boxes.count, 'box', 'boxes')];
  if (scene.rays) {
    parts.push(count(scene.rays.count, 'ray', 'rays'));
  }
  if (scene.pairs) {
    parts.push(count(scene.pairs.length / 2, 'pair', 'pairs'));
  }
  if (scene.allPairs) {
    parts.push('all pairs');
  }
  return parts.join(', ');
}

// ---------------------------------------------------------------------------------------------
// Results

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

function pairResults(r: { overlap: ArrayLike<number>; gap: ArrayLike<number>; axis: ArrayLike<number> }, n: number): PairResult[] {
  const out: PairResult[] = [];
  for (let k = 0; k < n; k++) {
    out.push({ overlap: r.overlap[k] === 1, gap: r.gap[k] as number, axis: axisName(r.axis[k] as number) });
  }
  return out;
}

function withQueries(
  head: { backend: 'gpu' | 'cpu'; adapter: string },
  rays: RayResult[] | undefined, pairs: PairResult[] | undefined, all: [number, number][] | undefined,
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
  return out;
}

/**
 * Runs the float64 reference on a scene and keeps its typed results (for the comparator).
 *
 * @example
 * const raw = runReference(scene); raw.hits?.box[0]
 */
export function runReference(scene: Scene, onProgress?: ProgressFn): CpuSceneRaw {
  const out: { -readonly [K in keyof CpuSceneRaw]: CpuSceneRaw[K] } = {};
  if (scene.rays) {
    onProgress?.(`closest hit (cpu): ${count(scene.rays.count, 'ray', 'rays')} × ${count(scene.boxes.count, 'box', 'boxes')}…`);
    out.hits = referenceClosestHit(scene.boxes, scene.rays);
  }
  if (scene.pairs) {
    onProgress?.(`pairs (cpu): ${count(scene.pairs.length / 2, 'SAT test', 'SAT tests')}…`);
    out.pairs = referenceObbPairs(scene.boxes, scene.pairs);
  }
  if (scene.allPairs) {
    const n = scene.boxes.count;
    onProgress?.(`all pairs (cpu): ${count(n, 'box', 'boxes')}, ${count((n * (n - 1)) / 2, 'SAT test', 'SAT tests')}…`);
    out.allPairs = referenceAllPairs(scene.boxes);
  }
  return out;
}

/** Per-ray closest hits of either backend as result-file entries (normal only when there is a face). */
function rayResults(
  sceneRays: RayArray,
  h: { readonly box: ArrayLike<number>; readonly t: ArrayLike<number>; readonly face: ArrayLike<number>; readonly inside: ArrayLike<number> },
  normalOf: (ray: number, box: number, face: number) => [number, number, number],
): RayResult[] {
  return Array.from({ length: sceneRays.count }, (_, r): RayResult => {
    const b = h.box[r] as number;
    if (b < 0) {
      return { hit: false };
    }
    const t = h.t[r] as number;
    const face = h.face[r] as number;
    const point = rayPoint(sceneRays, r, t);
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
  return withQueries({ backend: 'cpu', adapter: CPU_ADAPTER }, rays, pairs, all);
}

/**
 * Runs a scene on the float64 CPU reference: closest hit per ray (within its max distance), SAT
 * per listed pair, and every overlapping pair when asked.
 *
 * @example
 * runSceneCpu(parseScene(json)) // { backend: 'cpu', adapter: 'cpu reference (float64)', rays: [...] }
 */
export function runSceneCpu(scene: Scene, onProgress?: ProgressFn): SceneResult {
  return sceneResultFromCpu(scene, runReference(scene, onProgress));
}

/**
 * Runs a scene on the GPU and returns the typed results as plain arrays ({@link GpuSceneRaw}).
 * The boxes are uploaded once; every query reuses the set.
 *
 * @example
 * const raw = await runSceneGpuRaw(scene, await ObbGpu.create());
 */
/** Whether a query on `n` boxes takes the BVH path (for progress lines). */
function usesBvh(gpu: ObbGpu, accel: Accel, n: number, kind: 'rays' | 'pairs'): boolean {
  return accel === 'bvh' || (accel === 'auto' && n >= gpu.thresholds[kind]);
}

export async function runSceneGpuRaw(scene: Scene, gpu: ObbGpu, onProgress?: ProgressFn, accel: Accel = 'auto'): Promise<GpuSceneRaw> {
  const set = gpu.createBoxSet(scene.boxes);
  try {
    const out: { -readonly [K in keyof GpuSceneRaw]: GpuSceneRaw[K] } = {
      adapter: gpu.adapterName,
      origin: [set.origin[0], set.origin[1], set.origin[2]],
    };
    if (scene.rays) {
      onProgress?.(`closest hit: ${count(scene.rays.count, 'ray', 'rays')} × ${count(scene.boxes.count, 'box', 'boxes')}${usesBvh(gpu, accel, scene.boxes.count, 'rays') ? ' (BVH)' : ''}…`);
      const h = await gpu.closestHit(set, scene.rays, { geometry: true, accel });
      const n = h.count;
      const box = Array.from(h.box);
      // Misses carry t = Infinity, which JSON cannot hold; box -1 already says "miss".
      const t = Array.from(h.t, (x, r) => (box[r] === -1 ? 0 : x));
      const normal = h.normal ? Array.from(h.normal) : new Array<number>(3 * n).fill(0);
      out.rays = { box, t, face: Array.from(h.face), inside: Array.from(h.inside), normal };
    }
    if (scene.pairs) {
      onProgress?.(`pairs: ${count(scene.pairs.length / 2, 'SAT test', 'SAT tests')}…`);
      const p = await gpu.obbPairs(set, scene.pairs);
      out.pairs = { overlap: Array.from(p.overlap), gap: Array.from(p.gap), axis: Array.from(p.axis) };
    }
    if (scene.allPairs) {
      const n = scene.boxes.count;
      // 'auto' from the threshold: the grid, or the BVH when the grid would be crowded (ObbGpu.allPairs).
      const broad = accel === 'bvh' ? ' (BVH)' : usesBvh(gpu, accel, n, 'pairs') ? ' (grid, or BVH if crowded)' : undefined;
      onProgress?.(broad ? `all pairs: ${count(n, 'box', 'boxes')}${broad}…` : `all pairs: ${count(n, 'box', 'boxes')}, ${count((n * (n - 1)) / 2, 'SAT test', 'SAT tests')}…`);
      out.allPairs = Array.from((await gpu.allPairs(set, { accel })).pairs);
    }
    return out;
  } finally {
    set.destroy();
  }
}

/**
 * The result file of the GPU backend from its typed results: `t` and the normal as the GPU
 * computed them (float32), the point from `t` in float64 on the canonical ray.
 *
 * @example
 * sceneResultFromGpu(scene, raw).adapter // "google swiftshader (fallback)"
 */
export function sceneResultFromGpu(scene: Scene, raw: GpuSceneRaw): SceneResult {
  const h = raw.rays;
  const rays = scene.rays && h
    ? rayResults(scene.rays, h, (r) => {
      const n = (k: number): number => (h.normal[3 * r + k] as number) + 0;
      return [n(0), n(1), n(2)];
    })
    : undefined;
  const pairs = scene.pairs && raw.pairs ? pairResults(raw.pairs, scene.pairs.length / 2) : undefined;
  const all = scene.allPairs && raw.allPairs ? pairList(raw.allPairs) : undefined;
  return withQueries({ backend: 'gpu', adapter: raw.adapter }, rays, pairs, all);
}

/**
 * Runs a scene on the GPU: the result file and the raw typed results (for the comparator).
 *
 * @example
 * const { result, raw } = await runSceneGpu(scene, gpu);
 */
export async function runSceneGpu(
  scene: Scene, gpu: ObbGpu, onProgress?: ProgressFn,
): Promise<{ result: SceneResult; raw: GpuSceneRaw }> {
  const raw = await runSceneGpuRaw(scene, gpu, onProgress);
  return { result: sceneResultFromGpu(scene, raw), raw };
}
