/**
 * Box–box SAT on the GPU: listed pairs, one box against a set, and every overlapping pair between
 * two sets or within one. Host side of `shaders/kernels/obb_pairs.wgsl`; CPU twins in
 * src/reference/pairs.ts.
 */
import { BufferUsage } from './flags.ts';
import { BVH_AABB_PAD, PAIR_OPT_CONTACTS, PAIR_OPT_FACE_ONLY, PAIR_OPT_LEAF_ORDER, PAIR_OPT_SELF, SAT_TOLERANCE } from '../constants.ts';
import type { Bvh } from '../bvh/Bvh.ts';
import { WORKGROUP_SIZE } from '../constants.ts';
import { toObb } from '../core/canonical.ts';
import { BOX_F64, type BoxArray, type BoxInput, type Vec3 } from '../core/types.ts';
import { ExclusiveScan } from '../bvh/RadixSort.ts';
import { ValidationError } from '../errors.ts';
import { GRID_PARAMS, OBB, PAIR_PARAMS, PAIR_RESULT, packBoxes } from '../layout/index.ts';
import { checkPairs, type PairResults } from '../reference/pairs.ts';
import type { SatOptions } from '../reference/query/obbObbSat.ts';
import type { BoxSet } from './BoxSet.ts';
import { BufferPool } from './bufferPool.ts';
import type { GpuContext } from './device.ts';
import { checkBoxRange, checkCapacity, checkSet } from './inputs.ts';
import { dispatchGrid, getKernel, type KernelName } from './pipelines.ts';
import { dispatch, dispatchIndirect } from '../bvh/encode.ts';

/** Per-pair SAT results read back from the GPU. */
export interface GpuPairResults extends PairResults {
  readonly gap: Float32Array;
}

/** An overlapping-pair list: flat `[i0, j0, i1, j1, …]`, sorted by i then j. */
export interface GpuPairList {
  readonly pairs: Uint32Array;
  readonly count: number;
  /** Kernel passes (more than 1 when the first capacity was too small). */
  readonly runs: number;
  /** With `contacts`: each pair's largest gap (least penetration, ≤ tolerance) and its axis id. */
  readonly gap?: Float32Array;
  readonly axis?: Uint8Array;
  /** Whether the BVH answered (false: brute force, or a BVH stack overflow fell back to it). */
  readonly bvh?: boolean;
  /** Whether the grid answered (allPairs with `grid`). */
  readonly grid?: boolean;
}

/** Options of the pair-list queries (allPairs, obbCross). */
export interface PairListOptions extends SatOptions {
  /** First capacity of the GPU list (re-runs with the exact count when too small). */
  readonly capacity?: number;
  /** Also return each pair's gap and axis (BVH path). */
  readonly contacts?: boolean;
  /**
   * Walk a BVH over set B instead of testing every (i, j): called at the query's turn, it returns
   * a tree current for B then (ObbGpu passes its managed tree; see its `accel`).
   */
  readonly tree?: (() => Promise<Bvh | undefined>) | undefined;
  /**
   * All pairs within one set: bin the boxes by centre into a uniform grid (cells of about one box,
   * at most 4 per box) and test each against the boxes whose centres lie within its AABB widened
   * by half the widest box (gridPairs in obb_pairs.wgsl). Built per query, no tree; `tree`, when
   * given, answers a set with no grid (empty, or one that would need over 2^24 cells). `'auto'`:
   * the grid only while its estimated candidates per box are at most GRID_MAX_CROWDING.
   */
  readonly grid?: boolean | 'auto';
}

/** A grid built on the GPU for one allPairs query (buffers from the pool). */
interface GridBuild {
  readonly params: GPUBuffer;
  readonly cellOf: GPUBuffer;
  readonly counters: GPUBuffer;
  readonly items: GPUBuffer;
}

/** A set's all-pairs grid (gridOf). */
export interface GridLayout {
  readonly lo: Vec3;
  readonly cell: number;
  readonly reach: number;
  readonly dims: [number, number, number];
  readonly crowding: number;
}

/**
 * `allPairs` with `accel: 'auto'` takes the grid while its estimated candidates per box
 * (GridLayout.crowding) are at most this, else the BVH: boxes of similar sizes give a handful
 * (12 in the benchmark's moving scene), while one box as wide as the scene puts every box in
 * every search region (the grid's cost grows as n²; the tree's stays n log n).
 */
export const GRID_MAX_CROWDING = 2048;

/** Bytes of a GridItem (obb_pairs.wgsl): AABB min, box index, AABB max, padding. */
const GRID_ITEM_SIZE = 32;

