/**
 * Suite `fuzz`: fast-check drives random, shrinking inputs through the GPU and the float64
 * reference, and the comparator classifies every answer; a property fails on any mismatch or
 * any exception. Three properties:
 *
 * - `rays`: boxes × rays through closestHit, anyHit and allHits (with a random list capacity;
 *   closest and any hits also through the set's tree),
 *   with flat boxes, masks, excluded boxes, max distances, `solid`, and scenes up to 1e6 m from
 *   the world origin;
 * - `pairs`: listed pairs, one box against the set, every pair in a set (random capacity; brute
 *   force or BVH as `auto` picks, the grid and the BVH) and between two sets with their own origins;
 * - `updates`: a BoxSet driven by random set / update / setMasks / rebase calls with queries
 *   issued in between, none awaited before the next call: each query must answer for the model
 *   state at the time it was issued (by brute force and through the set's tree);
 * - `lidar`: a sensor (random channel table, azimuths, start, span and turning direction,
 *   per-channel offsets, beam-origin offset, min range, pose, masks, list capacity, and motion
 *   during the sweep: the sensor's travel and turn, moving and spinning boxes) swept over boxes
 *   around it by the raster method, against the reference's closest hits of the sweep's rays and
 *   ray by ray against the BVH method.
 *
 * Each run batches many cases into one dispatch: a shrinkable explicit part (fast-check values)
 * plus a seeded bulk part (mulberry32, its size shrinkable too). A failing run is shrunk by
 * fast-check and returned with the comparator's first bad case; `replay(property, spec)` runs
 * one spec again (the repro tests call it).
 *
 * fast-check is imported when a property runs, so pages that never fuzz never load it.
 */
import type * as FC from 'fast-check';
import { BOX_F64, RAY_F64, boxArrayFrom, rayArrayFrom, toObb, type BoxArray, type BoxInput, type ClosestHits, type LidarDescription, type LidarMotion, type LidarPose, type ObbGpu, type Ray, type RayArray, type RaycastOptions, type Vec3 } from '../../../../src/index.ts';
import { compareAllHits, compareAnyHits, compareClosestHits, comparePairLists, comparePairs, mulberry32, randomBoxes, randomRays, type Comparison } from '../../../../src/judge/index.ts';
import { allHits as refAllHits, obbOneVsMany as refOneVsMany } from '../../../../src/reference/index.ts';
import { compareLidarSweep } from '../../../../src/compare/lidar.ts';
import { motionMatters } from '../../../../src/core/lidar.ts';
import { scoped } from '../shared.ts';

type V3 = [number, number, number];

/** One box of a spec: centre and half extents in units of the scene's scale, a quaternion. */
export interface BoxSpec { c: V3; h: V3; q: [number, number, number, number] }

/**
 * One ray of a spec: origin in units of scale; `aim` ≥ 0 points it at box `aim mod n` (d is a
 * jitter of the target), otherwise d is the direction. `max` null = unbounded.
 */
export interface RaySpec { o: V3; d: V3; aim: number; max: number | null; mask: number; exclude: number }

/** A whole ray scene: what one property run evaluates. JSON-safe, so a repro can inline it. */
export interface RayScene {
  offset: V3;
  scale: number;
  boxes: BoxSpec[];
  bulkBoxes: number;
  rays: RaySpec[];
  bulkRays: number;
  bulkSeed: number;
  solid: boolean;
  boxMasks: number[] | null;
  rayMasks: boolean;
  exclude: boolean;
  capacity: number | null;
}

/** A pair scene: boxes, listed pairs (indices mod n), and the capacities of the list queries. */
export interface PairScene {
  offset: V3;
  scale: number;
  boxes: BoxSpec[];
  bulkBoxes: number;
  bulkSeed: number;
  pairs: [number, number][];
  bulkPairs: number;
  faceOnly: boolean;
  capacity: number | null;
  /** obbCross splits the boxes at this index (mod n + 1) into two sets with their own origins. */
  split: number;
}

/** One call on a BoxSet in the `updates` property. */
export type UpdateCommand =
  | { kind: 'update'; first: number; boxes: BoxSpec[] }
  | { kind: 'set'; count: number; seed: number }
  | { kind: 'masks'; first: number; masks: number[] }
  | { kind: 'rebase'; to: V3 | null }
  | { kind: 'query' };

export interface UpdateScene {
  offset: V3;
  bulkBoxes: number;
  bulkSeed: number;
  capacity: number | null;
  commands: UpdateCommand[];
  rays: number;
}

