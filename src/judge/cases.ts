/**
 * The library's test suites as scene files, for any implementation to run and hand to the judge
 * (`webgpu-obb cases DIR`): random scenes (also wide ones: sizes over eight decades, directions
 * of any length, coordinates to 1e6, segments, dense all pairs), the named adversarial groups of
 * src/scenes/, LiDAR sweeps (a preset, an Ouster-like sensor, motion, beams in face planes and at
 * minRange) and the exact groups (`exact/…`, whose answers are exact by construction), one scene
 * file per group, with a manifest saying what each group tests, its seed and its counts.
 * Pure: returns the files' names and texts; the CLI writes them.
 *
 * Browser- and Node-safe.
 *
 * @example
 * import { writeFile } from 'node:fs/promises'; // in Node
 * const { manifest, files } = caseFiles({ seed: 7, size: 'quick' });
 * for (const f of files) await writeFile(`cases/${f.name}`, f.text);
 */
import { BOX_F64, RAY_F64, type BoxArray, type BoxAxesInput, type Ray, type RayArray, type Vec3 } from '../core/types.ts';
import { adversarialPairGroups, adversarialRayGroups, exactPairGroups, exactRayGroups } from '../scenes/adversarial.ts';
import { mulberry32, publishedSatPairs, randomBoxes, randomRays, wideBoxes, widePairs, wideRays } from '../scenes/generate.ts';

/** What a manifest says of one exported group. */
export interface CaseSuite {
  /** Stable name, `rays/grazing-edges`, `pairs/touching-faces`, `random/rays`, … */
  readonly name: string;
  /** The scene file, relative to the manifest. */
  readonly scene: string;
  /** Where `judge` looks for the implementation's answers, relative to the results folder. */
  readonly result: string;
  /** What the group tests. */
  readonly tests: string;
  readonly seed: number;
  readonly boxes: number;
  readonly rays?: number;
  readonly pairs?: number;
  readonly allPairs?: boolean;
  /** LiDAR sweeps in the scene (its `lidars`). */
  readonly lidars?: number;
  /**
   * Every expected answer is exact by construction (small integer and dyadic inputs, quarter-turn
   * axes, directions along axes): an implementation's answer agrees or mismatches, never ambiguous.
   */
  readonly exact?: true;
}

/** The manifest.json `cases` writes next to the scene files. */
export interface CaseManifest {
  readonly kind: 'webgpu-obb-cases';
  readonly version: 1;
  readonly generator: string;
  readonly seed: number;
  readonly size: 'quick' | 'full';
  readonly suites: readonly CaseSuite[];
  /** Groups of the library's own suites that the scene format cannot express, and why. */
  readonly notExported: readonly { readonly name: string; readonly why: string }[];
}

/** Options of {@link caseFiles}. */
export interface CaseOptions {
  readonly seed?: number;
  /** 'quick' (default): a few MB in all; 'full': the random groups 10–20× larger. */
  readonly size?: 'quick' | 'full';
  /** Only the groups whose name equals or starts with one of these (`rays`, `pairs/containment`). */
  readonly suites?: readonly string[];
  /** Written into the manifest (default 'webgpu-obb'). */
  readonly generator?: string;
}

const RAY_GROUP_TESTS: Readonly<Record<string, string>> = {
  'grazing-edges': 'rays passing a box edge within 1e-3 … 0 of it, both sides',
  'grazing-corners': 'rays passing a box corner within 1e-3 … 0 of it',
  'face-plane': 'rays lying in, or just off, the plane of a face',
  'origin-inside-solid': 'origins inside boxes: a solid box is hit at t = 0, inside',
  'origin-on-surface': 'origins exactly on a box surface',
  'flat-boxes': 'boxes with one zero half extent (flat rectangles)',
  'flat-boxes-grazing': 'rays grazing the edges of flat boxes',
  'axis-aligned-parallel': 'axis-aligned boxes and rays parallel to their faces',
  'far-from-origin-1e4': 'boxes and rays 10⁴ from the world origin',
  'max-distance': 'max distances that end short of, at and past a hit',
};

const PAIR_GROUP_TESTS: Readonly<Record<string, string>> = {
  'near-parallel-edges': 'edges 1e-6 … 1e-2 rad from parallel at about contact distance (the edge-cross axes degenerate)',
  'touching-faces': 'faces in contact, within float32 error of touching',
  containment: 'one box inside the other',
  'flat-boxes': 'boxes with a zero half extent',
  'identical-orientation': 'equal axes (every edge-cross axis is zero)',
  'far-from-origin-1e4': 'pairs 10⁴ from the world origin',
  'axis-aligned': 'axis-aligned boxes',
};

