/**
 * Judging any implementation's answers to a scene against the float64 reference: the
 * comparator (src/compare/) over every ray, listed pair and all-pairs entry, with the error
 * model of the implementation's precision. `webgpu-obb judge` and `webgpu-obb verify` print what
 * {@link formatSceneComparison} makes of it; {@link junitReport} and {@link htmlReport} (./junit.ts,
 * ./html.ts) turn the same comparisons into files for CI and for people.
 *
 * Browser- and Node-safe.
 *
 * @example
 * import { readFile } from 'node:fs/promises'; // in Node
 * const scene = parseSceneText(await readFile('scene.json', 'utf8'));
 * const verdict = judgeScene(scene, JSON.parse(await readFile('result.json', 'utf8')), { precision: 'f32' });
 * if (!verdict.ok) process.exitCode = 1;
 */
import { compareAnyHits, comparePairLists, comparePairs, compareClosestHits, formatComparison, type Comparison } from '../compare/compare.ts';
import { UNIT_ROUNDOFF, type Precision } from '../compare/errorModel.ts';
import type { ClosestHits, PairResults } from '../core/queries.ts';
import { obbPairs as referenceObbPairs } from '../reference/pairs.ts';
import { allPairsSweep, closestHitGrid, type AccelProgress } from '../reference/accel.ts';
import { CapacityError } from '../errors.ts';
import { count, describeScene, type Scene, type SceneLidar } from '../files/scene.ts';
import { beamPassDescriptions, checkReferenceSweep, hasReturnStage, lidarSweepReference } from '../reference/lidar.ts';
import type { CpuSceneRaw } from '../files/results.ts';
import { compareLidarIntensity, compareLidarReturns, compareLidarSweep, compareReturnsPerBox } from '../compare/lidar.ts';
import { Tally } from '../compare/compare.ts';
import type { LidarMotion } from '../core/lidar.ts';
import type { Vec3 } from '../core/types.ts';
import type { ParsedSweep } from './result.ts';

/** The motion of one of a scene's sweeps: its sensor's poseEnd and the scene's moving boxes. */
export function sceneMotion(scene: Scene, lidar: SceneLidar): LidarMotion {
  return {
    ...(lidar.poseEnd ? { poseEnd: lidar.poseEnd } : {}),
    ...(scene.boxMotion ? { boxMotion: scene.boxMotion } : {}),
  };
}
import { parseResult, type ParsedResult } from './result.ts';

/** The reference's options for one of a scene's sweeps: its seed, the boxes' reflectivities, the intensities when the result carries them. */
export function sweepOptions(scene: Scene, lidar: SceneLidar): { seed: number; intensity: boolean; materials?: { reflectivity: Float32Array } } {
  return { seed: lidar.seed, intensity: lidar.intensity, ...(scene.materials ? { materials: { reflectivity: scene.materials.reflectivity } } : {}) };
}

/**
 * Progress messages of a long run ("closest hit: 10000 rays × 5000 boxes…"). `periodic` marks
 * the lines a long phase repeats with its counts and ETA (`phaseProgress`), which a caller
 * that prints one summary per scene may keep while dropping the rest.
 */
export type ProgressFn = (message: string, periodic?: boolean) => void;

/** Seconds a phase runs silent (one that ends sooner prints no count), then between two lines. */
const PROGRESS_QUIET_S = 2;
const PROGRESS_EVERY_S = 1;

const grouped = (n: number): string => n.toLocaleString('en-US');

function duration(seconds: number): string {
  const s = Math.max(1, Math.round(seconds));
  return s < 90 ? `${s} s` : `${Math.floor(s / 60)} min ${s % 60} s`;
}

/**
 * The progress callback of one long phase (an accelerated reference query's (done, total, found),
 * src/reference/accel.ts) as lines through `onProgress`: nothing in the first two seconds, then
 * at most one a second, with the counts and an ETA from the rate since the first call. Undefined
 * without `onProgress` (--quiet), so the phase does not even count.
 *
 * @example
 * const tick = phaseProgress(console.error, 'all pairs (cpu)', 'boxes swept', 'overlapping');
 * allPairsSweep(boxArrayFrom(boxes), tick ? { onProgress: tick } : {});
 * // all pairs (cpu): 412,000 / 1,000,000 boxes swept, 3,120 overlapping, ETA 41 s
 */