/**
 * A LiDAR scene: boxes around the sensor (explicit, in units of scale, plus seeded bulk), a
 * channel table in degrees (any order, up to ±89°), azimuth steps and start, the pose, masks, and
 * the raster method's initial list capacity (small ones force the re-run).
 */
export interface LidarScene {
  offset: V3;
  scale: number;
  boxes: BoxSpec[];
  bulkBoxes: number;
  bulkSeed: number;
  elevationsDeg: number[];
  azimuths: number;
  azimuthStart: number;
  /** The sweep runs clockwise (azimuthEnd = azimuthStart − span). */
  clockwise: boolean;
  /** A partial field of view, degrees (null: a full turn). */
  spanDeg: number | null;
  /** Per-channel azimuth offsets, degrees (cycled over the channels), or none. */
  azimuthOffsetsDeg: number[] | null;
  /** minRange as a fraction of maxRange. */
  minRangeFraction: number;
  maxRange: number;
  origin: V3;
  rotation: [number, number, number, number];
  boxMasks: number[] | null;
  mask: number;
  listCapacity: number | null;
  /** The beam-origin offset, in units of scale (0: none). */
  beamOffset: number;
  /**
   * Motion during a 0.1 s sweep (null: none): the sensor's travel (units of scale) and its
   * rotation at the end (null: the start's), and every `movingEvery`-th box moving (null: none)
   * at up to `speed` units of scale per sweep, spinning at up to `spin` × 30 rad/s.
   */
  motion: { travel: V3; rotationEnd: [number, number, number, number] | null; movingEvery: number | null; speed: number; spin: number; seed: number } | null;
}

export type PropertyName = 'rays' | 'pairs' | 'updates' | 'lidar';

/** A counterexample kept in test/gpu/repro/ (one file per bug; fuzz.test.ts replays them all). */
export interface Repro {
  readonly property: PropertyName;
  /** What went wrong, as a test name. */
  readonly title: string;
  readonly spec: unknown;
}

/** What one property run checked. */
interface Tally { cases: number; ambiguous: number }

/** The outcome of a property: runs, cases checked, and the shrunk counterexample if any. */
export interface FuzzReport {
  property: PropertyName;
  seed: number;
  runs: number;
  cases: number;
  ambiguous: number;
  ms: number;
  failed: boolean;
  numShrinks: number;
  counterexample: unknown;
  error: string;
  firstBadCase: unknown;
}

// ---------------------------------------------------------------------------------------------
// Building scenes from specs (deterministic: a spec always gives the same inputs)

function boxInputs(specs: readonly BoxSpec[], offset: V3, scale: number): BoxInput[] {
  return specs.map((b) => ({
    center: [offset[0] + b.c[0] * scale, offset[1] + b.c[1] * scale, offset[2] + b.c[2] * scale],
    halfExtents: [b.h[0] * scale, b.h[1] * scale, b.h[2] * scale],
    rotation: b.q,
  }));
}

function concatBoxes(a: BoxArray, b: BoxArray): BoxArray {
  const data = new Float64Array((a.count + b.count) * BOX_F64.STRIDE);
  data.set(a.data);
  data.set(b.data, a.data.length);
  return { count: a.count + b.count, data };
}

function sceneBoxes(specs: readonly BoxSpec[], bulk: number, seed: number, offset: V3, scale: number): BoxArray {
  const explicit = boxArrayFrom(boxInputs(specs, offset, scale));
  const rnd = mulberry32(seed);
  const generated = randomBoxes(bulk, rnd, { extent: scale, halfMin: 0.02 * scale, halfMax: 0.3 * scale, offset, axisAligned: 0.2 });
  return concatBoxes(explicit, generated);
}