/** The candidate list of one broad-phase run (buffers from the pool). */
interface CandidateRun {
  readonly capacity: number;
  readonly candidates: GPUBuffer;
  readonly count: GPUBuffer;
  /** Indirect dispatch arguments of the narrow phase. */
  readonly args: GPUBuffer;
  /** The tree walk's stack overflows. */
  readonly overflow: GPUBuffer;
}

/**
 * The grid of a set (its float64 boxes, in its floating-origin frame) for gridPairs: cells of
 * about one box each (the centres' bounds, widened by the widest box, over the box count), never
 * narrower than half the reach (so a box's search region spans a few cells per axis) nor than the
 * float32 resolution of the centres, at most 4 cells per box; `reach` is half the widest padded
 * AABB (BVH_AABB_PAD, as obbAabb pads) with 1 % and an absolute margin for float32 rounding: a
 * box whose AABB meets another's has its centre within that AABB widened by `reach`. Undefined
 * when the set is empty or the grid would still need more than 2^24 cells. `crowding` estimates
 * the candidates per box: the boxes expected, at the set's mean density, in the search region of
 * a box of mean size (its AABB widened by the reach), halved (each pair is met once); n / 2 when
 * a box as wide as the scene makes every search region the whole scene.
 */
export function gridOf(boxes: BoxArray, origin: Vec3): GridLayout | undefined {
  const d = boxes.data;
  const [ox, oy, oz] = origin;
  let loX = Infinity, loY = Infinity, loZ = Infinity;
  let hiX = -Infinity, hiY = -Infinity, hiZ = -Infinity;
  let widest = 0;
  let far = 0;
  let sumX = 0, sumY = 0, sumZ = 0;
  const { U, V, W, HALF } = BOX_F64;
  for (let o = 0; o < boxes.count * BOX_F64.STRIDE; o += BOX_F64.STRIDE) {
    const cx = d[o]! - ox, cy = d[o + 1]! - oy, cz = d[o + 2]! - oz;
    const hx = d[o + HALF]!, hy = d[o + HALF + 1]!, hz = d[o + HALF + 2]!;
    const ex = Math.abs(d[o + U]!) * hx + Math.abs(d[o + V]!) * hy + Math.abs(d[o + W]!) * hz;
    const ey = Math.abs(d[o + U + 1]!) * hx + Math.abs(d[o + V + 1]!) * hy + Math.abs(d[o + W + 1]!) * hz;
    const ez = Math.abs(d[o + U + 2]!) * hx + Math.abs(d[o + V + 2]!) * hy + Math.abs(d[o + W + 2]!) * hz;
    const ax = Math.abs(cx), ay = Math.abs(cy), az = Math.abs(cz);
    // The padded AABB's width on each axis (obbAabb pads by BVH_AABB_PAD of extent + |centre|).
    widest = Math.max(widest, 2 * (ex + BVH_AABB_PAD * (ex + ax)), 2 * (ey + BVH_AABB_PAD * (ey + ay)), 2 * (ez + BVH_AABB_PAD * (ez + az)));
    far = Math.max(far, ax, ay, az);
    sumX += ex;
    sumY += ey;
    sumZ += ez;
    loX = cx < loX ? cx : loX;
    loY = cy < loY ? cy : loY;
    loZ = cz < loZ ? cz : loZ;
    hiX = cx > hiX ? cx : hiX;
    hiY = cy > hiY ? cy : hiY;
    hiZ = cz > hiZ ? cz : hiZ;
  }
  const lo = [loX, loY, loZ] as const;
  const hi = [hiX, hiY, hiZ] as const;
  if (boxes.count === 0) {
    return undefined;
  }
  // The margin covers the float32 rounding of centres, AABBs and (p − lo) / cell.
  const resolution = 1e-6 * (1 + far);
  const reach = 0.5 * widest * 1.01 + resolution + 1e-30;
  const volume = (hi[0] - lo[0] + widest) * (hi[1] - lo[1] + widest) * (hi[2] - lo[2] + widest);
  let cell = Math.max(Math.cbrt(volume / boxes.count), 0.5 * reach, resolution, 1e-30);
  const dimsOf = (c: number): [number, number, number] => [0, 1, 2].map((k) => Math.floor((hi[k]! - lo[k]!) / c) + 1) as [number, number, number];
  let dims = dimsOf(cell);
  while (dims[0] * dims[1] * dims[2] > 4 * boxes.count + 64) {
    cell *= 1.25;
    dims = dimsOf(cell);
  }
  // The share of the boxes' span (centres' bounds widened by a mean box) that a search region
  // of a mean box covers, per axis.
  const n = boxes.count;
  const crowding = [sumX, sumY, sumZ].reduce((c, sum, k) => {
    const span = hi[k]! - lo[k]! + 2 * (sum / n);
    return span > 0 ? c * Math.min(2 * (sum / n + reach) / span, 1) : c;
  }, 0.5 * n);
  return dims[0] * dims[1] * dims[2] <= 2 ** 24
    ? { lo: [lo[0] - 0.5 * cell, lo[1] - 0.5 * cell, lo[2] - 0.5 * cell], cell, reach, dims: [dims[0] + 1, dims[1] + 1, dims[2] + 1], crowding }
    : undefined;
}

