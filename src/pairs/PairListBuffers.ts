/**
 * A pair list that lives on the GPU: where PairQueries.encodeAllPairs records every overlapping
 * pair of a set into the caller's encoder (a frame's "animation pass → refresh → picks, all pairs
 * → the pass reading the results" in one submission, nothing read back). The list, its
 * PairListStatus (valid count, overflow bits, indirect dispatch size, written on the GPU by
 * shaders/pairs/status.wgsl) and the broad phase's candidate list are this object's buffers; the
 * caller binds `pairsBuffer` and `statusBuffer` in its own passes. `read()` is the convenience
 * readback (a test's proof, a debugging look), never needed in a frame.
 */
import { PAIR_LIST_STATUS, PAIR_PARAMS } from '../layout/index.ts';
import { checkCapacity } from '../core/inputs.ts';
import { ValidationError } from '../errors.ts';
import type { GpuContext } from '../runtime/context.ts';
import { BufferUsage } from '../runtime/flags.ts';
import { Lifetime } from '../runtime/lifetime.ts';
import type { PairListState } from '../reference/pairs.ts';
import { sortPairs } from './order.ts';

/** Options of a pair list made for encodeAllPairs (`gpu.createPairList(capacity, options)`). */
export interface PairListBuffersOptions {
  /**
   * Candidate pairs the tree's broad phase may list before the SAT (default 8 × capacity, at most
   * what one binding holds): more is overflow (PAIR_LIST_OVERFLOW_CANDIDATES), since a candidate
   * past the list is never tested. Candidates are the pairs whose AABBs meet (about 3 per box in
   * the benchmark's moving scene, against 1 to 2 overlapping pairs).
   */
  readonly candidateCapacity?: number;
  readonly label?: string;
}

/** What {@link PairListBuffers.read} returns. */
export interface PairListRead {
  /** The valid pairs `[i0, j0, …]`, sorted by i then j (the GPU appends them in no order). */
  readonly pairs: Uint32Array;
  /** The status as the GPU wrote it. */
  readonly status: PairListState;
}

const OUT = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;

/**
 * @example
 * declare const sourced: GpuSourcedBoxSet; // createBoxSet({ source: … })
 * const list = gpu.createPairList(200_000);
 * const enc = device.createCommandEncoder();
 * await sourced.refresh(enc);
 * const tree = await gpu.bvhOf(sourced);
 * await gpu.pairs.encodeAllPairs(enc, sourced, list, tree ? { tree } : {});
 * // your pass: bind list.pairsBuffer (vec2u per pair) and list.statusBuffer (PairListStatus);
 * // pass.dispatchWorkgroupsIndirect(list.statusBuffer, 16) runs one invocation per valid pair (64 per workgroup)
 * device.queue.submit([enc.finish()]);
 */
export class PairListBuffers {
  /** Pairs the list holds. */
  readonly capacity: number;
  /** Candidates the tree's broad phase may list. */
  readonly candidateCapacity: number;
  /** The pairs (i, j) with i < j as vec2u, the first `status.count` valid, in no order. STORAGE | COPY_SRC | VERTEX. */
  readonly pairsBuffer: GPUBuffer;
  /**
   * PairListStatus (32 bytes): count, found, candidates, overflow (PAIR_LIST_OVERFLOW_* bits), then
   * at byte 16 the workgroups (x, y, z) of 64 invocations for one invocation per valid pair.
   * STORAGE | COPY_SRC | INDIRECT.
   */
  readonly statusBuffer: GPUBuffer;
  /** @internal The PairParams of the last encode (written only when they change). */
  readonly params: GPUBuffer;
  /** @internal The narrow phase's atomic counter (pairs found). */
  readonly counter: GPUBuffer;
  /** @internal The broad phase's candidates and their count, the narrow phase's indirect arguments, the walk's stack overflows. */
  readonly candidates: GPUBuffer;
  readonly candidateCount: GPUBuffer;
  readonly narrowArgs: GPUBuffer;
  readonly stackOverflows: GPUBuffer;
  /** @internal Bound as the narrow phase's contacts, which a list without contacts never writes. */
  readonly noContacts: GPUBuffer;
  private written: Uint32Array | undefined;
  private readonly lifetime: Lifetime;
  private readonly made: GPUBuffer[] = [];