const EXACT_GROUP_TESTS: Readonly<Record<string, string>> = {
  'rays-face-planes': 'rays along a box axis lying in the planes of its faces, along its edges, inside and 0.25 outside, from both sides (direction lengths 0.5 to 4)',
  'rays-origin-on-slab-planes': 'origins exactly on faces, edges and corners, and on two slab planes 0.5 beside the box, along every axis direction (facing in, out and along the surface)',
  'rays-ties-inside': 'origins inside two or three overlapping boxes by at least 0.25, in every listing order and with duplicates: the tie at t = 0 goes to the smallest index',
  'rays-ties-ahead': 'ties at t > 0: the same box listed two or three times, and different boxes sharing the entered face plane, in both orders: the smallest index wins',
  'rays-flat-boxes': 'flat boxes (one zero half extent) hit from both sides, rays in their plane (entering at the rim) and 0.25 off it, origins in it',
  'rays-segments': 'segments (two zero half extents): rays along their line into an end, crossing them at the ends and inside, 0.25 beside or past them, origins on them',
  'rays-max-distance': 'maxDistance exactly at the hit (it counts), 0.25 and 0.5 short, 0.5 past; 0 with the origin inside or on the face it enters (t is a world distance: direction lengths 0.5 to 4)',
  'rays-quarter-turns': 'the 24 quarter-turn rotations of a box with unequal half extents: rays along each world axis at its centre, along its edges and 0.25 beside it',
  'pairs-touching': 'faces in contact (gap exactly 0: overlap), 0.5 apart (gap 0.5) and 0.25 overlapping, with edges in contact or 0.5 apart beside; quarter turns, both orders',
  'all-pairs-touching': 'every pair of a lattice of quarter-turned boxes of unequal sizes: neighbours touch at faces, edges and corners (gap 0) or stand exactly 0.5 apart',
  'pairs-containment': 'a box inside another: centred, flush against each face and corner from inside, 0.25 in; quarter turns, both orders',
  'pairs-identical': 'one box described by each of the 24 quarter turns (half extents permuted to match), each twice: every pair is the same box; a flat box and a segment with their copies',
  'pairs-quarter-turns': 'a box against every quarter turn of another along each world axis: faces touching (gap 0) and 0.5 apart',
  'pairs-flat-and-segments': 'flat boxes and segments against boxes, flat boxes and segments: touching (gap 0), 0.5 apart, centred on each other (crossing, coplanar, collinear)',
};

/**
 * Where the far random groups put their boxes: about 10⁶ from the world origin, where float32's
 * step is 0.0625 (one cluster, so that an implementation can re-base to it as the library's
 * floating origin does).
 */
const FAR_OFFSETS: readonly Vec3[] = [[6e5, -7e5, 3e5]];

/**
 * The published regression case that fools a six-axis (face normals only) test: overlapping on
 * all six face normals, separated along the edge-cross axis A1xB2. The same values as
 * test/fixtures/seed-sat-case.json.
 */
const FACE_AXES_ONLY = [
  { center: [0, 0, 0], halfExtents: [0.833764, 1.887452, 1.82353], axes: [[-0.443449, 0.528599, -0.723834], [0.293785, 0.848689, 0.439793], [0.846784, -0.017626, -0.531645]] },
  { center: [-2.171778, -2.012874, 2.111567], halfExtents: [1.061493, 1.044604, 1.472044], axes: [[-0.319965, -0.256745, 0.911978], [0.917602, 0.155652, 0.365758], [-0.235857, 0.953863, 0.185786]] },
] as const;

function boxesJson(boxes: BoxArray): unknown[] {
  const d = boxes.data;
  const out: unknown[] = [];
  for (let b = 0; b < boxes.count; b++) {
    const o = b * BOX_F64.STRIDE;
    const v = (k: number): number[] => [d[o + k]!, d[o + k + 1]!, d[o + k + 2]!];
    out.push({ center: v(BOX_F64.CENTER), halfExtents: v(BOX_F64.HALF), axes: [v(BOX_F64.U), v(BOX_F64.V), v(BOX_F64.W)] });
  }
  return out;
}