const STORAGE_IN = BufferUsage.STORAGE | BufferUsage.COPY_DST;
const STORAGE_OUT = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
const UNIFORM = BufferUsage.UNIFORM | BufferUsage.COPY_DST;

function checkTolerance(options: SatOptions): number {
  const tol = options.tolerance ?? SAT_TOLERANCE;
  if (!Number.isFinite(tol)) {
    throw new ValidationError('argument', undefined, 'tolerance', `must be finite (got ${String(tol)})`);
  }
  return tol;
}

/** How many pairs `pairs` holds, from its shape alone. */
function pairCount(pairs: Uint32Array | readonly (readonly [number, number])[]): number {
  if (pairs instanceof Uint32Array) {
    return Math.floor(pairs.length / 2);
  }
  if (!Array.isArray(pairs)) {
    throw new ValidationError('argument', undefined, 'pairs', 'must be a Uint32Array [i0, j0, i1, j1, …] or an array of [i, j] pairs');
  }
  return pairs.length;
}

/**
 * Flat pair indices (a copy) from either form. Checks the shape and that every index is a
 * non-negative integer; checkPairs checks them against the set's size at the query's turn.
 */
function flatPairs(pairs: Uint32Array | readonly (readonly [number, number])[]): Uint32Array {
  if (pairs instanceof Uint32Array) {
    if (pairs.length % 2 !== 0) {
      throw new ValidationError('argument', undefined, 'pairs', `length ${pairs.length} is odd (expected [i0, j0, i1, j1, …])`);
    }
    return pairs.slice();
  }
  if (!Array.isArray(pairs)) {
    throw new ValidationError('argument', undefined, 'pairs', 'must be a Uint32Array [i0, j0, i1, j1, …] or an array of [i, j] pairs');
  }
  pairs.forEach((p: unknown, k) => {
    if (!Array.isArray(p) || p.length !== 2) {
      throw new ValidationError('pair', k, 'value', 'must be an array of two box indices [i, j]');
    }
    p.forEach((x: unknown, c) => {
      if (!(typeof x === 'number' && Number.isInteger(x) && x >= 0 && x <= 0xffffffff)) {
        throw new ValidationError('pair', k, c === 0 ? 'i' : 'j', `= ${String(x)} is not a box index (a non-negative integer)`);
      }
    });
  });
  const out = new Uint32Array(pairs.length * 2);
  pairs.forEach((p, k) => {
    out[2 * k] = p[0];
    out[2 * k + 1] = p[1];
  });
  return out;
}

/**
 * @example
 * const pq = new PairQueries(ctx);
 * const r = await pq.obbPairs(set, [[0, 1]]);
 * r.overlap[0], r.gap[0], SAT_AXIS_NAMES[r.axis[0]]
 */
export class PairQueries {
  readonly pool: BufferPool;

  /** Workgroup size of the kernels (the WGSL `override WG`; default WORKGROUP_SIZE). */
  readonly workgroupSize: number;

  /** The grid path's scan of cell counts (grown with the largest grid). */
  private gridScan: ExclusiveScan | undefined;

  constructor(readonly ctx: GpuContext, pool?: BufferPool, workgroupSize = WORKGROUP_SIZE) {
    this.pool = pool ?? new BufferPool(ctx);
    this.workgroupSize = workgroupSize;
    // The scan's buffers lived on the old device.
    ctx.onRecover(() => {
      this.gridScan = undefined;
    });
  }

  /** Frees the grid's scan (made again, at the size needed, by the next grid). */
  trim(): void {
    this.gridScan?.destroy();
    this.gridScan = undefined;
  }