  private constructor(readonly ctx: GpuContext, capacity: number, candidateCapacity: number, readonly label: string) {
    this.lifetime = new Lifetime(ctx, `PairListBuffers "${label}"`, false);
    this.capacity = capacity;
    this.candidateCapacity = candidateCapacity;
    try {
      this.pairsBuffer = this.make('pairs', capacity * 8, OUT | BufferUsage.VERTEX);
      this.statusBuffer = this.make('status', PAIR_LIST_STATUS.SIZE, OUT | BufferUsage.INDIRECT);
      this.params = this.make('params', PAIR_PARAMS.SIZE, BufferUsage.UNIFORM | BufferUsage.COPY_DST);
      this.counter = this.make('counter', 4, OUT);
      this.candidates = this.make('candidates', candidateCapacity * 8, OUT);
      this.candidateCount = this.make('candidate-count', 4, OUT);
      this.narrowArgs = this.make('narrow-args', 12, BufferUsage.STORAGE | BufferUsage.INDIRECT);
      this.stackOverflows = this.make('stack-overflows', 4, OUT);
      this.noContacts = this.make('no-contacts', 16, BufferUsage.STORAGE);
    } catch (error) {
      this.made.forEach((b) => ctx.destroyBuffer(b));
      throw error;
    }
  }

  private make(name: string, size: number, usage: number): GPUBuffer {
    const b = this.ctx.createBuffer({ label: `${this.ctx.label}:${this.label}:${name}`, size: Math.max(16, size), usage });
    this.made.push(b);
    return b;
  }

  /**
   * A list of `capacity` pairs (a positive integer) and its candidate list; CapacityError when
   * either does not fit one storage binding, before anything is allocated.
   */
  static create(ctx: GpuContext, capacity: number, options: PairListBuffersOptions = {}): PairListBuffers {
    ctx.assertAlive('createPairList');
    if (!(Number.isInteger(capacity) && capacity >= 1)) {
      throw new ValidationError('argument', undefined, 'capacity', `must be a positive integer (got ${String(capacity)})`);
    }
    if (typeof options !== 'object' || options === null) {
      throw new ValidationError('argument', undefined, 'options', 'must be { candidateCapacity?, label? }');
    }
    checkCapacity(options.candidateCapacity, 'candidateCapacity');
    const label = options.label ?? 'pair-list';
    if (typeof label !== 'string') {
      throw new ValidationError('argument', undefined, 'label', `must be a string (got ${String(label)})`);
    }
    ctx.assertBindingFits('pair list', capacity * 8, `${capacity} pairs × 8 bytes`);
    const bindable = Math.floor(Math.min(ctx.limits.maxStorageBufferBindingSize, ctx.limits.maxBufferSize) / 8);
    const candidateCapacity = options.candidateCapacity ?? Math.max(1, Math.min(8 * capacity, bindable));
    ctx.assertBindingFits('candidate pair list', candidateCapacity * 8, `${candidateCapacity} candidates × 8 bytes`);
    return new PairListBuffers(ctx, capacity, candidateCapacity, label);
  }

  /** Throws StaleObjectError when this list was destroyed or its device replaced. */
  assertUsable(operation: string): void {
    this.lifetime.assertUsable(operation);
  }

  /**
   * @internal Writes the PairParams when they differ from the last written (an encode that
   * repeats the last one's set size and options uploads nothing).
   */
  writeParams(words: Uint32Array): void {
    if (this.written && this.written.every((w, k) => w === words[k])) {
      return;
    }
    this.ctx.device.queue.writeBuffer(this.params, 0, words);
    this.written = words;
  }

  /**
   * Reads the status and the valid pairs back (two maps: the status first, then its count of
   * pairs), sorted. For a test's proof or a look while debugging; a frame has no need of it. Read
   * after the encoder that filled the list was submitted.
   *
   * @example
   * const list = gpu.createPairList(200_000); // filled by encodeAllPairs in a submitted encoder
 * const { pairs, status } = await list.read();
   * if (status.overflow !== 0) console.warn(`pair list overflow: ${status.found} found, ${list.capacity} kept`);
   */
  async read(): Promise<PairListRead> {
    const op = 'PairListBuffers.read';
    this.assertUsable(op);
    const words = new Uint32Array(await this.ctx.readback(this.statusBuffer, PAIR_LIST_STATUS.SIZE, 0, op));
    const S = PAIR_LIST_STATUS;
    const status: PairListState = {
      count: words[S.COUNT / 4]!, found: words[S.FOUND / 4]!, candidates: words[S.CANDIDATES / 4]!, overflow: words[S.OVERFLOW / 4]!,
      dispatch: [words[S.DISPATCH / 4]!, words[S.DISPATCH / 4 + 1]!, words[S.DISPATCH / 4 + 2]!],
    };
    const n = Math.min(status.count, this.capacity);
    const raw = n > 0 ? new Uint32Array(await this.ctx.readback(this.pairsBuffer, n * 8, 0, op)) : new Uint32Array(0);
    return { pairs: sortPairs(raw), status };
  }

  /** Runs `hook` once when this list is destroyed (its owner forgets it then). */
  onDestroy(hook: () => void): () => void {
    return this.lifetime.onDestroy(hook);
  }

  /** Frees the list's buffers (idempotent). Not between an encode and its encoder's submission. */
  destroy(): void {
    if (!this.lifetime.end()) {
      return;
    }
    this.made.forEach((b) => this.ctx.destroyBuffer(b));
  }
}