export function phaseProgress(
  onProgress: ProgressFn | undefined, label: string, unit: string, found?: string, now: () => number = () => performance.now(),
): AccelProgress | undefined {
  if (!onProgress) {
    return undefined;
  }
  const started = now();
  let last = started;
  // The rate is measured from the first call, after the phase's setup (a grid's layout).
  let first: { t: number; done: number } | undefined;
  return (done, total, hits) => {
    const t = now();
    first ??= { t, done };
    if (done >= total || done <= first.done || t - started < PROGRESS_QUIET_S * 1000 || t - last < PROGRESS_EVERY_S * 1000) {
      return;
    }
    last = t;
    const eta = duration((((t - first.t) / (done - first.done)) * (total - done)) / 1000);
    onProgress(`${label}: ${grouped(done)} / ${grouped(total)} ${unit}${found ? `, ${grouped(hits)} ${found}` : ''}, ETA ${eta}`, true);
  };
}

/**
 * The progress of a sweep of `passes` sub-ray passes (a beam) as one phase: each pass counts its
 * rays from 0 again, so a count below the last starts the next pass; the phase hears the rays of
 * every pass so far out of passes × rays, and its ETA covers the passes still to come.
 *
 * @example
 * const tick = passesProgress(phaseProgress(console.error, 'LiDAR sweep 0 (cpu)', 'rays'), 9);
 * lidarSweepReference(boxArrayFrom(boxes), desc, pose, {}, tick ? { onProgress: tick } : {});
 */
export function passesProgress(tick: AccelProgress | undefined, passes: number): AccelProgress | undefined {
  if (!tick || passes <= 1) {
    return tick;
  }
  let pass = 0;
  let last = 0;
  let hitsBefore = 0;
  let lastHits = 0;
  return (done, total, hits) => {
    if (done < last) {
      pass++;
      hitsBefore += lastHits;
    }
    last = done;
    lastHits = hits;
    tick(Math.min(pass, passes - 1) * total + done, passes * total, hitsBefore + hits);
  };
}

/**
 * Overlapping pairs the float64 reference lists for one scene: 2^24 = 16,777,216. Its list is 8
 * bytes a pair, the comparator's sets and a result file's text 20–60 more; past this a scene
 * whose boxes nearly all overlap would exhaust memory rather than finish.
 */
export const MAX_REFERENCE_PAIRS = 2 ** 24;

/**
 * Refuses, before anything is allocated, a scene the float64 reference cannot hold: a LiDAR
 * sweep beyond MAX_REFERENCE_LIDAR_RAYS or MAX_REFERENCE_LIDAR_COLUMNS (src/reference/lidar.ts),
 * with a CapacityError naming it (`lidars[0].sensor.columns: 1 channel × 100000000 columns = …`).
 * runReference calls it first; a command calls it before a GPU run whose result it will judge.
 *
 * @example
 * checkReferenceCapacity(scene); // throws CapacityError for a sweep of 1 × 1e8 rays
 */
export function checkReferenceCapacity(scene: Scene): void {
  scene.lidars?.forEach((l, k) => {
    try {
      checkReferenceSweep(l.desc);
    } catch (error) {
      if (error instanceof CapacityError) {
        throw new CapacityError(`lidars[${k}].sensor.columns: ${error.message}`, error.limit, error.requested, error.available);
      }
      throw error;
    }
  });
}

/** The float64 reference's typed results for a scene. */
export interface ReferenceResults {
  readonly hits?: ClosestHits;
  readonly pairs?: PairResults;
  readonly allPairs?: Uint32Array;
  readonly lidars?: NonNullable<CpuSceneRaw['lidars']>;
}

/**
 * Runs the float64 reference on a scene and keeps its typed results (for the comparator). Rays,
 * all pairs and LiDAR sweeps go through the exact broad phases of src/reference/accel.ts (the
 * same answers as brute force, in seconds on 100,000 boxes); each long phase reports its counts
 * and an ETA through `onProgress` (`phaseProgress`). What the CPU cannot hold is a
 * CapacityError: a sweep too large (checked first, `checkReferenceCapacity`), more than
 * MAX_REFERENCE_PAIRS overlapping pairs (as they are found).
 *
 * @example
 * const ref = runReference(scene); ref.hits?.box[0]
 */