  /**
   * Bins `set` into its grid on the GPU (counts, scan, scatter); undefined when it has no sane
   * grid or one more crowded than `maxCrowding`.
   */
  private async buildGrid(set: BoxSet, maxCrowding: number): Promise<GridBuild | undefined> {
    const g = gridOf(set.boxes, set.origin);
    if (!g || g.crowding > maxCrowding) {
      return undefined;
    }
    const cells = g.dims[0] * g.dims[1] * g.dims[2];
    if (!this.gridScan || this.gridScan.capacity < cells) {
      this.gridScan?.destroy();
      this.gridScan = await ExclusiveScan.create(this.ctx, Math.max(cells, 2 * (this.gridScan?.capacity ?? 0)));
    }
    const bytes = new ArrayBuffer(GRID_PARAMS.SIZE);
    const f = new Float32Array(bytes);
    const u = new Uint32Array(bytes);
    f.set(g.lo, GRID_PARAMS.LO / 4);
    f[GRID_PARAMS.INV_CELL / 4] = 1 / g.cell;
    u.set(g.dims, GRID_PARAMS.DIMS / 4);
    u[GRID_PARAMS.CELLS / 4] = cells;
    f[GRID_PARAMS.REACH / 4] = g.reach;
    const build: GridBuild = {
      params: this.pool.acquire(GRID_PARAMS.SIZE, UNIFORM, 'grid-params'),
      cellOf: this.pool.acquire(set.count * 4, STORAGE_OUT, 'grid-cell-of'),
      counters: this.pool.acquire(cells * 8, STORAGE_OUT, 'grid-counters'),
      items: this.pool.acquire(set.count * GRID_ITEM_SIZE, STORAGE_OUT, 'grid-items'),
    };
    this.ctx.device.queue.writeBuffer(build.params, 0, bytes);
    const pairParams = this.params({ tolerance: 0, countA: set.count, countB: set.count, pairCount: 0, flags: 0, capacity: 0 });
    try {
      const [count, scatter] = await Promise.all([getKernel(this.ctx.device, 'gridCount', this.workgroupSize), getKernel(this.ctx.device, 'gridScatter', this.workgroupSize)]);
      const enc = this.ctx.device.createCommandEncoder({ label: `${this.ctx.label}:grid` });
      enc.clearBuffer(build.counters, 0, cells * 8);
      const pass = enc.beginComputePass({ label: `${this.ctx.label}:grid` });
      dispatch(this.ctx.device, pass, count, { 0: pairParams, 1: set.buffer, 11: build.params, 12: build.cellOf, 13: build.counters }, Math.ceil(set.count / count.workgroupSize), 'obb:grid-count');
      await this.gridScan.encode(pass, build.counters, cells);
      dispatch(this.ctx.device, pass, scatter, { 0: pairParams, 1: set.buffer, 11: build.params, 12: build.cellOf, 13: build.counters, 14: build.items }, Math.ceil(set.count / scatter.workgroupSize), 'obb:grid-scatter');
      pass.end();
      await this.ctx.scoped(`grid of ${set.count} boxes (${cells} cells)`, () => this.ctx.device.queue.submit([enc.finish()]));
    } finally {
      this.pool.release(pairParams);
    }
    return build;
  }

  /**
   * One run of a broad phase and the SAT on its candidates, in one submission: the grid's or
   * the tree's broad phase lists candidate pairs (`run.candidates`, params.pairCount of them at
   * most), pairsNarrowArgs sizes the narrow phase on the GPU, pairsNarrow tests each candidate
   * and appends the overlapping pairs to the output bindings (5 list, 6 counter, 9 contacts).
   * Returns the pair count, the candidate count (which may exceed the list) and the tree walk's
   * stack overflows, read back together (the copies submitted with the passes).
   */
  private async cullAndTest(
    a: BoxSet, b: BoxSet, accel: { readonly grid: GridBuild } | { readonly bvh: Bvh }, run: CandidateRun, out: Record<number, GPUBuffer>,
  ): Promise<{ total: number; candidates: number; overflows: number }> {
    const device = this.ctx.device;
    const broadName: KernelName = 'grid' in accel ? 'gridPairs' : 'bvhPairs';
    const [broad, args, narrow] = await Promise.all(([broadName, 'pairsNarrowArgs', 'pairsNarrow'] as const).map((k) => getKernel(device, k, this.workgroupSize)));
    const list = { 0: out[0]!, 15: run.candidates, 16: run.count };
    const operation = `${broadName} (${a.count} × ${b.count} boxes, ${run.capacity} candidates)`;
    const enc = device.createCommandEncoder({ label: `${this.ctx.label}:${broadName}` });
    await this.ctx.scoped(operation, () => {
      enc.clearBuffer(run.count);
      enc.clearBuffer(run.overflow);
      const pass = enc.beginComputePass({ label: `${this.ctx.label}:${broadName}` });
      const bindings = 'grid' in accel
        ? { ...list, 11: accel.grid.params, 13: accel.grid.counters, 14: accel.grid.items }
        : { ...list, 1: a.buffer, 2: b.buffer, 7: accel.bvh.nodes, 8: run.overflow, 10: accel.bvh.leafOrder };
      dispatch(device, pass, broad!, bindings, Math.ceil(a.count / broad!.workgroupSize), `obb:${broadName}`);
      dispatch(device, pass, args!, { 0: out[0]!, 16: run.count, 17: run.args }, 1, 'obb:pairs-narrow-args');
      dispatchIndirect(device, pass, narrow!, { ...out, ...list, 1: a.buffer, 2: b.buffer }, run.args, 0, 'obb:pairs-narrow');
      pass.end();
    });
    // The passes and the copies of the three counts in one submission.
    const [total, candidates, overflows] = (await this.ctx.readbackParts([out[6]!, run.count, run.overflow].map((source) => ({ source, size: 4 })), operation, undefined, enc))
      .map((bytes) => new Uint32Array(bytes)[0]!);
    return { total: total!, candidates: candidates!, overflows: overflows! };
  }

