/**
 * Helpers shared by the GPU suites in the page: one ObbGpu per page, a validation error scope
 * around every suite call that must come back empty, and JSON summaries of comparisons.
 */
import { ObbGpu } from '../../../src/index.ts';
import { formatComparison, type Comparison } from '../../../src/judge/index.ts';

/**
 * Ray-kernel tuning under test: 'default' is what the adapter gets by default; 'tiled-cull' and
 * 'flat' force the two paths (workgroup tiling + sphere cull, as on GPUs; the plain loop, as on
 * CPU adapters), so both are proven on whatever adapter runs the tests.
 */
export type Tuning = 'default' | 'tiled-cull' | 'flat';

const instances = new Map<Tuning, Promise<ObbGpu>>();

/** The page's ObbGpu for a tuning (created on first use; every kernel compiled up front). */
export function getGpu(tuning: Tuning = 'default'): Promise<ObbGpu> {
  let instance = instances.get(tuning);
  if (!instance) {
    instance = ObbGpu.create(tuning === 'default' ? {} : { rayTuning: tuning === 'flat' ? { tiled: false, cull: false } : { tiled: true, cull: true } });
    instances.set(tuning, instance);
  }
  return instance;
}

/** A comparison as plain JSON for the Node side, with the printable report. */
export interface ComparisonSummary {
  family: string;
  total: number;
  agree: number;
  ambiguous: number;
  mismatch: number;
  ambiguousByReason: Record<string, number>;
  mismatchByReason: Record<string, number>;
  worstRatio: number;
  report: string;
  cases: unknown[];
}

export function summarize(c: Comparison, maxCases = 5): ComparisonSummary {
  return {
    family: c.family, total: c.total, agree: c.agree, ambiguous: c.ambiguous, mismatch: c.mismatch,
    ambiguousByReason: { ...c.ambiguousByReason }, mismatchByReason: { ...c.mismatchByReason },
    worstRatio: c.worstRatio, report: formatComparison(c, maxCases), cases: c.cases.slice(0, maxCases),
  };
}

/**
 * Runs `body` inside a validation and an out-of-memory error scope on the page's device; throws
 * if either catches an error the library did not already turn into an exception.
 */
export async function scoped<T>(body: (gpu: ObbGpu) => Promise<T>, tuning: Tuning = 'default'): Promise<T & { adapter: string; tuning: string; walk: TreeWalkKind }> {
  const gpu = await getGpu(tuning);
  const device = gpu.ctx.device;
  device.pushErrorScope('out-of-memory');
  device.pushErrorScope('validation');
  let result: T | undefined;
  let failure: unknown;
  try {
    result = await body(gpu);
  } catch (error) {
    failure = error;
  }
  const validation = await device.popErrorScope();
  const oom = await device.popErrorScope();
  if (failure !== undefined) {
    throw failure;
  }
  if (validation || oom) {
    throw new Error(`uncaught GPU error: ${validation?.message ?? oom?.message}`);
  }
  return { ...(result as T), adapter: gpu.adapterName, tuning: `tiled=${gpu.rays.tuning.tiled} cull=${gpu.rays.tuning.cull}`, walk: treeWalkKind(gpu) };
}

/** Which closest-hit tree walk a page's ObbGpu runs, and why (the adapter and its device). */
export interface TreeWalkKind {
  readonly fallbackAdapter: boolean;
  readonly subgroups: boolean;
  /** RayKernelTuning.subgroupWalk: bvhClosestHitSubgroup rather than bvhClosestHit. */
  readonly subgroupWalk: boolean;
}

export function treeWalkKind(gpu: ObbGpu): TreeWalkKind {
  return {
    fallbackAdapter: gpu.ctx.adapter.isFallbackAdapter,
    subgroups: gpu.ctx.device.features.has('subgroups'),
    subgroupWalk: gpu.rays.tuning.subgroupWalk,
  };
}