export function runReference(scene: Scene, onProgress?: ProgressFn): ReferenceResults {
  checkReferenceCapacity(scene);
  const out: { -readonly [K in keyof ReferenceResults]: ReferenceResults[K] } = {};
  if (scene.rays) {
    onProgress?.(`closest hit (cpu): ${count(scene.rays.count, 'ray', 'rays')} × ${count(scene.boxes.count, 'box', 'boxes')}…`);
    const tick = phaseProgress(onProgress, 'closest hit (cpu)', 'rays', 'hits');
    out.hits = closestHitGrid(scene.boxes, scene.rays, tick ? { onProgress: tick } : {});
  }
  if (scene.pairs) {
    onProgress?.(`pairs (cpu): ${count(scene.pairs.length / 2, 'SAT test', 'SAT tests')}…`);
    out.pairs = referenceObbPairs(scene.boxes, scene.pairs);
  }
  if (scene.allPairs) {
    onProgress?.(`all pairs (cpu): ${count(scene.boxes.count, 'box', 'boxes')}, grid broad phase…`);
    const tick = phaseProgress(onProgress, 'all pairs (cpu)', 'boxes swept', 'overlapping');
    try {
      out.allPairs = allPairsSweep(scene.boxes, { maxPairs: MAX_REFERENCE_PAIRS, ...(tick ? { onProgress: tick } : {}) });
    } catch (error) {
      if (error instanceof CapacityError) {
        throw new CapacityError(`allPairs: ${error.message}`, error.limit, error.requested, error.available);
      }
      throw error;
    }
  }
  if (scene.lidars) {
    out.lidars = scene.lidars.map((l, k) => {
      onProgress?.(`LiDAR sweep ${k} (cpu): ${l.name}, ${count(l.desc.elevations.length * l.desc.azimuthSteps, 'ray', 'rays')} × ${count(scene.boxes.count, 'box', 'boxes')}…`);
      const passes = hasReturnStage(l.desc) ? beamPassDescriptions(l.desc).length : 1;
      const tick = passesProgress(phaseProgress(onProgress, `LiDAR sweep ${k} (cpu)`, passes > 1 ? `rays (${passes} sub-ray passes)` : 'rays', 'hits'), passes);
      return lidarSweepReference(scene.boxes, l.desc, l.pose, sceneMotion(scene, l), { ...sweepOptions(scene, l), ...(tick ? { onProgress: tick } : {}) });
    });
  }
  return out;
}

/** The comparisons of one scene and their verdict. */
export interface SceneComparison {
  /** One per query the scene asked for, in the order closest hit, pairs, all pairs. */
  readonly comparisons: readonly Comparison[];
  readonly total: number;
  readonly mismatch: number;
  readonly ambiguous: number;
  readonly ok: boolean;
  /** The unit roundoff the error model used. */
  readonly unitRoundoff: number;
}

/** How {@link judgeScene} judges. */
export interface JudgeOptions {
  /**
   * The arithmetic of the implementation judged (default 'f32'): the error model's bounds scale
   * with its unit roundoff (UNIT_ROUNDOFF). `unitRoundoff` sets one explicitly and wins.
   */
  readonly precision?: Precision;
  readonly unitRoundoff?: number;
  /** Floating origin the implementation re-based positions to, if it did (default [0, 0, 0]). */
  readonly origin?: readonly [number, number, number];
  /** Mismatches and ambiguous cases kept with their inputs per query (default 20 each). */
  readonly maxCases?: number;
  /** The reference's results, when already computed. */
  readonly reference?: ReferenceResults;
  readonly onProgress?: ProgressFn;
}

/** The unit roundoff of a precision or an explicit value, checked. */
export function unitRoundoffOf(options: Pick<JudgeOptions, 'precision' | 'unitRoundoff'>): number {
  if (options.unitRoundoff !== undefined) {
    if (!(options.unitRoundoff > 0 && options.unitRoundoff < 0.01)) {
      throw new RangeError(`unitRoundoff must be in (0, 0.01) (got ${String(options.unitRoundoff)})`);
    }
    return options.unitRoundoff;
  }
  const p = options.precision ?? 'f32';
  const u = UNIT_ROUNDOFF[p];
  if (u === undefined) {
    throw new RangeError(`precision must be f16, f32 or f64 (got ${String(p)})`);
  }
  return u;
}

/** Any-hit flags from closest hits (the reference's, for a result that reports hit or miss only). */
function anyHitsOf(hits: ClosestHits | undefined): Uint8Array | undefined {
  return hits ? Uint8Array.from(hits.box, (b) => (b >= 0 ? 1 : 0)) : undefined;
}

/**
 * Classifies typed answers (a parsed result file, or an implementation's arrays) against the
 * reference. A result that reports less than every field (`answers.fields`) is judged on what it
 * reports, and each comparison says so in its `note`.
 */