  private releaseGrid(g: GridBuild | undefined): void {
    if (g) {
      for (const b of [g.params, g.cellOf, g.counters, g.items]) {
        this.pool.release(b);
      }
    }
  }

  private params(p: { offsetB?: readonly number[]; tolerance: number; countA: number; countB: number; pairCount: number; flags: number; capacity: number }): GPUBuffer {
    const bytes = new ArrayBuffer(PAIR_PARAMS.SIZE);
    const f = new Float32Array(bytes);
    const u = new Uint32Array(bytes);
    const off = p.offsetB ?? [0, 0, 0];
    f[PAIR_PARAMS.OFFSET_B / 4] = off[0]!;
    f[PAIR_PARAMS.OFFSET_B / 4 + 1] = off[1]!;
    f[PAIR_PARAMS.OFFSET_B / 4 + 2] = off[2]!;
    f[PAIR_PARAMS.TOLERANCE / 4] = p.tolerance;
    u[PAIR_PARAMS.COUNT_A / 4] = p.countA;
    u[PAIR_PARAMS.COUNT_B / 4] = p.countB;
    u[PAIR_PARAMS.PAIR_COUNT / 4] = p.pairCount;
    u[PAIR_PARAMS.FLAGS / 4] = p.flags;
    u[PAIR_PARAMS.CAPACITY / 4] = p.capacity;
    const buffer = this.pool.acquire(PAIR_PARAMS.SIZE, UNIFORM, 'pairs:params');
    this.ctx.device.queue.writeBuffer(buffer, 0, bytes);
    return buffer;
  }

  private async dispatch(name: KernelName, invocations: number, entries: Record<number, GPUBuffer>): Promise<void> {
    const kernel = await getKernel(this.ctx.device, name, this.workgroupSize);
    await this.ctx.scoped(`${name} (${invocations} invocations)`, () => {
      const enc = this.ctx.device.createCommandEncoder({ label: `${this.ctx.label}:${name}` });
      const bindGroup = this.ctx.device.createBindGroup({
        label: `${this.ctx.label}:${name}:bind-group`,
        layout: kernel.layout,
        entries: Object.entries(entries).map(([b, buffer]) => ({ binding: Number(b), resource: { buffer } })),
      });
      const pass = enc.beginComputePass({ label: `${this.ctx.label}:${name}:pass` });
      pass.setPipeline(kernel.pipeline);
      pass.setBindGroup(0, bindGroup);
      const [x, y] = dispatchGrid(invocations, kernel.workgroupSize);
      pass.dispatchWorkgroups(x, y);
      pass.end();
      this.ctx.device.queue.submit([enc.finish()]);
    });
  }

  /** Runs a per-item kernel writing PairResult records and reads them back. */
  /**
   * Runs a per-item kernel writing PairResult records and reads them back. `countAtTurn` and
   * `buildInputs` run at the query's turn in the sequence, against the set as it is then.
   */
  private async perItem(
    op: KernelName, countAtTurn: () => number,
    buildInputs: () => { params: GPUBuffer; inputs: Record<number, GPUBuffer>; owned: GPUBuffer[] },
  ): Promise<GpuPairResults> {
    const epoch = this.ctx.epoch;
    const job = await this.ctx.sequence(op, async () => {
      const count = countAtTurn();
      if (count === 0) {
        return { count, all: [], results: undefined };
      }
      this.ctx.assertBindingFits('pair results', count * PAIR_RESULT.SIZE);
      const { params, inputs, owned } = buildInputs();
      const results = this.pool.acquire(count * PAIR_RESULT.SIZE, STORAGE_OUT, 'pair-results');
      const all = [params, results, ...owned];
      try {
        await this.dispatch(op, count, { 0: params, ...inputs, 4: results });
      } catch (error) {
        all.forEach((b) => this.pool.release(b));
        throw error;
      }
      return { count, all, results };
    });
    try {
      const n = job.count;
      const bytes = job.results ? await this.ctx.readback(job.results, n * PAIR_RESULT.SIZE, 0, op, epoch) : new ArrayBuffer(0);
      return unpackPairResults(bytes, n);
    } finally {
      job.all.forEach((b) => this.pool.release(b));
    }
  }

