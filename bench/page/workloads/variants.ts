/**
 * WGSL variants of the tree walk, timed against each other (bench/variants.ts drives it): each
 * variant is a list of text edits to the shader chunks (src/runtime/shaders.ts CHUNKS), applied
 * before a device of its own compiles its pipelines, so every variant runs its own code on its
 * own device over the same boxes and the same tree build. The picking-1024 closest-hit kernel is
 * then timed by timestamp queries, one sample of every variant per round (interleaved, so the
 * machine's drift falls on all of them alike), with the rays in the order a host batch walks
 * them (RayKernelTuning.sortRays). Each variant's answers are compared with the first's: a
 * variant meant to cost more without changing the walk (doing a part twice) must differ in
 * nothing, and one that does differ says so.
 *
 * For measuring where a kernel's time goes on an adapter (the "measure both shapes and
 * keep what wins where"), not for the benchmark tables.
 */
import { ObbGpu, RAY_F64, type RayKernelTuning } from '../../../src/index.ts';
import { directionOrder } from '../../../src/rays/RayQueries.ts';
import { CHUNKS } from '../../../src/runtime/shaders.ts';
import { timeClosestKernel } from '../impls/gpuKernel.ts';
import { stats } from '../measure.ts';
import { pickingRays, pickingScene } from '../scenes.ts';

/** One text edit: every occurrence of `from` in chunk `chunk` replaced by `to`. */
export interface ShaderEdit {
  readonly chunk: keyof typeof CHUNKS;
  readonly from: string;
  readonly to: string;
}

/**
 * A variant: its edits, alone or with the ray tuning its ObbGpu is created with (e.g.
 * `{ "subgroupWalk": false }` to time bvhClosestHit where the adapter's default is the subgroup walk).
 */
export type Variant = readonly ShaderEdit[] | { readonly rayTuning?: Partial<RayKernelTuning>; readonly edits: readonly ShaderEdit[] };

export interface VariantTiming {
  readonly name: string;
  readonly median_ms: number;
  readonly min_ms: number;
  readonly max_ms: number;
  readonly runs: number;
  /** Rays whose box differs from the first variant's. */
  readonly differing: number;
}

type Chunks = Record<string, { code: string }>;

/** The chunks with `edits` applied to their original text (throws naming an edit that matches nothing). */
function applyEdits(name: string, edits: readonly ShaderEdit[], original: Record<string, string>): void {
  const chunks = CHUNKS as unknown as Chunks;
  for (const [k, c] of Object.entries(chunks)) {
    c.code = original[k]!;
  }
  for (const e of edits) {
    const c = chunks[e.chunk];
    if (!c) {
      throw new Error(`variant ${name}: no shader chunk ${e.chunk}`);
    }
    if (!c.code.includes(e.from)) {
      throw new Error(`variant ${name}: ${e.chunk} does not contain ${JSON.stringify(e.from.slice(0, 80))}`);
    }
    c.code = c.code.split(e.from).join(e.to);
  }
}

/**
 * Times the picking-1024 tree walk of each variant over the picking scene of `n` boxes,
 * `rounds` interleaved samples each (after 3 untimed runs), by the bench's kernel timer
 * (timeClosestKernel: rays already on the GPU, timestamp queries). Variants in order; the first is the
 * baseline the answers are compared with.
 */
export async function walk(n: number, variants: Record<string, Variant>, rounds: number): Promise<VariantTiming[]> {
  const boxes = pickingScene(n);
  const rays = pickingRays(1024, n);
  const order = directionOrder(rays);
  const S = RAY_F64.STRIDE;
  const data = new Float64Array(rays.data.length);
  order.forEach((r, k) => data.set(rays.data.subarray(r * S, (r + 1) * S), k * S));
  const walked = { count: rays.count, data };
  const chunks = CHUNKS as unknown as Chunks;
  const original = Object.fromEntries(Object.entries(chunks).map(([k, c]) => [k, c.code]));
  const gpus: ObbGpu[] = [];
  const runs: { name: string; time: (runs: number) => Promise<number[]>; box: Int32Array; samples: number[] }[] = [];
  try {
    for (const [name, variant] of Object.entries(variants)) {
      const { edits, rayTuning } = Array.isArray(variant) ? { edits: variant as readonly ShaderEdit[], rayTuning: undefined } : variant as Exclude<Variant, readonly ShaderEdit[]>;
      applyEdits(name, edits, original);
      const gpu = await ObbGpu.create(rayTuning ? { rayTuning } : {});
      gpus.push(gpu);
      if (!gpu.ctx.device.features.has('timestamp-query')) {
        throw new Error('variants: the adapter has no timestamp queries');
      }
      const set = gpu.createBoxSet(boxes);
      const tree = await gpu.bvhOf(set);
      // The first query compiles the walk's pipeline, while this variant's edits are in place.
      const { box } = await gpu.closestHit(set, walked, { accel: 'bvh' });
      const time = async (count: number): Promise<number[]> => (await timeClosestKernel(gpu, set, walked, count, tree)).samples;
      runs.push({ name, time, box, samples: [] });
    }
    applyEdits('original', [], original);
    for (const r of runs) {
      await r.time(3);
    }
    for (let round = 0; round < rounds; round++) {
      for (const r of runs) {
        r.samples.push(...await r.time(1));
      }
    }
    return runs.map((r) => {
      const s = stats(r.samples);
      let differing = 0;
      for (let i = 0; i < rays.count; i++) {
        differing += r.box[i] === runs[0]!.box[i] ? 0 : 1;
      }
      return { name: r.name, median_ms: s.median, min_ms: s.min, max_ms: s.max, runs: r.samples.length, differing };
    });
  } finally {
    applyEdits('original', [], original);
    for (const g of gpus) {
      g.destroy();
    }
  }
}