export function compareAnswers(scene: Scene, answers: Omit<ParsedResult, 'unknownFields' | 'backend' | 'adapter'>, options: JudgeOptions = {}): SceneComparison {
  const u = unitRoundoffOf(options);
  const origin = options.origin ?? [0, 0, 0];
  const ref = options.reference ?? runReference(scene, options.onProgress);
  const cmp = { maxCases: options.maxCases ?? 20 };
  const comparisons: Comparison[] = [];
  const rayFields = answers.fields?.rays;
  if (scene.rays && answers.hits && rayFields && !rayFields.box) {
    options.onProgress?.('judging any-hit flags…');
    const flags = Uint8Array.from(answers.hits.box, (b) => (b >= 0 ? 1 : 0));
    const c = compareAnyHits({ boxes: scene.boxes, rays: scene.rays, origin: [...origin], unitRoundoff: u }, flags, anyHitsOf(ref.hits), cmp);
    comparisons.push({ ...c, note: 'judged on hit or miss only: the result reports no box, t, normal or inside' });
  } else if (scene.rays && answers.hits) {
    options.onProgress?.('judging closest hits…');
    const fields = rayFields ? { t: rayFields.t, face: rayFields.normal, inside: rayFields.inside } : undefined;
    const c = compareClosestHits({ boxes: scene.boxes, rays: scene.rays, origin: [...origin], unitRoundoff: u }, answers.hits, ref.hits, { ...cmp, ...(fields ? { fields } : {}) });
    const missing = rayFields ? (['t', 'normal', 'inside'] as const).filter((k) => !rayFields[k]) : [];
    comparisons.push(missing.length ? { ...c, note: `judged on what the result reports: it has no ${missing.join(', ')}` } : c);
  }
  if (scene.pairs && answers.pairs) {
    options.onProgress?.('judging pairs…');
    const pf = answers.fields?.pairs;
    const c = comparePairs({ a: scene.boxes, pairs: scene.pairs, origin: [...origin], unitRoundoff: u }, answers.pairs, ref.pairs, { ...cmp, ...(pf ? { pairFields: pf } : {}) });
    const missing = pf ? (['gap', 'axis'] as const).filter((k) => !pf[k]) : [];
    comparisons.push(missing.length ? { ...c, note: `judged on what the result reports: it has no ${missing.join(', ')}` } : c);
  }
  if (scene.allPairs && answers.allPairs) {
    options.onProgress?.('judging all pairs…');
    comparisons.push(comparePairLists({ a: scene.boxes, origin: [...origin], unitRoundoff: u }, answers.allPairs, ref.allPairs, cmp));
  }
  if (scene.lidars && answers.lidars) {
    scene.lidars.forEach((l, k) => {
      options.onProgress?.(`judging LiDAR sweep ${k}…`);
      const sweep = answers.lidars![k]!;
      const input = {
        boxes: scene.boxes, desc: l.desc, pose: l.pose, motion: sceneMotion(scene, l), origin: [...origin] as Vec3, unitRoundoff: u, seed: l.seed,
        ...(scene.materials ? { materials: { reflectivity: scene.materials.reflectivity } } : {}),
      };
      if (sweep.passes) {
        // A returns stage (range noise, dropout, a beam): each sub-ray pass ray by ray, then each beam's returns.
        const { intensity, second, returnCount, passes } = sweep;
        const cmpReturns = compareLidarReturns(input, { range: sweep.range, box: sweep.box, intensity: intensity!, passes, second, returnCount }, cmp);
        cmpReturns.passes.forEach((p, j) => {
          const at = cmpReturns.passes.length > 1 ? `lidar[${k}].pass[${j}]` : `lidar[${k}].pass`;
          comparisons.push({ ...p.rays, family: at }, { ...p.intensity, family: `${at}.intensity` });
        });
        comparisons.push({ ...cmpReturns.returns, family: `lidar[${k}].returns` });
        // Each beam's returns are judged above; the counts must be those of the result's own returns.
        comparisons.push({ ...ownCounts(sweep, scene.boxes.count, cmp.maxCases), family: `lidar[${k}].returnsPerBox` });
        return;
      }
      const rays = compareLidarSweep(input, sweep, cmp);
      comparisons.push({ ...rays, family: `lidar[${k}]` });
      if (sweep.intensity) {
        comparisons.push({ ...compareLidarIntensity(input, { ...sweep, intensity: sweep.intensity }, rays.ambiguousRays, cmp), family: `lidar[${k}].intensity` });
      }
      const counts = compareReturnsPerBox(ref.lidars?.[k]?.box ?? lidarSweepReference(scene.boxes, l.desc, l.pose, sceneMotion(scene, l), { seed: l.seed }).box, sweep, scene.boxes.count, rays.ambiguousRays, cmp);
      comparisons.push({ ...counts, family: `lidar[${k}].returnsPerBox` });
    });
  }
  const sum = (f: (c: Comparison) => number): number => comparisons.reduce((s, c) => s + f(c), 0);
  const mismatch = sum((c) => c.mismatch);
  return { comparisons, total: sum((c) => c.total), mismatch, ambiguous: sum((c) => c.ambiguous), ok: mismatch === 0, unitRoundoff: u };
}