  /**
   * SAT on listed pairs of one set (flat `[i0, j0, …]` or `[[i, j], …]`).
   *
   * @example
   * const r = await pq.obbPairs(set, new Uint32Array([0, 1, 2, 3]), { faceOnly: false });
   */
  async obbPairs(set: BoxSet, pairs: Uint32Array | readonly (readonly [number, number])[], options: SatOptions = {}): Promise<GpuPairResults> {
    checkSet(this.ctx, set, 'set', 'obbPairs');
    const tolerance = checkTolerance(options);
    // Sizes from the count first, then a copy (the caller may reuse its array before the turn),
    // checked for shape and signs now and against the set's size at the query's turn.
    const count = pairCount(pairs);
    this.ctx.assertBindingFits('pairs', count * 8, `${count} pairs × 8 bytes`);
    this.ctx.assertBindingFits('pair results', count * PAIR_RESULT.SIZE, `${count} pairs × ${PAIR_RESULT.SIZE} bytes`);
    const flat = flatPairs(pairs);
    const n = flat.length / 2;
    return this.perItem('obbPairs', () => n, () => {
      checkPairs(flat, set.count, set.count);
      const pairBuffer = this.pool.acquire(flat.byteLength, STORAGE_IN, 'pairs');
      this.ctx.device.queue.writeBuffer(pairBuffer, 0, flat);
      return {
        params: this.params({ tolerance, countA: set.count, countB: set.count, pairCount: n, flags: options.faceOnly ? PAIR_OPT_FACE_ONLY : 0, capacity: 0 }),
        inputs: { 1: set.buffer, 2: set.buffer, 3: pairBuffer },
        owned: [pairBuffer],
      };
    });
  }

  /**
   * One box against every box of a set; one result per box of the set.
   *
   * @example
   * const r = await pq.obbOneVsMany({ center: [0, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] }, set);
   */
  async obbOneVsMany(box: BoxInput, set: BoxSet, options: SatOptions = {}): Promise<GpuPairResults> {
    checkSet(this.ctx, set, 'set', 'obbOneVsMany');
    const tolerance = checkTolerance(options);
    const query = toObb(box, 0);
    const queryArray = { count: 1, data: Float64Array.from([...query.center, ...query.halfExtents, ...query.axes.flat()]) };
    return this.perItem('obbOneVsMany', () => set.count, () => {
      // Against the set's origin at this query's turn.
      checkBoxRange(queryArray, set.origin);
      const packed = packBoxes(queryArray, set.origin);
      const one = this.pool.acquire(OBB.SIZE, STORAGE_IN, 'query-box');
      this.ctx.device.queue.writeBuffer(one, 0, packed);
      return {
        params: this.params({ tolerance, countA: 1, countB: set.count, pairCount: 0, flags: options.faceOnly ? PAIR_OPT_FACE_ONLY : 0, capacity: 0 }),
        inputs: { 1: one, 2: set.buffer },
        owned: [one],
      };
    });
  }

  /**
   * Every overlapping (i in A, j in B), sorted. Appended on the GPU with an atomic counter; re-runs
   * with the exact capacity when the first guess was too small, so nothing is dropped.
   *
   * @example
   * const { pairs } = await pq.obbCross(cars, pedestrians);
   */
  async obbCross(a: BoxSet, b: BoxSet, options: PairListOptions = {}): Promise<GpuPairList> {
    return this.pairList(a, b, false, options);
  }

  /**
   * Every overlapping pair within one set, once each (i < j), sorted (brute force, tiled).
   *
   * @example
   * const { pairs } = await pq.allPairs(set); // [i0, j0, i1, j1, …]
   */
  async allPairs(set: BoxSet, options: PairListOptions = {}): Promise<GpuPairList> {
    return this.pairList(set, set, true, options);
  }

