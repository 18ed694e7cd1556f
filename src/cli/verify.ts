/**
 * `webgpu-obb verify`: the GPU's raw results for a scene, classified against the float64
 * reference by the comparator (src/compare/), and a printable report.
 *
 * Browser- and Node-safe; the CLI runs it in Node on the arrays the GPU page returned.
 */
import { comparePairLists, comparePairs, compareClosestHits, formatComparison, type Comparison } from '../compare/compare.ts';
import type { ClosestHits } from '../reference/raycast.ts';
import type { PairResults } from '../reference/pairs.ts';
import { describeScene, type Scene } from './scene.ts';
import { type CpuSceneRaw, type GpuSceneRaw } from './results.ts';
import { runReference, type ProgressFn } from './run.ts';

/** The comparisons of one scene and their verdict. */
export interface SceneComparison {
  /** One per query the scene asked for, in the order closest hit, pairs, all pairs. */
  readonly comparisons: readonly Comparison[];
  readonly total: number;
  readonly mismatch: number;
  readonly ambiguous: number;
  readonly ok: boolean;
}

function gpuClosestHits(raw: NonNullable<GpuSceneRaw['rays']>): ClosestHits {
  const n = raw.box.length;
  const box = Int32Array.from(raw.box);
  const t = Float32Array.from(raw.t, (x, r) => (box[r] === -1 ? Infinity : x));
  return { count: n, box, t, face: Uint8Array.from(raw.face), inside: Uint8Array.from(raw.inside) };
}

function gpuPairResults(raw: NonNullable<GpuSceneRaw['pairs']>): PairResults {
  return {
    count: raw.gap.length,
    overlap: Uint8Array.from(raw.overlap),
    gap: Float32Array.from(raw.gap),
    axis: Uint8Array.from(raw.axis),
  };
}

/**
 * Classifies every GPU result of a scene against the reference (computed here unless `ref` is
 * given). Throws when the GPU results do not cover the scene's queries.
 *
 * @example
 * const cmp = compareScene(scene, raw);
 * if (!cmp.ok) process.exitCode = 1;
 */
export function compareScene(scene: Scene, gpu: GpuSceneRaw, ref: CpuSceneRaw = runReference(scene), onProgress?: ProgressFn): SceneComparison {
  const comparisons: Comparison[] = [];
  if (scene.rays) {
    if (!gpu.rays || gpu.rays.box.length !== scene.rays.count) {
      throw new Error(`GPU returned ${gpu.rays?.box.length ?? 'no'} closest hits for ${scene.rays.count} rays`);
    }
    onProgress?.('comparing closest hits…');
    comparisons.push(compareClosestHits({ boxes: scene.boxes, rays: scene.rays, origin: gpu.origin }, gpuClosestHits(gpu.rays), ref.hits));
  }
  if (scene.pairs) {
    if (!gpu.pairs || gpu.pairs.gap.length !== scene.pairs.length / 2) {
      throw new Error(`GPU returned ${gpu.pairs?.gap.length ?? 'no'} pair results for ${scene.pairs.length / 2} pairs`);
    }
    onProgress?.('comparing pairs…');
    comparisons.push(comparePairs({ a: scene.boxes, pairs: scene.pairs, origin: gpu.origin }, gpuPairResults(gpu.pairs), ref.pairs));
  }
  if (scene.allPairs) {
    if (!gpu.allPairs) {
      throw new Error('GPU returned no all-pairs list');
    }
    onProgress?.('comparing all pairs…');
    comparisons.push(comparePairLists({ a: scene.boxes, origin: gpu.origin }, Uint32Array.from(gpu.allPairs), ref.allPairs));
  }
  const sum = (f: (c: Comparison) => number): number => comparisons.reduce((s, c) => s + f(c), 0);
  const mismatch = sum((c) => c.mismatch);
  return { comparisons, total: sum((c) => c.total), mismatch, ambiguous: sum((c) => c.ambiguous), ok: mismatch === 0 };
}

/**
 * The report `webgpu-obb verify` prints: scene, adapter, one block per query, a verdict line.
 *
 * @example
 * console.log(formatSceneComparison('scene.json', scene, raw.adapter, cmp));
 * // …
 * // OK: 0 mismatch, 2 ambiguous in 45000 cases
 */
export function formatSceneComparison(name: string, scene: Scene, adapter: string, cmp: SceneComparison): string {
  const lines = [`scene: ${name} (${describeScene(scene)})`, `adapter: ${adapter}`];
  for (const c of cmp.comparisons) {
    lines.push(formatComparison(c));
  }
  if (cmp.comparisons.length === 0) {
    lines.push('nothing to compare: the scene has no rays, pairs or allPairs');
  }
  lines.push(
    `${cmp.ok ? 'OK' : 'FAIL'}: ${cmp.mismatch} mismatch, ${cmp.ambiguous} ambiguous in ${cmp.total} cases` +
      (cmp.ok ? ' — the GPU agrees with the float64 reference' : ' — the GPU disagrees with the float64 reference'),
  );
  return lines.join('\n');
}