function rayScene(spec: RayScene): { boxes: BoxArray; rays: RayArray; options: RaycastOptions } {
  const { offset, scale } = spec;
  const boxes = sceneBoxes(spec.boxes, spec.bulkBoxes, spec.bulkSeed, offset, scale);
  const n = boxes.count;
  const explicit: Ray[] = spec.rays.map((r) => {
    const origin: V3 = [offset[0] + r.o[0] * scale, offset[1] + r.o[1] * scale, offset[2] + r.o[2] * scale];
    let d: V3 = r.d;
    if (r.aim >= 0 && n > 0) {
      const b = (r.aim % n) * BOX_F64.STRIDE;
      d = [
        boxes.data[b]! + r.d[0] * scale - origin[0],
        boxes.data[b + 1]! + r.d[1] * scale - origin[1],
        boxes.data[b + 2]! + r.d[2] * scale - origin[2],
      ];
    }
    if (!(Math.hypot(d[0], d[1], d[2]) > 0)) {
      d = [1, 0, 0];
    }
    return r.max === null ? { origin, direction: d } : { origin, direction: d, maxDistance: r.max * scale };
  });
  const rnd = mulberry32(spec.bulkSeed ^ 0x5bd1e995);
  const generated = randomRays(spec.bulkRays, boxes, rnd, { extent: 1.5 * scale, offset, aimed: 0.7 });
  const first = rayArrayFrom(explicit);
  const data = new Float64Array((first.count + generated.count) * RAY_F64.STRIDE);
  data.set(first.data);
  data.set(generated.data, first.data.length);
  const rays = { count: first.count + generated.count, data };
  const m = rays.count;
  const options: { -readonly [K in keyof RaycastOptions]: RaycastOptions[K] } = { solid: spec.solid };
  if (spec.boxMasks && spec.boxMasks.length > 0 && n > 0) {
    const masks = spec.boxMasks;
    options.boxMasks = Uint32Array.from({ length: n }, (_, i) => masks[i % masks.length]!);
  }
  if (spec.rayMasks) {
    options.rayMasks = Uint32Array.from({ length: m }, (_, i) => spec.rays[i]?.mask ?? (i * 2654435761) >>> 28);
  }
  if (spec.exclude && n > 0) {
    options.exclude = Int32Array.from({ length: m }, (_, i) => {
      const e = spec.rays[i]?.exclude ?? ((i * 40503) % (n + 1)) - 1;
      return e < 0 ? -1 : e % n;
    });
  }
  return { boxes, rays, options };
}

function badCase(c: Comparison): unknown {
  const first = c.cases.find((k) => k.verdict === 'mismatch');
  return first ? { reason: first.reason, detail: first.detail, input: first.input } : undefined;
}

