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
 * const scene = parseSceneText(await readFile('scene.json', 'utf8'));
 * const verdict = judgeScene(scene, JSON.parse(await readFile('result.json', 'utf8')), { precision: 'f32' });
 * if (!verdict.ok) process.exitCode = 1;
 */
import { compareAnyHits, comparePairLists, comparePairs, compareClosestHits, formatComparison, type Comparison } from '../compare/compare.ts';
import { UNIT_ROUNDOFF, type Precision } from '../compare/errorModel.ts';
import type { ClosestHits, PairResults } from '../core/queries.ts';
import { allPairs as referenceAllPairs, obbPairs as referenceObbPairs } from '../reference/pairs.ts';
import { closestHit as referenceClosestHit } from '../reference/raycast.ts';
import { count, describeScene, type Scene, type SceneLidar } from '../files/scene.ts';
import { lidarSweepReference } from '../reference/lidar.ts';
import type { CpuSceneRaw } from '../files/results.ts';
import { compareLidarSweep, compareReturnsPerBox } from '../compare/lidar.ts';
import type { LidarMotion } from '../core/lidar.ts';

/** The motion of one of a scene's sweeps: its sensor's poseEnd and the scene's moving boxes. */
export function sceneMotion(scene: Scene, lidar: SceneLidar): LidarMotion {
  return {
    ...(lidar.poseEnd ? { poseEnd: lidar.poseEnd } : {}),
    ...(scene.boxMotion ? { boxMotion: scene.boxMotion } : {}),
  };
}
import { parseResult, type ParsedResult } from './result.ts';

/** Progress messages of a long run ("closest hit: 10000 rays × 5000 boxes…"). */
export type ProgressFn = (message: string) => void;

/** The float64 reference's typed results for a scene. */
export interface ReferenceResults {
  readonly hits?: ClosestHits;
  readonly pairs?: PairResults;
  readonly allPairs?: Uint32Array;
  readonly lidars?: NonNullable<CpuSceneRaw['lidars']>;
}

/**
 * Runs the float64 reference on a scene and keeps its typed results (for the comparator).
 *
 * @example
 * const ref = runReference(scene); ref.hits?.box[0]
 */
export function runReference(scene: Scene, onProgress?: ProgressFn): ReferenceResults {
  const out: { -readonly [K in keyof ReferenceResults]: ReferenceResults[K] } = {};
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
  if (scene.lidars) {
    out.lidars = scene.lidars.map((l, k) => {
      onProgress?.(`LiDAR sweep ${k} (cpu): ${l.name}, ${count(l.desc.elevations.length * l.desc.azimuthSteps, 'ray', 'rays')} × ${count(scene.boxes.count, 'box', 'boxes')}…`);
      return lidarSweepReference(scene.boxes, l.desc, l.pose, sceneMotion(scene, l));
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
      const rays = compareLidarSweep({ boxes: scene.boxes, desc: l.desc, pose: l.pose, motion: sceneMotion(scene, l), origin: [...origin], unitRoundoff: u }, sweep, cmp);
      comparisons.push({ ...rays, family: `lidar[${k}]` });
      const counts = compareReturnsPerBox(ref.lidars?.[k]?.box ?? lidarSweepReference(scene.boxes, l.desc, l.pose, sceneMotion(scene, l)).box, sweep, scene.boxes.count, rays.ambiguousRays, cmp);
      comparisons.push({ ...counts, family: `lidar[${k}].returnsPerBox` });
    });
  }
  const sum = (f: (c: Comparison) => number): number => comparisons.reduce((s, c) => s + f(c), 0);
  const mismatch = sum((c) => c.mismatch);
  return { comparisons, total: sum((c) => c.total), mismatch, ambiguous: sum((c) => c.ambiguous), ok: mismatch === 0, unitRoundoff: u };
}

/**
 * Judges a result file (its JSON value, or already parsed) of any implementation against the
 * float64 reference on `scene`. Throws ResultError when the file does not answer the scene
 * (missing entries, wrong counts, non-numbers, out-of-range indices, unsorted lists).
 *
 * @example
 * const v = judgeScene(scene, resultJson, { precision: 'f16' });
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
 * console.log(formatSceneComparison('scene.json', scene, 'google swiftshader', v));
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
