/**
 * One run of a pair broad phase (the grid's gridPairs or the tree's bvhPairs) and the narrow
 * phase over its candidates (pairsNarrowArgs, pairsNarrow in shaders/pairs/narrow.wgsl), in one
 * submission, with the three counts read back in one map.
 */
import type { BoxSet } from '../boxes/BoxSet.ts';
import { dispatch, dispatchIndirect } from '../runtime/bind.ts';
import type { GpuContext } from '../runtime/context.ts';
import { getKernel } from '../runtime/pipelines.ts';
import type { Bvh } from '../tree/Bvh.ts';
import type { GridBuild } from './grid.ts';

/** The candidate list of one broad-phase run (buffers from the pool). */
export interface CandidateRun {
  readonly capacity: number;
  readonly candidates: GPUBuffer;
  readonly count: GPUBuffer;
  /** Indirect dispatch arguments of the narrow phase. */
  readonly args: GPUBuffer;
  /** The tree walk's stack overflows. */
  readonly overflow: GPUBuffer;
}

/** Where the narrow phase appends: the pair list, its counter, the contacts, and the params. */
export interface PairOutputs {
  readonly params: GPUBuffer;
  readonly pairsOut: GPUBuffer;
  readonly counter: GPUBuffer;
  readonly contacts: GPUBuffer;
}

/**
 * The broad phase lists candidate pairs (`run.candidates`, params.pairCount of them at most),
 * pairsNarrowArgs sizes the narrow phase on the GPU, pairsNarrow tests each candidate and
 * appends the overlapping pairs to `out`. Returns the pair count, the candidate count (which may
 * exceed the list) and the tree walk's stack overflows. Call inside the query's turn.
 */
export async function broadAndNarrow(
  ctx: GpuContext, workgroupSize: number, a: BoxSet, b: BoxSet,
  accel: { readonly grid: GridBuild } | { readonly bvh: Bvh }, run: CandidateRun, out: PairOutputs,
): Promise<{ total: number; candidates: number; overflows: number }> {
  const device = ctx.device;
  const broadName = 'grid' in accel ? 'gridPairs' : 'bvhPairs';
  const [broadGrid, broadTree, args, narrow] = await Promise.all([
    'grid' in accel ? getKernel(device, 'gridPairs', workgroupSize) : undefined,
    'bvh' in accel ? getKernel(device, 'bvhPairs', workgroupSize) : undefined,
    getKernel(device, 'pairsNarrowArgs', workgroupSize), getKernel(device, 'pairsNarrow', workgroupSize),
  ]);
  const list = { params: out.params, candidates: run.candidates, candidateCount: run.count };
  const operation = `${broadName} (${a.count} × ${b.count} boxes, ${run.capacity} candidates)`;
  const enc = device.createCommandEncoder({ label: `${ctx.label}:${broadName}` });
  await ctx.scoped(operation, () => {
    enc.clearBuffer(run.count);
    enc.clearBuffer(run.overflow);
    const pass = enc.beginComputePass({ label: `${ctx.label}:${broadName}` });
    if ('grid' in accel && broadGrid) {
      const { grid } = accel;
      dispatch(device, pass, broadGrid, { ...list, grid: grid.params, cellCounters: grid.counters, cellItems: grid.items },
        Math.ceil(a.count / broadGrid.workgroupSize), 'obb:gridPairs');
    } else if ('bvh' in accel && broadTree) {
      dispatch(device, pass, broadTree, {
        ...list, boxesA: a.buffer, boxesB: b.buffer, wide: accel.bvh.wide, overflowCount: run.overflow, leafOrder: accel.bvh.leafOrder,
      }, Math.ceil(a.count / broadTree.workgroupSize), 'obb:bvhPairs');
    }
    dispatch(device, pass, args, { params: out.params, candidateCount: run.count, narrowArgs: run.args }, 1, 'obb:pairs-narrow-args');
    dispatchIndirect(device, pass, narrow, { ...out, ...list, boxesA: a.buffer, boxesB: b.buffer }, run.args, 0, 'obb:pairs-narrow');
    pass.end();
  });
  // The passes and the copies of the three counts in one submission.
  const [total, candidates, overflows] = (await ctx.readbackParts([out.counter, run.count, run.overflow].map((source) => ({ source, size: 4 })), operation, undefined, enc))
    .map((bytes) => new Uint32Array(bytes)[0]!);
  return { total: total!, candidates: candidates!, overflows: overflows! };
}