/** Throws (failing the property) when a comparison has a mismatch. */
function expectAgree(label: string, c: Comparison, tally: Tally): void {
  tally.cases += c.total;
  tally.ambiguous += c.ambiguous;
  if (c.mismatch > 0) {
    const error = new Error(`${label}: ${c.mismatch} mismatch(es) in ${c.total}: ${JSON.stringify(badCase(c))}`);
    (error as Error & { badCase?: unknown }).badCase = badCase(c);
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Evaluating one spec on the GPU and the reference

async function evalRays(gpu: ObbGpu, spec: RayScene, tally: Tally): Promise<void> {
  const { boxes, rays, options } = rayScene(spec);
  const set = gpu.createBoxSet(boxes, options.boxMasks ? { masks: options.boxMasks } : {});
  try {
    const q = {
      solid: spec.solid,
      ...(options.rayMasks ? { rayMasks: options.rayMasks } : {}),
      ...(options.exclude ? { exclude: options.exclude } : {}),
    };
    const input = { boxes, rays, options, origin: set.origin };
    const [closest, any, all, closestTree, anyTree] = await Promise.all([
      gpu.closestHit(set, rays, q),
      gpu.anyHit(set, rays, q),
      gpu.allHits(set, rays, spec.capacity === null ? q : { ...q, capacity: spec.capacity }),
      gpu.closestHit(set, rays, { ...q, accel: 'bvh' }),
      gpu.anyHit(set, rays, { ...q, accel: 'bvh' }),
    ]);
    expectAgree('closestHit', compareClosestHits(input, closest), tally);
    expectAgree('anyHit', compareAnyHits(input, any), tally);
    expectAgree('closestHit (bvh)', compareClosestHits(input, closestTree), tally);
    expectAgree('anyHit (bvh)', compareAnyHits(input, anyTree), tally);
    const refAll = refAllHits(boxes, rays, options);
    expectAgree('allHits', compareAllHits(input, all, refAll), tally);
  } finally {
    set.destroy();
  }
}

function pairScene(spec: PairScene): { boxes: BoxArray; pairs: Uint32Array } {
  const boxes = sceneBoxes(spec.boxes, spec.bulkBoxes, spec.bulkSeed, spec.offset, spec.scale);
  const n = boxes.count;
  if (n === 0) {
    return { boxes, pairs: new Uint32Array(0) };
  }
  const rnd = mulberry32(spec.bulkSeed ^ 0x27d4eb2d);
  const pairs = new Uint32Array(2 * (spec.pairs.length + spec.bulkPairs));
  spec.pairs.forEach(([i, j], k) => {
    pairs[2 * k] = i % n;
    pairs[2 * k + 1] = j % n;
  });
  for (let k = spec.pairs.length; k < pairs.length / 2; k++) {
    pairs[2 * k] = Math.floor(rnd() * n);
    pairs[2 * k + 1] = Math.floor(rnd() * n);
  }
  return { boxes, pairs };
}

function slice(boxes: BoxArray, from: number, to: number): BoxArray {
  return { count: to - from, data: boxes.data.slice(from * BOX_F64.STRIDE, to * BOX_F64.STRIDE) };
}

async function evalPairs(gpu: ObbGpu, spec: PairScene, tally: Tally): Promise<void> {
  const { boxes, pairs } = pairScene(spec);
  const options = { faceOnly: spec.faceOnly };
  const listOptions = spec.capacity === null ? options : { ...options, capacity: spec.capacity };
  const k = spec.split % (boxes.count + 1);
  const [a, b] = [slice(boxes, 0, k), slice(boxes, k, boxes.count)];
  const set = gpu.createBoxSet(boxes);
  const setA = gpu.createBoxSet(a);
  const setB = gpu.createBoxSet(b);
  try {
    // The query box of obbOneVsMany: the set's first box (so it touches at least itself).
    const d = boxes.data;
    const query = boxes.count > 0 ? toObb({ center: [d[0]!, d[1]!, d[2]!], halfExtents: [d[3]!, d[4]!, d[5]!], axes: [[d[6]!, d[7]!, d[8]!], [d[9]!, d[10]!, d[11]!], [d[12]!, d[13]!, d[14]!]] }) : undefined;
    const [listed, all, gridded, treed, cross, one] = await Promise.all([
      gpu.obbPairs(set, pairs, options),
      gpu.allPairs(set, listOptions),
      gpu.allPairs(set, { ...listOptions, accel: 'grid' }),
      gpu.allPairs(set, { ...listOptions, accel: 'bvh' }),
      gpu.obbCross(setA, setB, listOptions),
      query ? gpu.obbOneVsMany(query, set, options) : undefined,
    ]);
    expectAgree('obbPairs', comparePairs({ a: boxes, pairs, options, origin: set.origin }, listed), tally);
    expectAgree('allPairs', comparePairLists({ a: boxes, options, origin: set.origin }, all.pairs), tally);
    expectAgree('allPairs (grid)', comparePairLists({ a: boxes, options, origin: set.origin }, gridded.pairs), tally);
    expectAgree('allPairs (bvh)', comparePairLists({ a: boxes, options, origin: set.origin }, treed.pairs), tally);
    expectAgree('obbCross', comparePairLists({ a, b, options, origin: setA.origin, originB: setB.origin }, cross.pairs), tally);
    if (query && one) {
      // One box (A) against every box of the set (B): the pairs (0, j).
      const oneVsMany = Uint32Array.from({ length: 2 * boxes.count }, (_, i) => (i % 2 === 0 ? 0 : i >> 1));
      const ref = refOneVsMany(query, boxes, options);
      expectAgree('obbOneVsMany', comparePairs({ a: slice(boxes, 0, 1), b: boxes, pairs: oneVsMany, options, origin: set.origin }, one, ref), tally);
    }
  } finally {
    set.destroy();
    setA.destroy();
    setB.destroy();
  }
}

async function evalUpdates(gpu: ObbGpu, spec: UpdateScene, tally: Tally): Promise<void> {
  const offset = spec.offset;
  let model = randomBoxes(spec.bulkBoxes, mulberry32(spec.bulkSeed), { extent: 20, halfMin: 0.2, halfMax: 2, offset });
  let masks: Uint32Array | undefined;
  const rays = randomRays(spec.rays, model, mulberry32(spec.bulkSeed + 1), { extent: 25, offset, aimed: 0.8 });
  const set = gpu.createBoxSet(model, spec.capacity === null ? {} : { capacity: spec.capacity });
  const pending: Promise<void>[] = [];
  const queries: { hits: Promise<ClosestHits>; boxes: BoxArray; masks: Uint32Array | undefined; origin: Vec3 }[] = [];
  let origin = set.origin;
  try {
    for (const command of spec.commands) {
      if (command.kind === 'update') {
        const part = boxArrayFrom(boxInputs(command.boxes, offset, 10));
        if (model.count === 0 || part.count === 0) {
          continue;
        }
        const first = command.first % model.count;
        const fit = slice(part, 0, Math.min(part.count, model.count - first));
        pending.push(set.update(first, fit));
        const data = model.data.slice();
        data.set(fit.data, first * BOX_F64.STRIDE);
        model = { count: model.count, data };
      } else if (command.kind === 'set') {
        model = randomBoxes(command.count, mulberry32(command.seed), { extent: 20, halfMin: 0.2, halfMax: 2, offset });
        masks = undefined;
        pending.push(set.set(model));
      } else if (command.kind === 'masks') {
        if (model.count === 0 || command.masks.length === 0) {
          continue;
        }
        const first = command.first % model.count;
        const part = Uint32Array.from(command.masks.slice(0, model.count - first));
        pending.push(set.setMasks(part, first));
        const all = masks ? masks.slice() : new Uint32Array(model.count).fill(0xffffffff);
        all.set(part, first);
        masks = all;
      } else if (command.kind === 'rebase') {
        const to: Vec3 | undefined = command.to ? [offset[0] + command.to[0], offset[1] + command.to[1], offset[2] + command.to[2]] : undefined;
        pending.push(set.rebase(to));
        origin = to ?? origin;
      } else {
        const rayMasks = Uint32Array.from({ length: rays.count }, (_, i) => (i % 3 === 0 ? 0xffffffff : 1 << (i % 5)));
        // Brute force and the set's tree (refitted, or rebuilt by the SAH it measured).
        queries.push({ hits: gpu.closestHit(set, rays, { rayMasks }), boxes: model, masks, origin });
        queries.push({ hits: gpu.closestHit(set, rays, { rayMasks, accel: 'bvh' }), boxes: model, masks, origin });
      }
    }
    // Everything settles before the set is destroyed (finally), failures included.
    const settled = await Promise.allSettled([...pending, ...queries.map((q) => q.hits)]);
    const failure = settled.find((x): x is PromiseRejectedResult => x.status === 'rejected');
    if (failure) {
      throw failure.reason;
    }
    for (const q of queries) {
      const rayMasks = Uint32Array.from({ length: rays.count }, (_, i) => (i % 3 === 0 ? 0xffffffff : 1 << (i % 5)));
      const options: RaycastOptions = q.masks ? { rayMasks, boxMasks: q.masks } : { rayMasks };
      expectAgree('closestHit after updates', compareClosestHits({ boxes: q.boxes, rays, options, origin: q.origin }, await q.hits), tally);
    }
  } finally {
    set.destroy();
  }
}

/** The scene's motion as the API takes it (boxes' velocities from its seed). */
function lidarMotion(spec: LidarScene, pose: LidarPose, n: number): LidarMotion {
  const m = spec.motion;
  if (!m) {
    return {};
  }
  const s = spec.scale;
  const poseEnd: LidarPose = { origin: [pose.origin[0] + m.travel[0] * s, pose.origin[1] + m.travel[1] * s, pose.origin[2] + m.travel[2] * s], rotation: m.rotationEnd ?? pose.rotation ?? [0, 0, 0, 1] };
  if (m.movingEvery === null || n === 0) {
    return { poseEnd };
  }
  const rnd = mulberry32(m.seed);
  const boxes = Array.from({ length: n }, (_, i) => i).filter((i) => i % m.movingEvery! === 0);
  return {
    poseEnd,
    boxMotion: {
      boxes,
      velocity: boxes.flatMap(() => [0, 0, 0].map(() => (rnd() - 0.5) * 20 * m.speed * s)),
      angularVelocity: boxes.flatMap(() => [0, 0, 0].map(() => (rnd() - 0.5) * 60 * m.spin)),
    },
  };
}

async function evalLidar(gpu: ObbGpu, spec: LidarScene, tally: Tally): Promise<void> {
  const { offset, scale } = spec;
  const boxes = sceneBoxes(spec.boxes, spec.bulkBoxes, spec.bulkSeed, offset, scale);
  const n = boxes.count;
  const masks = spec.boxMasks && spec.boxMasks.length > 0 && n > 0 ? Uint32Array.from({ length: n }, (_, i) => spec.boxMasks![i % spec.boxMasks!.length]!) : undefined;
  const set = gpu.createBoxSet(boxes, masks ? { masks } : {});
  const channels = spec.elevationsDeg.length;
  const offsets = spec.azimuthOffsetsDeg && spec.azimuthOffsetsDeg.length > 0
    ? Array.from({ length: channels }, (_, c) => (spec.azimuthOffsetsDeg![c % spec.azimuthOffsetsDeg!.length]! * Math.PI) / 180)
    : undefined;
  const desc: LidarDescription = {
    elevations: spec.elevationsDeg.map((e) => (e * Math.PI) / 180), azimuthSteps: spec.azimuths, azimuthStart: spec.azimuthStart,
    ...(spec.clockwise || spec.spanDeg !== null ? { azimuthEnd: spec.azimuthStart + (spec.clockwise ? -1 : 1) * (spec.spanDeg === null ? 2 * Math.PI : (spec.spanDeg * Math.PI) / 180) } : {}),
    ...(offsets ? { azimuthOffsets: offsets } : {}),
    minRange: spec.maxRange * scale * spec.minRangeFraction, maxRange: spec.maxRange * scale,
    ...(spec.beamOffset > 0 ? { beamOriginOffset: spec.beamOffset * scale } : {}),
    ...(spec.motion ? { sweepTime: 0.1 } : {}),
  };
  const pose: LidarPose = { origin: [offset[0] + spec.origin[0] * scale, offset[1] + spec.origin[1] * scale, offset[2] + spec.origin[2] * scale], rotation: spec.rotation };
  const motion = lidarMotion(spec, pose, n);
  const raster = await gpu.createLidar(desc, spec.listCapacity === null ? { method: 'raster' } : { method: 'raster', listCapacity: spec.listCapacity });
  const walk = await gpu.createLidar(desc, { method: 'bvh' });
  try {
    const options = { mask: spec.mask, ...motion };
    const [sweep, walked] = await Promise.all([gpu.lidarSweep(raster, set, pose, options), gpu.lidarSweep(walk, set, pose, options)]);
    // The sweep's mask applies to every ray, against the boxes' masks (all bits when the set has none).
    const judged = { boxes, desc, pose, motion, origin: set.origin, mask: spec.mask, ...(masks ? { boxMasks: masks } : { boxMasks: new Uint32Array(n).fill(0xffffffff) }) };
    expectAgree('LiDAR (raster)', compareLidarSweep(judged, sweep), tally);
    // Without motion, a beam-origin offset is made in f32 by the raster method and in float64 by
    // the tree's table: both judged, not compared bit for bit. With motion both read the table.
    if (spec.beamOffset > 0 && !motionMatters(desc, motion)) {
      expectAgree('LiDAR (tree)', compareLidarSweep(judged, walked), tally);
      return;
    }
    const rays = { count: sweep.box.length };
    for (let r = 0; r < rays.count; r++) {
      if (sweep.box[r] !== walked.box[r] || !Object.is(sweep.range[r], walked.range[r])) {
        const error = new Error(`LiDAR: ray ${r} differs between the methods: raster box ${sweep.box[r]} t ${sweep.range[r]}, bvh box ${walked.box[r]} t ${walked.range[r]}`);
        (error as Error & { badCase?: unknown }).badCase = { ray: r, raster: [sweep.box[r], sweep.range[r]], bvh: [walked.box[r], walked.range[r]] };
        throw error;
      }
    }
  } finally {
    raster.destroy();
    walk.destroy();
    set.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

function arbitraries(fc: typeof FC, size: { maxBoxes: number; bulkBoxes: number; maxRays: number; bulkRays: number; bulkPairs: number }) {
  // Mostly uniform, sometimes fast-check's extreme doubles (tiny, ±0, near ±1), sometimes the
  // exact values that put origins on face planes and edges.
  const unit = fc.oneof(
    { weight: 5, arbitrary: fc.integer({ min: -1_000_000, max: 1_000_000 }).map((x) => x / 1_000_000) },
    { weight: 1, arbitrary: fc.double({ min: -1, max: 1, noNaN: true }) },
    { weight: 1, arbitrary: fc.constantFrom(-1, -0.5, 0, 0.25, 0.5, 1) },
  );
  const nonNeg = fc.oneof(
    { weight: 5, arbitrary: fc.integer({ min: 0, max: 1_000_000 }).map((x) => x / 1_000_000) },
    { weight: 1, arbitrary: fc.constantFrom(0, 0.25, 0.5) },
  );
  const v3 = fc.tuple(unit, unit, unit);
  const quat = fc.oneof(
    fc.constant<[number, number, number, number]>([0, 0, 0, 1]),
    // Quarter turns: exactly parallel edges and faces between boxes.
    fc.constantFrom<[number, number, number, number]>([Math.SQRT1_2, 0, 0, Math.SQRT1_2], [0, Math.SQRT1_2, 0, Math.SQRT1_2], [0, 0, Math.SQRT1_2, Math.SQRT1_2], [0.5, 0.5, 0.5, 0.5]),
    fc.tuple(unit, unit, unit, unit).filter((q) => Math.hypot(...q) > 1e-3),
  );
  const box = fc.record({ c: v3, h: fc.tuple(nonNeg, nonNeg, nonNeg).map(([a, b, c]): V3 => [a * 0.4, b * 0.4, c * 0.4]), q: quat });
  const offset = fc.oneof(
    fc.constant<V3>([0, 0, 0]),
    fc.tuple(fc.constantFrom(1e4, 1e5, 1e6), unit, unit).map(([m, a, b]): V3 => [m, m * a, m * b]),
  );
  const scale = fc.constantFrom(1, 10, 100);
  const ray = fc.record({
    o: fc.tuple(unit, unit, unit).map(([a, b, c]): V3 => [1.5 * a, 1.5 * b, 1.5 * c]),
    d: v3,
    aim: fc.integer({ min: -1, max: 1000 }),
    max: fc.option(nonNeg.map((x) => 3 * x), { nil: null }),
    mask: fc.nat({ max: 15 }),
    exclude: fc.integer({ min: -1, max: 1000 }),
  });
  const capacity = fc.option(fc.integer({ min: 1, max: 4096 }), { nil: null });
  const rayScene: FC.Arbitrary<RayScene> = fc.record({
    offset, scale,
    boxes: fc.array(box, { maxLength: size.maxBoxes }),
    bulkBoxes: fc.integer({ min: 0, max: size.bulkBoxes }),
    rays: fc.array(ray, { maxLength: size.maxRays }),
    bulkRays: fc.integer({ min: 0, max: size.bulkRays }),
    bulkSeed: fc.nat(),
    solid: fc.boolean(),
    boxMasks: fc.option(fc.array(fc.nat({ max: 15 }), { minLength: 1, maxLength: 8 }), { nil: null }),
    rayMasks: fc.boolean(),
    exclude: fc.boolean(),
    capacity,
  });
  const pairScene: FC.Arbitrary<PairScene> = fc.record({
    offset, scale,
    boxes: fc.array(box, { maxLength: size.maxBoxes }),
    bulkBoxes: fc.integer({ min: 0, max: size.bulkBoxes }),
    bulkSeed: fc.nat(),
    pairs: fc.array(fc.tuple(fc.nat(), fc.nat()), { maxLength: size.maxRays }),
    bulkPairs: fc.integer({ min: 0, max: size.bulkPairs }),
    faceOnly: fc.boolean(),
    capacity,
    split: fc.nat(),
  });
  const command: FC.Arbitrary<UpdateCommand> = fc.oneof(
    fc.record({ kind: fc.constant('update' as const), first: fc.nat(), boxes: fc.array(box, { minLength: 1, maxLength: 20 }) }),
    fc.record({ kind: fc.constant('set' as const), count: fc.integer({ min: 0, max: 300 }), seed: fc.nat() }),
    fc.record({ kind: fc.constant('masks' as const), first: fc.nat(), masks: fc.array(fc.nat({ max: 31 }), { minLength: 1, maxLength: 50 }) }),
    fc.record({ kind: fc.constant('rebase' as const), to: fc.option(v3.map(([a, b, c]): V3 => [30 * a, 30 * b, 30 * c]), { nil: null }) }),
    fc.constant({ kind: 'query' as const }),
  );
  const updateScene: FC.Arbitrary<UpdateScene> = fc.record({
    offset,
    bulkBoxes: fc.integer({ min: 0, max: 200 }),
    bulkSeed: fc.nat(),
    capacity,
    commands: fc.array(command, { minLength: 1, maxLength: 12 }),
    rays: fc.integer({ min: 1, max: Math.max(1, Math.min(2000, size.bulkRays)) }),
  });
  const lidarScene: FC.Arbitrary<LidarScene> = fc.record({
    offset, scale,
    boxes: fc.array(box, { maxLength: size.maxBoxes }),
    bulkBoxes: fc.integer({ min: 0, max: size.bulkBoxes }),
    bulkSeed: fc.nat(),
    elevationsDeg: fc.array(fc.oneof(
      { weight: 4, arbitrary: fc.integer({ min: -89_000, max: 89_000 }).map((x) => x / 1000) },
      { weight: 1, arbitrary: fc.constantFrom(-89, -45, 0, 15, 45, 89) },
    ), { minLength: 1, maxLength: 12 }),
    azimuths: fc.oneof(fc.integer({ min: 1, max: 300 }), fc.constantFrom(1, 2, 3, 4, 5, 64, 257)),
    azimuthStart: fc.oneof(fc.constant(0), unit.map((x) => 4 * Math.PI * x)),
    clockwise: fc.boolean(),
    spanDeg: fc.option(fc.oneof(fc.integer({ min: 1, max: 359 }), fc.constantFrom(90, 120, 180, 270, 359)), { nil: null }),
    azimuthOffsetsDeg: fc.option(fc.array(fc.oneof(fc.constant(0), fc.integer({ min: -25_000, max: 25_000 }).map((x) => x / 1000)), { minLength: 1, maxLength: 6 }), { nil: null }),
    minRangeFraction: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: fc.integer({ min: 0, max: 1000 }).map((x) => x / 1000) }),
    maxRange: fc.oneof(fc.constant(3), nonNeg.map((x) => 3 * x)),
    origin: fc.oneof(fc.constant<V3>([0, 0, 0]), v3),
    rotation: quat,
    boxMasks: fc.option(fc.array(fc.nat({ max: 15 }), { minLength: 1, maxLength: 8 }), { nil: null }),
    mask: fc.nat({ max: 15 }),
    listCapacity: fc.option(fc.integer({ min: 1, max: 64 }), { nil: null }),
    beamOffset: fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, { weight: 1, arbitrary: nonNeg.map((x) => 0.2 * x) }),
    motion: fc.option(fc.record({
      travel: v3, rotationEnd: fc.option(quat, { nil: null }), movingEvery: fc.option(fc.integer({ min: 1, max: 4 }), { nil: null }),
      speed: nonNeg, spin: nonNeg, seed: fc.nat(),
    }), { nil: null, freq: 2 }),
  });
  return { rayScene, pairScene, updateScene, lidarScene };
}

/** Sizes of one property run (explicit fast-check values + seeded bulk). */
export interface FuzzSize {
  maxBoxes: number;
  bulkBoxes: number;
  maxRays: number;
  bulkRays: number;
  bulkPairs: number;
}

function evaluate(gpu: ObbGpu, property: PropertyName, spec: unknown, tally: Tally): Promise<void> {
  if (property === 'lidar') {
    return evalLidar(gpu, spec as LidarScene, tally);
  }
  if (property === 'rays') {
    return evalRays(gpu, spec as RayScene, tally);
  }
  if (property === 'pairs') {
    return evalPairs(gpu, spec as PairScene, tally);
  }
  return evalUpdates(gpu, spec as UpdateScene, tally);
}

/**
 * Runs `numRuns` random runs of a property (seeded), shrinking a failure. The report counts the
 * cases of the runs that passed (shrinking runs are not counted).
 */
export async function property(name: PropertyName, seed: number, numRuns: number, size: FuzzSize) {
  const fc: typeof FC = await import('fast-check');
  return scoped(async (gpu): Promise<FuzzReport> => {
    const arbs = arbitraries(fc, size);
    const arb = (name === 'rays' ? arbs.rayScene : name === 'pairs' ? arbs.pairScene : name === 'lidar' ? arbs.lidarScene : arbs.updateScene) as FC.Arbitrary<unknown>;
    // One tally per evaluation, in order: the first `numRuns` are the random runs, the rest
    // (if a run failed) are fast-check's shrinking attempts, which are not counted as cases.
    const tallies: Tally[] = [];
    const t0 = performance.now();
    const details = await fc.check(fc.asyncProperty(arb, async (spec) => {
      const tally: Tally = { cases: 0, ambiguous: 0 };
      tallies.push(tally);
      await evaluate(gpu, name, spec, tally);
    }), { seed, numRuns });
    const counted = tallies.slice(0, details.numRuns);
    const error = details.errorInstance as (Error & { badCase?: unknown }) | null;
    return {
      property: name, seed, runs: details.numRuns,
      cases: counted.reduce((sum, t) => sum + t.cases, 0), ambiguous: counted.reduce((sum, t) => sum + t.ambiguous, 0),
      ms: performance.now() - t0,
      failed: details.failed, numShrinks: details.numShrinks,
      counterexample: details.counterexample ? details.counterexample[0] : null,
      error: error ? `${error.name}: ${error.message}`.slice(0, 4000) : '',
      firstBadCase: error?.badCase ?? null,
    };
  });
}

/** Runs one spec (a repro, or a counterexample from a fuzz report); throws on a mismatch. */
export async function replay(name: PropertyName, spec: unknown) {
  return scoped(async (gpu) => {
    const tally: Tally = { cases: 0, ambiguous: 0 };
    await evaluate(gpu, name, spec, tally);
    return tally;
  });
}