/**
 * The returns per box of a sweep with a returns stage, against the result's own returns (both
 * of each beam): its beams are judged return by return, so a count that is not theirs is a
 * mismatch ('return-count').
 */
function ownCounts(sweep: ParsedSweep, boxCount: number, maxCases: number): Comparison {
  const own = new Uint32Array(boxCount);
  const n = sweep.box.length;
  for (let r = 0; r < n; r++) {
    const count = sweep.returnCount ? sweep.returnCount[r]! : sweep.box[r]! >= 0 ? 1 : 0;
    for (const b of [count >= 1 ? sweep.box[r]! : -1, count >= 2 && sweep.second ? sweep.second.box[r]! : -1]) {
      if (b >= 0 && b < boxCount) {
        own[b]!++;
      }
    }
  }
  const tally = new Tally(maxCases);
  for (let b = 0; b < boxCount; b++) {
    const got = sweep.returnsPerBox[b]!;
    if (got === own[b]) {
      tally.ok(0);
    } else {
      tally.add({ index: b, verdict: 'mismatch', reason: 'return-count', detail: `box ${b}: ${got} returns, the result's own returns hit it ${own[b]!} times`, input: { box: b } });
    }
  }
  return tally.result('returnsPerBox', boxCount);
}

/**
 * Judges a result file (its JSON value, or already parsed) of any implementation against the
 * float64 reference on `scene`. Throws ResultError when the file does not answer the scene
 * (missing entries, wrong counts, non-numbers, out-of-range indices, unsorted lists).
 *
 * @example
 * const v = judgeScene(scene, JSON.parse(resultText), { precision: 'f16' });
 * console.log(formatSceneComparison('scene.json', scene, 'my kernel', v));
 */
export function judgeScene(scene: Scene, result: unknown, options: JudgeOptions = {}): SceneComparison {
  const parsed = isParsed(result) ? result : parseResult(result, scene);
  return compareAnswers(scene, parsed, options);
}

function isParsed(x: unknown): x is ParsedResult {
  return typeof x === 'object' && x !== null && Array.isArray((x as ParsedResult).unknownFields);
}

/**
 * The report `webgpu-obb verify` and `judge` print: scene, implementation, one block per query,
 * a verdict line.
 *
 * @example
 * console.log(formatSceneComparison('scene.json', scene, 'google swiftshader', verdict));
 * // …
 * // OK: 0 mismatch, 2 ambiguous in 45000 cases
 */
export function formatSceneComparison(
  name: string, scene: Scene, implementation: string, cmp: SceneComparison,
  words: { readonly label?: string; readonly who?: string } = {},
): string {
  const { label = 'adapter', who = 'the GPU' } = words;
  const lines = [`scene: ${name} (${describeScene(scene)})`, `${label}: ${implementation}`];
  if (cmp.unitRoundoff !== UNIT_ROUNDOFF.f32) {
    lines.push(`error model: unit roundoff ${cmp.unitRoundoff.toExponential(3)}`);
  }
  for (const c of cmp.comparisons) {
    lines.push(formatComparison(c));
  }
  if (cmp.comparisons.length === 0) {
    lines.push('nothing to compare: the scene has no rays, pairs, allPairs or lidars');
  }
  lines.push(
    `${cmp.ok ? 'OK' : 'FAIL'}: ${cmp.mismatch} mismatch, ${cmp.ambiguous} ambiguous in ${cmp.total} cases` +
      (cmp.ok ? ` — ${who} agrees with the float64 reference` : ` — ${who} disagrees with the float64 reference`),
  );
  return lines.join('\n');
}
