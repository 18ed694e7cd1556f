/**
 * Box–box SAT on the GPU: listed pairs and one box against a set (shaders/pairs/listed.wgsl), and
 * the pair lists — every overlapping pair between two sets (obbCross) or within one (allPairs) —
 * by brute force (obbCross in listed.wgsl) or through a broad phase, the grid (./grid.ts) or the
 * tree, and the narrow phase (./narrow.ts); and all pairs recorded into the caller's encoder
 * (encodeAllPairs, into a PairListBuffers). CPU twins in src/reference/pairs.ts.
 */
import { PAIR_OPT_CONTACTS, PAIR_OPT_FACE_ONLY, PAIR_OPT_LEAF_ORDER, PAIR_OPT_SELF, SAT_TOLERANCE, WORKGROUP_SIZE } from '../constants.ts';
import { toObb } from '../core/canonical.ts';
import type { BoxInput } from '../core/types.ts';
import { ValidationError } from '../errors.ts';
import { OBB, PAIR_RESULT, packBoxes } from '../layout/index.ts';
import { checkPairs, type PairResults, type SatOptions } from '../core/queries.ts';
import { checkSet, type BoxSet } from '../boxes/BoxSet.ts';
import { checkBoxRange, checkCapacity } from '../core/inputs.ts';
import type { GpuContext } from '../runtime/context.ts';
import { BufferUsage } from '../runtime/flags.ts';
import { dispatchGrid, getKernel } from '../runtime/pipelines.ts';
import { bindGroup, dispatch as dispatchKernel, dispatchIndirect, type KernelBuffers } from '../runtime/bind.ts';
import { BufferPool } from '../runtime/pool.ts';
import type { Bvh } from '../tree/Bvh.ts';
import { GridBuilder } from './grid.ts';
import { GRID_MAX_CROWDING } from './gridLayout.ts';
import { broadAndNarrow, type CandidateRun } from './narrow.ts';
import { pairOrder, permuted } from './order.ts';
import { pairParams, pairParamsBytes, type PairParamsFields } from './params.ts';
import { PairListBuffers } from './PairListBuffers.ts';

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
   * by half the widest box (gridPairs in shaders/pairs/grid.wgsl). Built per query, no tree; `tree`, when
   * given, answers a set with no grid (empty, or one that would need over 2^24 cells). `'auto'`:
   * the grid only while its estimated candidates per box are at most GRID_MAX_CROWDING.
   */
  readonly grid?: boolean | 'auto';
}

const STORAGE_IN = BufferUsage.STORAGE | BufferUsage.COPY_DST;
const STORAGE_OUT = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;

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
 * console.log(r.overlap[0], r.gap[0], SAT_AXIS_NAMES[r.axis[0]!])
 */
export class PairQueries {
  readonly pool: BufferPool;

  /** Workgroup size of the kernels (the WGSL `override WG`; default WORKGROUP_SIZE). */
  readonly workgroupSize: number;

  /** The grid path's builder (keeps its scan between queries). */
  private readonly grids: GridBuilder;

  constructor(readonly ctx: GpuContext, pool?: BufferPool, workgroupSize = WORKGROUP_SIZE) {
    this.pool = pool ?? new BufferPool(ctx);
    this.workgroupSize = workgroupSize;
    this.grids = new GridBuilder(ctx, this.pool, workgroupSize);
  }

  /** Frees the grid's scan (made again, at the size needed, by the next grid). */
  trim(): void {
    this.grids.trim();
  }

  private params(p: PairParamsFields): GPUBuffer {
    return pairParams(this.pool, this.ctx.device, p);
  }

  /** Runs one listed-pairs kernel (obbPairs, obbOneVsMany, obbCross) over `invocations` items. */
  private async dispatch<K extends 'obbPairs' | 'obbOneVsMany' | 'obbCross'>(name: K, invocations: number, buffers: KernelBuffers<K>): Promise<void> {
    const kernel = await getKernel(this.ctx.device, name, this.workgroupSize);
    await this.ctx.scoped(`${name} (${invocations} invocations)`, () => {
      const enc = this.ctx.device.createCommandEncoder({ label: `${this.ctx.label}:${name}` });
      const pass = enc.beginComputePass({ label: `${this.ctx.label}:${name}:pass` });
      pass.setPipeline(kernel.pipeline);
      pass.setBindGroup(0, bindGroup(this.ctx.device, kernel, buffers, `${this.ctx.label}:${name}`));
      const [x, y] = dispatchGrid(invocations, kernel.workgroupSize);
      pass.dispatchWorkgroups(x, y);
      pass.end();
      this.ctx.device.queue.submit([enc.finish()]);
    });
  }