function raysJson(rays: RayArray): unknown[] {
  const d = rays.data;
  const out: unknown[] = [];
  for (let r = 0; r < rays.count; r++) {
    const o = r * RAY_F64.STRIDE;
    const max = d[o + RAY_F64.MAX]!;
    out.push({
      origin: [d[o]!, d[o + 1]!, d[o + 2]!], direction: [d[o + 3]!, d[o + 4]!, d[o + 5]!],
      maxDistance: Number.isFinite(max) ? max : null,
    });
  }
  return out;
}

/** Rays as users write them (the wide and exact groups: directions of any length). */
function rayInputsJson(rays: readonly Ray[]): unknown[] {
  return rays.map((r) => ({ origin: [...r.origin], direction: [...r.direction], maxDistance: r.maxDistance ?? null }));
}

function boxInputsJson(boxes: readonly BoxAxesInput[]): unknown[] {
  return boxes.map((b) => ({ center: [...b.center], halfExtents: [...b.halfExtents], axes: b.axes.map((a) => [...a]) }));
}

function pairsJson(pairs: Uint32Array): number[][] {
  const out: number[][] = [];
  for (let k = 0; k < pairs.length; k += 2) {
    out.push([pairs[k]!, pairs[k + 1]!]);
  }
  return out;
}

interface Group {
  readonly name: string;
  readonly tests: string;
  readonly seed: number;
  readonly boxes: unknown[];
  readonly rays?: unknown[];
  readonly pairs?: number[][];
  readonly allPairs?: boolean;
  readonly lidars?: unknown[];
  readonly exact?: true;
}