  private async pairList(a: BoxSet, b: BoxSet, self: boolean, options: PairListOptions): Promise<GpuPairList> {
    const operation = self ? 'allPairs' : 'obbCross';
    checkSet(this.ctx, a, self ? 'set' : 'a', operation);
    checkSet(this.ctx, b, self ? 'set' : 'b', operation);
    const tolerance = checkTolerance(options);
    checkCapacity(options.capacity);
    const contacts = options.contacts ?? false;
    const flags = (options.faceOnly ? PAIR_OPT_FACE_ONLY : 0) | (self ? PAIR_OPT_SELF : 0) | (contacts ? PAIR_OPT_CONTACTS : 0);
    const tree = options.tree;
    return this.ctx.sequence(operation, async () => {
      // Counts and origins as of this query's turn (earlier set() or rebase() calls applied).
      if (a.count === 0 || b.count === 0) {
        return contacts
          ? { pairs: new Uint32Array(0), count: 0, runs: 0, gap: new Float32Array(0), axis: new Uint8Array(0), bvh: false }
          : { pairs: new Uint32Array(0), count: 0, runs: 0, bvh: false };
      }
      // The grid when asked for and the set has a sane one; else the tree when given. Face-only
      // lists go by brute force: six axes can call boxes with disjoint AABBs overlapping, so no
      // AABB broad phase may cull them.
      const culled = !(options.faceOnly ?? false);
      const grid = culled && self && options.grid ? await this.buildGrid(a, options.grid === 'auto' ? GRID_MAX_CROWDING : Infinity) : undefined;
      let bvh = culled && !grid && tree ? await tree() : undefined;
      try {
        const offsetB = [b.origin[0] - a.origin[0], b.origin[1] - a.origin[1], b.origin[2] - a.origin[2]];
        // As in allHits: a first guess that fits one binding, then exactly the count, or a
        // CapacityError when the count itself does not fit; never a truncated list.
        let capacity = options.capacity ?? Math.max(1, Math.min(Math.max(1024, 4 * Math.max(a.count, b.count)), Math.floor(this.ctx.limits.maxStorageBufferBindingSize / 12)));
        // The broad phases' candidates likewise: the caller's capacity when given, else 8 per box
        // of A (about 3 in the benchmark's moving scene).
        let candidateCapacity = options.capacity ?? Math.max(1024, Math.min(8 * a.count, Math.floor(this.ctx.limits.maxStorageBufferBindingSize / 8)));
        for (let runs = 1; ; runs++) {
          const accel = grid ? { grid } : bvh ? { bvh } : undefined;
          this.ctx.assertBindingFits('pair list', capacity * 8);
          if (contacts) {
            this.ctx.assertBindingFits('pair contacts', capacity * PAIR_RESULT.SIZE);
          }
          if (accel) {
            this.ctx.assertBindingFits('candidate pair list', candidateCapacity * 8);
          }
          const params = this.params({
            offsetB, tolerance, countA: a.count, countB: b.count, pairCount: accel ? candidateCapacity : 0,
            flags: flags | (bvh && self ? PAIR_OPT_LEAF_ORDER : 0), capacity,
          });
          const list = this.pool.acquire(capacity * 8, STORAGE_OUT, 'pair-list');
          const counter = this.pool.acquire(4, STORAGE_OUT, 'pair-counter');
          const run: CandidateRun | undefined = accel ? {
            capacity: candidateCapacity,
            candidates: this.pool.acquire(candidateCapacity * 8, STORAGE_OUT, 'pair-candidates'),
            count: this.pool.acquire(4, STORAGE_OUT, 'pair-candidate-count'),
            args: this.pool.acquire(12, BufferUsage.STORAGE | BufferUsage.INDIRECT, 'pair-narrow-args'),
            overflow: this.pool.acquire(4, STORAGE_OUT, 'bvh-overflow'),
          } : undefined;
          const contactBuffer = this.pool.acquire(accel && contacts ? capacity * PAIR_RESULT.SIZE : 16, STORAGE_OUT, 'pair-contacts');
          try {
            this.ctx.device.queue.writeBuffer(counter, 0, new Uint32Array(1));
            let total: number;
            if (accel && run) {
              const counts = await this.cullAndTest(a, b, accel, run, { 0: params, 5: list, 6: counter, 9: contactBuffer });
              // A tree walk that overflowed its stack (never expected: the stack holds the tree's
              // height bound) makes the list suspect: answer by brute force, same data, same turn.
              if (counts.overflows > 0) {
                bvh = undefined;
                runs--;
                continue;
              }
              if (counts.candidates > candidateCapacity) {
                // Again with every candidate (the same boxes: this is the query's turn).
                candidateCapacity = counts.candidates;
                continue;
              }
              total = counts.total;
            } else {
              await this.dispatch('obbCross', a.count, { 0: params, 1: a.buffer, 2: b.buffer, 5: list, 6: counter });
              total = new Uint32Array(await this.ctx.readback(counter, 4, 0, 'obbCross'))[0]!;
            }
            if (total <= capacity) {
              const raw = new Uint32Array(await this.ctx.readback(list, total * 8, 0, operation));
              const order = pairOrder(raw);
              const pairs = permuted(raw, order);
              if (!contacts) {
                return { pairs, count: total, runs, bvh: bvh !== undefined, grid: grid !== undefined };
              }
              const res = accel
                ? unpackPairResults(await this.ctx.readback(contactBuffer, total * PAIR_RESULT.SIZE, 0, operation), total)
                : undefined;
              const gap = new Float32Array(total);
              const axis = new Uint8Array(total);
              order.forEach((k, i) => {
                gap[i] = res ? res.gap[k]! : NaN;
                axis[i] = res ? res.axis[k]! : 255;
              });
              if (!res) {
                // Brute-force path: contacts by the per-pair kernel on the final list.
                const per = await this.perPairOnTurn(a, b, pairs, tolerance, options.faceOnly ?? false, offsetB);
                gap.set(per.gap);
                axis.set(per.axis);
              }
              return { pairs, count: total, runs, gap, axis, bvh: bvh !== undefined, grid: grid !== undefined };
            }
            capacity = total;
          } finally {
            for (const buffer of [params, list, counter, contactBuffer, run?.candidates, run?.count, run?.args, run?.overflow]) {
              this.pool.release(buffer);
            }
          }
        }
      } finally {
        this.releaseGrid(grid);
      }
    });
  }