  /**
   * Runs a per-item kernel writing PairResult records and reads them back. `countAtTurn` and
   * `buildInputs` run at the query's turn in the sequence, against the set as it is then.
   */
  private async perItem<K extends 'obbPairs' | 'obbOneVsMany'>(
    op: K, countAtTurn: () => number,
    buildInputs: () => { params: GPUBuffer; inputs: Omit<KernelBuffers<K>, 'params' | 'results'>; owned: GPUBuffer[] },
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
        await this.dispatch(op, count, { ...inputs, params, results } as KernelBuffers<K>);
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
        inputs: { boxesA: set.buffer, boxesB: set.buffer, pairs: pairBuffer },
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
        inputs: { boxesA: one, boxesB: set.buffer },
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

  /**
   * Records every overlapping pair within `set` (i < j) into the caller's encoder, into `list`
   * (gpu.createPairList): by the tree's broad phase when `tree` is given (current for the set: a
   * GPU-sourced set's refresh recorded in the same encoder refits it, see ObbGpu.bvhOf), else by
   * brute force (O(n²): small sets only), then the SAT narrow phase, then the list's status
   * (count, overflow bits, indirect dispatch size: pairs/status.wgsl). Nothing is read back; the
   * caller submits. The list never grows: past its capacity (or its candidate capacity) the status
   * says so (PAIR_LIST_OVERFLOW_*), nothing is written past either, and the caller makes a larger
   * list. Uploads only the 48-byte PairParams, and only when they differ from the list's last
   * encode (the set's count, the tolerance, the path): none in a frame loop at a constant count.
   * Face-only SAT is not offered: its lists cannot be culled by AABBs (allPairs runs them by brute
   * force). One encode per list per submission (a second would overwrite the first's results).
   *
   * @example
   * declare const sourced: GpuSourcedBoxSet, list: PairListBuffers;
   * const enc = device.createCommandEncoder();
   * await sourced.refresh(enc);
   * const tree = await gpu.bvhOf(sourced);
   * await gpu.pairs.encodeAllPairs(enc, sourced, list, tree ? { tree } : {});
   * device.queue.submit([enc.finish()]);
   */
  async encodeAllPairs(
    encoder: GPUCommandEncoder, set: BoxSet, list: PairListBuffers,
    options: { readonly tree?: Bvh | undefined; readonly tolerance?: number; readonly timestampWrites?: GPUComputePassTimestampWrites } = {},
  ): Promise<void> {
    const op = 'encodeAllPairs';
    checkSet(this.ctx, set, 'set', op);
    if (!(list instanceof PairListBuffers) || list.ctx !== this.ctx) {
      throw new ValidationError('argument', undefined, 'list', 'must be a PairListBuffers made by this ObbGpu (gpu.createPairList)');
    }
    list.assertUsable(op);
    const tolerance = checkTolerance(options);
    const tree = options.tree;
    if (tree !== undefined) {
      tree.assertUsable(op);
      if (tree.set !== set || tree.count !== set.count) {
        throw new ValidationError('argument', undefined, 'tree', `must be the set's tree, current for its ${set.count} boxes (gpu.bvhOf(set) after the refresh; got one over ${tree.count} boxes${tree.set === set ? '' : ' of another set'})`);
      }
    }
    const bvh = tree !== undefined && set.count >= 2 ? tree : undefined;
    const device = this.ctx.device;
    const [broad, args, narrow, brute, status] = await Promise.all([
      bvh ? getKernel(device, 'bvhPairs', this.workgroupSize) : undefined,
      bvh ? getKernel(device, 'pairsNarrowArgs', this.workgroupSize) : undefined,
      bvh ? getKernel(device, 'pairsNarrow', this.workgroupSize) : undefined,
      bvh ? undefined : getKernel(device, 'obbCross', this.workgroupSize),
      getKernel(device, 'pairsListStatus', this.workgroupSize),
    ]);
    list.assertUsable(op);
    const n = set.count;
    list.writeParams(new Uint32Array(pairParamsBytes({
      tolerance, countA: n, countB: n, pairCount: bvh ? list.candidateCapacity : 0,
      flags: PAIR_OPT_SELF | (bvh ? PAIR_OPT_LEAF_ORDER : 0), capacity: list.capacity,
    })));
    const label = `${this.ctx.label}:${op}`;
    encoder.clearBuffer(list.counter);
    encoder.clearBuffer(list.candidateCount);
    encoder.clearBuffer(list.stackOverflows);
    const pass = encoder.beginComputePass(options.timestampWrites ? { label, timestampWrites: options.timestampWrites } : { label });
    const common = { params: list.params, boxesA: set.buffer, boxesB: set.buffer };
    const candidates = { candidates: list.candidates, candidateCount: list.candidateCount };
    if (bvh && broad && args && narrow) {
      dispatchKernel(device, pass, broad, {
        ...common, ...candidates, wide: bvh.wide, overflowCount: list.stackOverflows, leafOrder: bvh.leafOrder,
      }, Math.ceil(n / broad.workgroupSize), `${label}:bvhPairs`);
      dispatchKernel(device, pass, args, { params: list.params, candidateCount: list.candidateCount, narrowArgs: list.narrowArgs }, 1, `${label}:narrow-args`);
      dispatchIndirect(device, pass, narrow, {
        ...common, ...candidates, pairsOut: list.pairsBuffer, counter: list.counter, contacts: list.noContacts,
      }, list.narrowArgs, 0, `${label}:narrow`);
    } else if (brute) {
      dispatchKernel(device, pass, brute, { ...common, pairsOut: list.pairsBuffer, counter: list.counter }, Math.ceil(n / brute.workgroupSize), `${label}:brute`);
    }
    dispatchKernel(device, pass, status, {
      params: list.params, counter: list.counter, overflowCount: list.stackOverflows, candidateCount: list.candidateCount, listStatus: list.statusBuffer,
    }, 1, `${label}:status`);
    pass.end();
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
      const grid = culled && self && options.grid ? await this.grids.build(a, options.grid === 'auto' ? GRID_MAX_CROWDING : Infinity) : undefined;
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
              const counts = await broadAndNarrow(this.ctx, this.workgroupSize, a, b, accel, run, { params, pairsOut: list, counter, contacts: contactBuffer });
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
              await this.dispatch('obbCross', a.count, { params, boxesA: a.buffer, boxesB: b.buffer, pairsOut: list, counter });
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
        this.grids.release(grid);
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
      await this.dispatch('obbPairs', n, { params, boxesA: a.buffer, boxesB: b.buffer, pairs: pairBuffer, results });
      return unpackPairResults(await this.ctx.readback(results, n * PAIR_RESULT.SIZE, 0, 'contacts'), n);
    } finally {
      this.pool.release(params);
      this.pool.release(pairBuffer);
      this.pool.release(results);
    }
  }
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