function groups(seed: number, full: boolean): { groups: Group[]; notExported: { name: string; why: string }[] } {
  const out: Group[] = [];
  const notExported: { name: string; why: string }[] = [];
  // Random scenes.
  {
    const rnd = mulberry32(seed);
    const boxes = randomBoxes(full ? 5000 : 500, rnd, { extent: full ? 60 : 25, halfMin: 0.2, halfMax: 2 });
    const rays = randomRays(full ? 100_000 : 5000, boxes, rnd, { extent: full ? 70 : 30 });
    out.push({ name: 'random/rays', tests: 'random boxes and rays, half of them aimed at a box', seed, boxes: boxesJson(boxes), rays: raysJson(rays) });
  }
  {
    const n = full ? 50_000 : 5000;
    const boxes = publishedSatPairs(n, mulberry32(seed + 1));
    const pairs = Uint32Array.from({ length: 2 * n }, (_, i) => i);
    out.push({ name: 'random/pairs', tests: 'box pairs of the published SAT suite\'s distribution (pair k is boxes 2k, 2k + 1)', seed: seed + 1, boxes: boxesJson(boxes), pairs: pairsJson(pairs) });
  }
  {
    const n = full ? 5000 : 800;
    const boxes = randomBoxes(n, mulberry32(seed + 2), { extent: full ? 30 : 12, halfMin: 0.2, halfMax: 1.5 });
    out.push({ name: 'random/all-pairs', tests: 'every overlapping pair among random boxes', seed: seed + 2, boxes: boxesJson(boxes), allPairs: true });
  }
  // The adversarial ray groups the format can express (solid boxes, no masks or exclusions).
  for (const g of adversarialRayGroups(seed + 3)) {
    const tests = RAY_GROUP_TESTS[g.name];
    if (!g.solid || g.boxMasks || g.rayMasks || g.exclude || tests === undefined) {
      notExported.push({ name: `rays/${g.name}`, why: !g.solid ? 'rays that exit boxes (solid: false): the scene format has solid boxes only' : 'masks and excluded boxes: the scene format has neither' });
      continue;
    }
    out.push({ name: `rays/${g.name}`, tests, seed: seed + 3, boxes: boxesJson(g.boxes), rays: raysJson(g.rays) });
  }
  // The adversarial pair groups, listed pairs and all pairs of the same boxes.
  for (const g of adversarialPairGroups(seed + 4)) {
    const tests = PAIR_GROUP_TESTS[g.name] ?? g.name;
    out.push({ name: `pairs/${g.name}`, tests, seed: seed + 4, boxes: boxesJson(g.boxes), pairs: pairsJson(g.pairs) });
  }
  {
    const g = adversarialPairGroups(seed + 4).find((x) => x.name === 'touching-faces');
    if (g) {
      const count = Math.min(g.boxes.count, 600);
      const boxes = { count, data: g.boxes.data.slice(0, count * BOX_F64.STRIDE) };
      out.push({ name: 'all-pairs/touching-faces', tests: 'all pairs among boxes in face contact: every listed or missing pair is a touching one', seed: seed + 4, boxes: boxesJson(boxes), allPairs: true });
    }
  }
  // LiDAR sweeps: a preset and an Ouster-like sensor over a street, motion during the sweep,
  // and beams in face planes and at the minimum range.
  {
    const rnd = mulberry32(seed + 5);
    const boxes = randomBoxes(full ? 3000 : 300, rnd, { extent: 40, halfMin: 0.3, halfMax: 2.5 });
    const d = boxes.data;
    for (let i = 0; i < boxes.count; i++) {
      const o = i * BOX_F64.STRIDE;
      d[o + 2] = (rnd() - 0.5) * 4;
      const h = Math.hypot(d[o]!, d[o + 1]!);
      if (h < 4) {
        d[o] = d[o]! + (d[o]! >= 0 ? 5 : -5);
      }
    }
    const columns = full ? 1024 : 256;
    const ousterLike = {
      elevationsDeg: Array.from({ length: 16 }, (_, c) => -16.6 + 2.2 * c), azimuthOffsetsDeg: Array.from({ length: 16 }, (_, c) => [3.1, 1, -1, -3.1][c % 4]!),
      beamOriginOffset: 0.015806, columns, azimuthStartDeg: 360, azimuthEndDeg: 0, minRange: 0.5, maxRange: 120, sweepTime: 0.1,
    };
    const pose = { position: [0, 0, 1.8], rotation: [0, 0, Math.sin(0.2), Math.cos(0.2)] };
    out.push({
      name: 'lidar/street', tests: 'LiDAR sweeps over a street: the velodyne-vlp16 preset, and a sensor with per-channel azimuth offsets, the beam-origin circle, a clockwise turn and a minimum range',
      seed: seed + 5, boxes: boxesJson(boxes), lidars: [{ sensor: 'velodyne-vlp16', pose }, { sensor: ousterLike, pose }],
    });
    const moving = boxesJson(boxes).map((b, i) => (i % 4 === 1
      ? { ...(b as object), velocity: [(rnd() - 0.5) * 30, (rnd() - 0.5) * 30, 0], angularVelocity: [0, 0, (rnd() - 0.5) * 2] }
      : b));
    out.push({
      name: 'lidar/motion', tests: 'motion during the sweep: the sensor moving 2 m and turning during its 0.1 s, a quarter of the boxes moving (velocity, angular velocity)',
      seed: seed + 5, boxes: moving,
      lidars: [{ sensor: ousterLike, pose, poseEnd: { position: [2, 0.3, 1.8], rotation: [0, 0, Math.sin(0.23), Math.cos(0.23)] } }],
    });
  }
  {
    // Channel 0 lies in the plane of the boxes' top faces (z = 1 at the sensor's height); boxes
    // whose near face is exactly minRange away along a ray; a sweep 10⁵ from the world origin.
    const far = 1e5;
    const boxes: unknown[] = [];
    for (let k = 0; k < 12; k++) {
      const angle = (2 * Math.PI * k) / 12;
      boxes.push({ center: [far + 6 * Math.cos(angle), 6 * Math.sin(angle), 0], halfExtents: [1, 1, 1], rotation: [0, 0, Math.sin(angle / 2), Math.cos(angle / 2)] });
    }
    boxes.push({ center: [far + 2.5, 0, 0.5], halfExtents: [0.5, 0.5, 0.5], rotation: [0, 0, 0, 1] });
    out.push({
      name: 'lidar/edges', tests: 'beams in the plane of box faces, a box face at exactly the minimum range, 10⁵ from the world origin',
      seed: 0, boxes,
      lidars: [{ sensor: { elevationsDeg: [0, -5, 5, -10, 10], columns: 360, minRange: 2, maxRange: 50 }, pose: { position: [far, 0, 1] } }],
    });
  }
  out.push({
    name: 'pairs/face-axes-only', tests: 'the published case that a six-axis test gets wrong: separated only along the edge-cross axis A1xB2', seed: 0,
    boxes: FACE_AXES_ONLY.map((b) => ({ center: [...b.center], halfExtents: [...b.halfExtents], axes: b.axes.map((a) => [...a]) })), pairs: [[0, 1], [1, 0]], allPairs: true,
  });
  out.push(...wideGroups(seed, full), ...exactGroups());
  return { groups: out, notExported };
}

/**
 * The wider random families: sizes over eight decades, directions of any length, coordinates
 * to 10⁶, flat boxes and segments, and an all-pairs scene dense in overlaps (thousands of
 * overlapping pairs, so that dropping one in a thousand shows). Segments are among the pairs
 * only: a ray aimed at a segment always grazes it (every answer ambiguous); exact/rays-segments
 * hits them exactly instead.
 */