  /** SAT results of listed (i in A, j in B) pairs, inside the current sequenced turn. */
  private async perPairOnTurn(
    a: BoxSet, b: BoxSet, pairs: Uint32Array, tolerance: number, faceOnly: boolean, offsetB: readonly number[],
  ): Promise<GpuPairResults> {
    const n = pairs.length / 2;
    const params = this.params({ offsetB, tolerance, countA: a.count, countB: b.count, pairCount: n, flags: faceOnly ? PAIR_OPT_FACE_ONLY : 0, capacity: 0 });
    const pairBuffer = this.pool.acquire(Math.max(16, pairs.byteLength), STORAGE_IN, 'pairs');
    const results = this.pool.acquire(Math.max(16, n * PAIR_RESULT.SIZE), STORAGE_OUT, 'pair-results');
    try {
      this.ctx.device.queue.writeBuffer(pairBuffer, 0, pairs);
      await this.dispatch('obbPairs', n, { 0: params, 1: a.buffer, 2: b.buffer, 3: pairBuffer, 4: results });
      return unpackPairResults(await this.ctx.readback(results, n * PAIR_RESULT.SIZE, 0, 'contacts'), n);
    } finally {
      this.pool.release(params);
      this.pool.release(pairBuffer);
      this.pool.release(results);
    }
  }
}

/**
 * The order that sorts a flat pair list by i, then j: two stable counting sorts (by j, then by
 * i), O(pairs + largest index) whatever the list holds.
 */
function pairOrder(flat: Uint32Array): Uint32Array {
  const n = flat.length / 2;
  let max = 0;
  for (let k = 0; k < flat.length; k++) {
    if (flat[k]! > max) {
      max = flat[k]!;
    }
  }
  const identity = new Uint32Array(n);
  for (let k = 0; k < n; k++) {
    identity[k] = k;
  }
  return countingOrder(flat, 0, countingOrder(flat, 1, identity, max + 1), max + 1);
}

/** `order` stably sorted by flat[2k + side]. */
function countingOrder(flat: Uint32Array, side: 0 | 1, order: Uint32Array, buckets: number): Uint32Array {
  const start = new Uint32Array(buckets + 1);
  for (let k = 0; k < flat.length; k += 2) {
    start[flat[k + side]! + 1]!++;
  }
  for (let b = 0; b < buckets; b++) {
    start[b + 1]! += start[b]!;
  }
  const out = new Uint32Array(order.length);
  for (let x = 0; x < order.length; x++) {
    const k = order[x]!;
    out[start[flat[2 * k + side]!]!++] = k;
  }
  return out;
}

/** Sorts a flat pair list by i, then j. */
export function sortPairs(flat: Uint32Array): Uint32Array {
  return permuted(flat, pairOrder(flat));
}

/** Pair `order[x]` of `flat` as pair x. */
function permuted(flat: Uint32Array, order: Uint32Array): Uint32Array {
  const out = new Uint32Array(flat.length);
  for (let x = 0; x < order.length; x++) {
    const k = order[x]!;
    out[2 * x] = flat[2 * k]!;
    out[2 * x + 1] = flat[2 * k + 1]!;
  }
  return out;
}

function unpackPairResults(bytes: ArrayBuffer, n: number): GpuPairResults {
  const f = new Float32Array(bytes);
  const u = new Uint32Array(bytes);
  const s = PAIR_RESULT.SIZE / 4;
  const out = { count: n, overlap: new Uint8Array(n), gap: new Float32Array(n), axis: new Uint8Array(n) };
  for (let k = 0; k < n; k++) {
    out.gap[k] = f[k * s + PAIR_RESULT.GAP / 4]!;
    out.axis[k] = u[k * s + PAIR_RESULT.AXIS / 4]!;
    out.overlap[k] = u[k * s + PAIR_RESULT.OVERLAP / 4]!;
  }
  return out;
}