function wideGroups(seed: number, full: boolean): Group[] {
  const out: Group[] = [];
  {
    const rnd = mulberry32(seed + 6);
    const boxes = wideBoxes(full ? 4000 : 400, rnd, { flat: 0.1 });
    out.push({
      name: 'random/rays-wide', tests: 'boxes with half extents from 1e-4 to 1e4 (log-uniform; a tenth flat), rays from 1.5 to 30 sizes away with direction lengths from 1e-3 to 1e3, a quarter with a finite maxDistance',
      seed: seed + 6, boxes: boxesJson(boxes), rays: rayInputsJson(wideRays(full ? 40_000 : 2000, boxes, rnd)),
    });
  }
  {
    const rnd = mulberry32(seed + 7);
    const boxes = wideBoxes(full ? 4000 : 400, rnd, { halfMin: 0.05, halfMax: 5, aspect: 4, offsets: FAR_OFFSETS });
    out.push({
      name: 'random/rays-far-1e6', tests: 'boxes and rays about 10⁶ from the world origin (half extents 0.05 to 5), direction lengths from 1e-3 to 1e3',
      seed: seed + 7, boxes: boxesJson(boxes), rays: rayInputsJson(wideRays(full ? 40_000 : 2000, boxes, rnd)),
    });
  }
  const listed = (boxes: { count: number }): number[][] => Array.from({ length: boxes.count / 2 }, (_, k) => [2 * k, 2 * k + 1]);
  {
    const boxes = widePairs(full ? 10_000 : 600, mulberry32(seed + 8), { flat: 0.1, segments: 0.1 });
    out.push({
      name: 'random/pairs-wide', tests: 'pairs at about contact distance with half extents from 1e-4 to 1e4 (log-uniform; a tenth flat, a tenth segments), pair k is boxes 2k, 2k + 1',
      seed: seed + 8, boxes: boxesJson(boxes), pairs: listed(boxes),
    });
  }
  {
    const boxes = widePairs(full ? 10_000 : 600, mulberry32(seed + 9), { halfMin: 0.1, halfMax: 3, aspect: 4, offsets: FAR_OFFSETS });
    out.push({
      name: 'random/pairs-far-1e6', tests: 'pairs at about contact distance, about 10⁶ from the world origin (half extents 0.1 to 3), pair k is boxes 2k, 2k + 1',
      seed: seed + 9, boxes: boxesJson(boxes), pairs: listed(boxes),
    });
  }
  {
    const boxes = widePairs(full ? 10_000 : 500, mulberry32(seed + 10), { halfMin: 0.05, halfMax: 5, aspect: 4, segments: 0.6, flat: 0.2 });
    out.push({
      name: 'random/pairs-segments', tests: 'segments (two zero half extents) against segments, flat boxes and boxes at about contact distance, pair k is boxes 2k, 2k + 1',
      seed: seed + 10, boxes: boxesJson(boxes), pairs: listed(boxes),
    });
  }
  {
    const n = full ? 6000 : 1500;
    const boxes = randomBoxes(n, mulberry32(seed + 11), { extent: full ? 15.9 : 10, halfMin: 0.3, halfMax: 1.5, axisAligned: 0.1 });
    out.push({
      name: 'random/all-pairs-dense', tests: 'every overlapping pair among boxes packed densely (thousands of overlapping pairs, a tenth axis-aligned): one dropped pair in a thousand shows',
      seed: seed + 11, boxes: boxesJson(boxes), allPairs: true,
    });
  }
  return out;
}

/** The exact groups of src/scenes/adversarial.ts, the same for every seed and size. */
function exactGroups(): Group[] {
  const out: Group[] = [];
  for (const g of exactRayGroups()) {
    out.push({ name: `exact/${g.name}`, tests: EXACT_GROUP_TESTS[g.name] ?? g.name, seed: 0, exact: true, boxes: boxInputsJson(g.boxes), rays: rayInputsJson(g.rays) });
  }
  for (const g of exactPairGroups()) {
    out.push({
      name: `exact/${g.name}`, tests: EXACT_GROUP_TESTS[g.name] ?? g.name, seed: 0, exact: true, boxes: boxInputsJson(g.boxes),
      ...(g.pairs ? { pairs: g.pairs.map(([i, j]) => [i, j]) } : {}), ...(g.allPairs ? { allPairs: true } : {}),
    });
  }
  return out;
}

/** The file name of a group: `rays/grazing-edges` → `rays--grazing-edges.scene.json`. */
function fileOf(name: string, kind: 'scene' | 'result'): string {
  return `${name.replace(/\//g, '--')}.${kind}.json`;
}

/**
 * The suites as files: `manifest.json` and one `NAME.scene.json` per group. Deterministic for a
 * seed and size.
 *
 * @example
 * const { files } = caseFiles({ suites: ['rays/grazing'] }); // rays/grazing-edges, rays/grazing-corners
 */
export function caseFiles(options: CaseOptions = {}): { manifest: CaseManifest; files: { name: string; text: string }[] } {
  const seed = options.seed ?? 20261201;
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) {
    throw new RangeError(`seed must be an integer in 0..4294967295 (got ${String(options.seed)})`);
  }
  const size = options.size ?? 'quick';
  if (size !== 'quick' && size !== 'full') {
    throw new RangeError(`size must be quick or full (got ${String(size)})`);
  }
  const all = groups(seed, size === 'full');
  const wanted = options.suites;
  const picked = wanted ? all.groups.filter((g) => wanted.some((w) => g.name === w || g.name.startsWith(w))) : all.groups;
  if (wanted && picked.length === 0) {
    throw new RangeError(`--suite ${wanted.join(', ')} matches no group (have: ${all.groups.map((g) => g.name).join(', ')})`);
  }
  const files: { name: string; text: string }[] = [];
  const suites: CaseSuite[] = [];
  for (const g of picked) {
    const scene: Record<string, unknown> = { description: `${g.name}: ${g.tests} (seed ${g.seed})`, boxes: g.boxes };
    if (g.rays) {
      scene['rays'] = g.rays;
    }
    if (g.pairs) {
      scene['pairs'] = g.pairs;
    }
    if (g.allPairs) {
      scene['allPairs'] = true;
    }
    if (g.lidars) {
      scene['lidars'] = g.lidars;
    }
    files.push({ name: fileOf(g.name, 'scene'), text: `${JSON.stringify(scene)}\n` });
    suites.push({
      name: g.name, scene: fileOf(g.name, 'scene'), result: fileOf(g.name, 'result'), tests: g.tests, seed: g.seed, boxes: g.boxes.length,
      ...(g.rays ? { rays: g.rays.length } : {}), ...(g.pairs ? { pairs: g.pairs.length } : {}), ...(g.allPairs ? { allPairs: true } : {}),
      ...(g.lidars ? { lidars: g.lidars.length } : {}), ...(g.exact ? { exact: true } : {}),
    });
  }
  const manifest: CaseManifest = {
    kind: 'webgpu-obb-cases', version: 1, generator: options.generator ?? 'webgpu-obb', seed, size, suites,
    notExported: wanted ? all.notExported.filter((x) => wanted.some((w) => x.name.startsWith(w))) : all.notExported,
  };
  files.unshift({ name: 'manifest.json', text: `${JSON.stringify(manifest, null, 2)}\n` });
  return { manifest, files };
}

/**
 * Checks a manifest's JSON (what `judge` reads when given one instead of a scene).
 *
 * @example
 * const manifest = parseManifest(JSON.parse(text));
 */
export function parseManifest(json: unknown): CaseManifest {
  const m = json as Partial<CaseManifest> | null;
  if (typeof m !== 'object' || m === null || m.kind !== 'webgpu-obb-cases' || !Array.isArray(m.suites)) {
    throw new RangeError('not a webgpu-obb cases manifest (kind "webgpu-obb-cases" with a suites list)');
  }
  m.suites.forEach((s, k) => {
    if (typeof s?.name !== 'string' || typeof s.scene !== 'string' || typeof s.result !== 'string') {
      throw new RangeError(`suites[${k}] needs name, scene and result`);
    }
    if (/(^|[\\/])\.\.([\\/]|$)|^[\\/]/.test(s.scene) || /(^|[\\/])\.\.([\\/]|$)|^[\\/]/.test(s.result)) {
      throw new RangeError(`suites[${k}] points outside its folder (${s.scene}, ${s.result})`);
    }
  });
  return m as CaseManifest;
}

/** True when a parsed JSON value looks like a cases manifest rather than a scene. */
export function isManifest(json: unknown): boolean {
  return typeof json === 'object' && json !== null && (json as { kind?: unknown }).kind === 'webgpu-obb-cases';
}
