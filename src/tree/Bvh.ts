/**
 * A linear BVH over a BoxSet, built and refitted on the GPU (host side of
 * shaders/tree/build.wgsl, with the radix sort of src/runtime/sort.ts).
 *
 * Build: centre bounds (parallel reduction) → 30-bit Morton codes → stable radix sort of
 * (code, index) → the root's split → one bottom-up sweep by frontier lists, one dispatch per
 * level, that links the radix tree (Apetrei 2014: Karras's tree without its per-node searches)
 * and computes every AABB on the way (see build.wgsl for why that needs no cross-invocation
 * memory ordering). Refit alone (boxes moved, same count) redoes the sweep along the build's links.
 *
 * The sweep also writes the wide records (shaders/tree/build.wgsl): per internal node its
 * up-to-four nodes two levels down and their AABBs, which every walk steps through (every other
 * level, four AABBs per step).
 *
 * Memory per box: 48 B (the box) + 32 B (node) + 128 B (wide record) + 8 B (key, value) + 8 B
 * (sort scratch) + 8 B (parents) + 4 B (refit counter) + 8 B (two frontier lists) ≈ 244 B: a
 * 1M-box tree takes about 196 MB besides the boxes.
 */
import { BVH_REFIT_STEPS, BVH_WG, BVH_WIDE_VEC4 } from '../constants.ts';
import type { BoxSet } from '../boxes/BoxSet.ts';
import type { GpuContext } from '../runtime/context.ts';
import { BufferUsage, MapMode } from '../runtime/flags.ts';
import { getKernel, type KernelName, type KernelPipeline } from '../runtime/pipelines.ts';
import { BVH_NODE } from '../layout/index.ts';
import { Lifetime } from '../runtime/lifetime.ts';
import { bindGroup, dispatch } from '../runtime/bind.ts';
import { RadixSort } from '../runtime/sort.ts';
import { blockTuning, type BlockTuning } from '../runtime/scan.ts';

const STORAGE = BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC;

const BUILD_KERNELS: readonly KernelName[] = [
  'bvhBoundsPartial', 'bvhBoundsFinal', 'bvhMorton', 'bvhRoot', 'bvhRefitLeaves', 'bvhRefitArgs', 'bvhRefitNodes',
];
/** The up-sweep's kernels, compiled twice: linking the tree (a build) and following its links (a refit). */
const SWEEP_KERNELS: ReadonlySet<KernelName> = new Set(['bvhRefitLeaves', 'bvhRefitNodes']);

/**
 * The phases of a build, in order (see profileBuild): `hierarchy` is the bottom-up sweep that
 * links the tree and computes its AABBs, wide records and SAH cost (what a refit redoes).
 */
export type BuildPhase = 'bounds' | 'codes' | 'sort' | 'hierarchy';
const BUILD_PHASES: readonly BuildPhase[] = ['bounds', 'codes', 'sort', 'hierarchy'];

/** The tree read back, for tests and tools. */
export interface BvhSnapshot {
  readonly count: number;
  /** Internal nodes: min xyz, left, max xyz, right per node (8 words; floats as Float32Array). */
  readonly nodeFloats: Float32Array;
  readonly nodeWords: Uint32Array;
  /** Wide records (BVH_WIDE_VEC4 vec4 per internal node: four entries of (min xyz, pointer bits) and (max xyz, 0)). */
  readonly wideFloats: Float32Array;
  readonly wideWords: Uint32Array;
  /** Sorted Morton codes and the box index at each sorted position. */
  readonly keys: Uint32Array;
  readonly values: Uint32Array;
  /** Parents of internal nodes [0, n − 1), then of leaves by sorted position. */
  readonly parents: Uint32Array;
  /** Times the root's AABB was computed by the last build or refit (1 when the refit finished). */
  readonly rootRefits: number;
  /** The tree's SAH cost as the last build or refit computed it on the GPU (see {@link Bvh.sahCost}). */
  readonly sah: number;
  /** Bounds of the box centres (min xyz, max xyz). */
  readonly bounds: Float32Array;
}

/**
 * @example
 * const bvh = await Bvh.create(ctx, set);
 * await bvh.build();            // full rebuild
 * await set.update(0, boxes);   // boxes moved…
 * await bvh.refit();            // …the same tree, new AABBs
 */
export class Bvh {
  readonly ctx: GpuContext;
  readonly set: BoxSet;
  /** Leaves (boxes) the buffers were sized for. */
  readonly capacity: number;
  /** Internal nodes, `count − 1` of them (one buffer entry at least). */
  readonly nodes: GPUBuffer;
  /**
   * The wide records every walk reads (written by the refit, shaders/tree/build.wgsl): per
   * internal node its up-to-four nodes two levels down with their AABBs, BVH_WIDE_VEC4 × 16 bytes each.
   */
  readonly wide: GPUBuffer;
  private readonly keys: GPUBuffer;
  private readonly values: GPUBuffer;
  /** The boxes in Morton order (the last build's sorted values), a permutation of 0 .. count − 1. */
  get leafOrder(): GPUBuffer {
    return this.values;
  }
  private readonly parents: GPUBuffer;
  private readonly refitCount: GPUBuffer;
  private readonly lists: [GPUBuffer, GPUBuffer];
  private readonly args: GPUBuffer;
  private readonly status: GPUBuffer;
  /** Where probeSah maps the status to (the tree's own: nothing shared outlives it). */
  private readonly statusRead: GPUBuffer;
  private probing: Promise<number> | undefined;
  private readonly bounds: GPUBuffer;
  private readonly params: GPUBuffer;
  private readonly sort: RadixSort;
  /** Leaves of the current tree (the set's count when it was last built). */
  private builtCount = -1;
  private readonly lifetime: Lifetime;

  private readonly tuning: BlockTuning;

  private constructor(ctx: GpuContext, set: BoxSet, capacity: number, sort: RadixSort, tuning: BlockTuning) {
    this.ctx = ctx;
    this.set = set;
    this.capacity = capacity;
    this.sort = sort;
    this.tuning = tuning;
    this.lifetime = new Lifetime(ctx, 'Bvh', false);
    const n = Math.max(2, capacity);
    const make = (label: string, size: number, usage = STORAGE): GPUBuffer =>
      ctx.createBuffer({ label: `${ctx.label}:bvh:${label}`, size: Math.max(16, size), usage });
    this.nodes = make('nodes', (n - 1) * BVH_NODE.SIZE);
    this.wide = make('wide', (n - 1) * BVH_WIDE_VEC4 * 16);
    this.keys = make('keys', n * 4);
    this.values = make('values', n * 4);
    this.parents = make('parents', (2 * n - 1) * 4);
    this.refitCount = make('refit-count', (n - 1) * 4);
    this.lists = [make('frontier-a', (n + 1) * 4), make('frontier-b', (n + 1) * 4)];
    this.args = make('args', 16, STORAGE | BufferUsage.INDIRECT);
    this.status = make('status', 16);
    this.statusRead = make('status-read', 16, BufferUsage.MAP_READ | BufferUsage.COPY_DST);
    this.bounds = make('bounds', (2 + 2 * this.partials(n)) * 16);
    this.params = make('params', 16, BufferUsage.UNIFORM | BufferUsage.COPY_DST);
  }

  /** Bytes of the largest buffer of a tree over `boxes` boxes: its wide records. */
  static wideBytes(boxes: number): number {
    return (Math.max(2, boxes) - 1) * BVH_WIDE_VEC4 * 16;
  }

  /** Whether a tree over `boxes` boxes fits the context's binding limits ('auto' walks one only then). */
  static fits(ctx: GpuContext, boxes: number): boolean {
    return Bvh.wideBytes(boxes) <= Math.min(ctx.limits.maxStorageBufferBindingSize, ctx.limits.maxBufferSize);
  }

  /**
   * Allocates a tree for `set` (room for `capacity` boxes, default the set's count). A tree whose
   * wide records would not fit one binding is refused with a CapacityError first.
   */
  static async create(ctx: GpuContext, set: BoxSet, capacity = set.count): Promise<Bvh> {
    const n = Math.max(2, capacity);
    ctx.assertBindingFits('BVH wide records', Bvh.wideBytes(n), `${n - 1} internal nodes × ${BVH_WIDE_VEC4 * 16} bytes`);
    const tuning = blockTuning(ctx);
    const sort = await RadixSort.create(ctx, Math.max(2, capacity), tuning);
    const bvh = new Bvh(ctx, set, Math.max(2, capacity), sort, tuning);
    await Promise.all([...BUILD_KERNELS.map((k) => bvh.kernel(k)), ...[...SWEEP_KERNELS].map((k) => bvh.kernel(k, true))]);
    return bvh;
  }

  /** Workgroups of the bounds reduction for n boxes. */
  private partials(n: number): number {
    return Math.max(1, Math.ceil(n / (this.tuning.boundsWg * this.tuning.boundsPerThread)));
  }

  /** Leaves of the built tree (-1 before the first build). */
  get count(): number {
    return this.builtCount;
  }

  /** A build kernel; `link` picks the up-sweep's linking variant (override LINK). */
  private kernel<K extends KernelName>(name: K, link = false): Promise<KernelPipeline<K>> {
    const bounds = name === 'bvhBoundsPartial' || name === 'bvhBoundsFinal';
    return getKernel(this.ctx.device, name, undefined,
      bounds ? { BOUNDS_WG: this.tuning.boundsWg, BOUNDS_PER_THREAD: this.tuning.boundsPerThread } : SWEEP_KERNELS.has(name) ? { LINK: link ? 1 : 0 } : {});
  }

  /** Throws StaleObjectError when this tree was destroyed or its device replaced. */
  assertUsable(operation: string): void {
    this.lifetime.assertUsable(operation);
  }

  private check(count: number, operation = 'Bvh'): void {
    this.assertUsable(operation);
    if (count > this.capacity) {
      throw new RangeError(`Bvh: ${count} boxes exceed the tree's capacity ${this.capacity}; create a larger Bvh`);
    }
  }

  /** The [n, partials] last written to `params` (only Bvh writes it). */
  private paramsWritten: readonly [number, number] | undefined;

  /**
   * Writes the build and refit parameters for `n` boxes, unless they are already there: a frame
   * that refits the same tree uploads nothing (a GPU-sourced set's frame loop counts on it).
   */
  private writeParams(n: number): void {
    const partials = this.partials(n);
    if (this.paramsWritten?.[0] === n && this.paramsWritten[1] === partials) {
      return;
    }
    this.ctx.device.queue.writeBuffer(this.params, 0, new Uint32Array([n, partials, 0, 0]));
    this.paramsWritten = [n, partials];
  }

  /**
   * Records a full build over the set's current boxes into `encoder` (two clears, then one
   * compute pass). The caller submits.
   */
  async encodeBuild(encoder: GPUCommandEncoder, timestampWrites?: GPUComputePassTimestampWrites): Promise<void> {
    const n = this.set.count;
    this.check(n);
    this.writeParams(n);
    this.encodeClears(encoder);
    const pass = encoder.beginComputePass(timestampWrites ? { label: 'obb:bvh-build', timestampWrites } : { label: 'obb:bvh-build' });
    for (const phase of BUILD_PHASES) {
      await this.encodePhase(phase, pass, n);
    }
    pass.end();
    this.builtCount = n;
  }

  /**
   * Takes back what {@link encodeBuild} recorded about the tree (its leaf count, `count` as read
   * before the call) when the encoder it recorded into was never submitted on a live device (the
   * device was lost first): the tree then says what it said before (ObbGpu's rule for work in
   * flight at a loss, src/runtime/context.ts).
   *
   * @example
   * const leaves = bvh.count;
   * await bvh.encodeBuild(encoder);
   * try {
   *   await ctx.scoped('my build', () => ctx.device.queue.submit([encoder.finish()]));
   * } catch (error) {
   *   bvh.abandonBuild(leaves); // never ran: the tree says what it said before
   *   throw error;
   * }
   */
  abandonBuild(count: number): void {
    this.builtCount = count;
  }

  /** Records one phase of a build (params written, counters cleared by the caller). */
  private async encodePhase(phase: BuildPhase, pass: GPUComputePassEncoder, n: number): Promise<void> {
    const device = this.ctx.device;
    const groups = Math.ceil(n / BVH_WG);
    switch (phase) {
      case 'bounds': {
        const partials = this.partials(n);
        dispatch(device, pass, await this.kernel('bvhBoundsPartial'), { bvhParams: this.params, boxes: this.set.buffer, bounds: this.bounds }, partials, 'obb:bvh-bounds');
        dispatch(device, pass, await this.kernel('bvhBoundsFinal'), { bvhParams: this.params, bounds: this.bounds }, 1, 'obb:bvh-bounds-final');
        return;
      }
      case 'codes':
        dispatch(device, pass, await this.kernel('bvhMorton'), { bvhParams: this.params, boxes: this.set.buffer, bounds: this.bounds, keys: this.keys, vals: this.values }, groups, 'obb:bvh-morton');
        return;
      case 'sort':
        await this.sort.encode(pass, this.keys, this.values, n, 30);
        return;
      case 'hierarchy':
        if (n >= 2) {
          dispatch(device, pass, await this.kernel('bvhRoot'), { bvhParams: this.params, keys: this.keys, status: this.status }, 1, 'obb:bvh-root');
        }
        await this.encodeSweep(pass, n, true);
        return;
    }
  }

  /**
   * Records a refit (new AABBs for the same tree) into `encoder`. The set must have the count the
   * tree was built for; use encodeBuild after the set changed size.
   */
  async encodeRefit(encoder: GPUCommandEncoder, timestampWrites?: GPUComputePassTimestampWrites): Promise<void> {
    const n = this.set.count;
    this.check(n);
    if (n !== this.builtCount) {
      throw new Error(`Bvh: the set has ${n} boxes but the tree was built for ${this.builtCount}; rebuild it`);
    }
    this.writeParams(n);
    this.encodeClears(encoder);
    const pass = encoder.beginComputePass(timestampWrites ? { label: 'obb:bvh-refit', timestampWrites } : { label: 'obb:bvh-refit' });
    await this.encodeSweep(pass, n, false);
    pass.end();
  }

  private encodeClears(encoder: GPUCommandEncoder): void {
    encoder.clearBuffer(this.refitCount);
    encoder.clearBuffer(this.lists[0], 0, 16);
    encoder.clearBuffer(this.lists[1], 0, 16);
    encoder.clearBuffer(this.status);
  }

  /** The bottom-up sweep: linking the tree as it goes (a build) or along its links (a refit). */
  private async encodeSweep(pass: GPUComputePassEncoder, n: number, link: boolean): Promise<void> {
    if (n < 2) {
      return;
    }
    const device = this.ctx.device;
    const [leaves, argsKernel, nodesKernel] = await Promise.all(
      [this.kernel('bvhRefitLeaves', link), this.kernel('bvhRefitArgs'), this.kernel('bvhRefitNodes', link)]);
    dispatch(device, pass, leaves, {
      bvhParams: this.params, boxes: this.set.buffer, keys: this.keys, vals: this.values, parents: this.parents,
      refitCount: this.refitCount, listOut: this.lists[0], status: this.status, wide: this.wide,
    }, Math.ceil(n / BVH_WG), 'obb:bvh-sweep-leaves');
    // Two bind groups per kernel (the frontier lists swap roles each step), made once.
    const groups = (listIn: GPUBuffer, listOut: GPUBuffer): [GPUBindGroup, GPUBindGroup] => [
      bindGroup(device, argsKernel, { listOut, listIn, args: this.args }, 'obb:bvh-refit-args'),
      bindGroup(device, nodesKernel, {
        bvhParams: this.params, keys: this.keys, nodes: this.nodes, parents: this.parents, refitCount: this.refitCount, listOut, listIn, status: this.status, wide: this.wide,
      }, 'obb:bvh-sweep-nodes'),
    ];
    const even = groups(this.lists[0], this.lists[1]);
    const odd = groups(this.lists[1], this.lists[0]);
    for (let step = 0; step < BVH_REFIT_STEPS; step++) {
      const [argsGroup, nodesGroup] = step % 2 === 0 ? even : odd;
      pass.setPipeline(argsKernel.pipeline);
      pass.setBindGroup(0, argsGroup);
      pass.dispatchWorkgroups(1);
      pass.setPipeline(nodesKernel.pipeline);
      pass.setBindGroup(0, nodesGroup);
      pass.dispatchWorkgroupsIndirect(this.args, 0);
    }
  }

  /**
   * Builds the tree phase by phase, each phase its own submission, and times them: GPU time from
   * timestamp queries when the device has them, else wall time from submit to the queue's idle.
   * For benchmarks (the phases' submissions add overhead that a normal build does not have).
   *
   * @example
   * const t = await bvh.profileBuild(); // { bounds: 0.4, codes: 0.2, sort: 2.1, hierarchy: 1.6 } ms
   */
  async profileBuild(): Promise<{ readonly timing: 'gpu-timestamp' | 'gpu-wall'; readonly phases: Readonly<Record<BuildPhase, number>> }> {
    const n = this.set.count;
    this.check(n);
    const device = this.ctx.device;
    this.writeParams(n);
    const hasTs = device.features.has('timestamp-query');
    const querySet = hasTs ? device.createQuerySet({ type: 'timestamp', count: 2 }) : undefined;
    const resolve = hasTs ? device.createBuffer({ size: 16, usage: BufferUsage.QUERY_RESOLVE | BufferUsage.COPY_SRC }) : undefined;
    const phases: Partial<Record<BuildPhase, number>> = {};
    try {
      for (const phase of BUILD_PHASES) {
        const encoder = device.createCommandEncoder({ label: `obb:bvh-${phase}` });
        if (phase === 'bounds') {
          this.encodeClears(encoder);
        }
        const pass = encoder.beginComputePass(querySet ? { timestampWrites: { querySet, beginningOfPassWriteIndex: 0, endOfPassWriteIndex: 1 } } : {});
        await this.encodePhase(phase, pass, n);
        pass.end();
        if (querySet && resolve) {
          encoder.resolveQuerySet(querySet, 0, 2, resolve, 0);
        }
        const t0 = performance.now();
        await this.ctx.scoped(`Bvh.profileBuild ${phase}`, () => device.queue.submit([encoder.finish()]));
        await device.queue.onSubmittedWorkDone();
        const wall = performance.now() - t0;
        let ms = wall;
        if (resolve) {
          const [begin, end] = new BigUint64Array(await this.ctx.readback(resolve, 16, 0, 'profileBuild'));
          const gpu = Number(end! - begin!) / 1e6;
          ms = gpu > 0 ? gpu : wall;
        }
        phases[phase] = ms;
      }
      this.builtCount = n;
    } finally {
      querySet?.destroy();
      resolve?.destroy();
    }
    return { timing: resolve ? 'gpu-timestamp' : 'gpu-wall', phases: phases as Record<BuildPhase, number> };
  }

  /** Builds the tree now (submitted in order with the set's other work). */
  async build(): Promise<void> {
    await this.ctx.sequence('Bvh.build', async () => {
      const encoder = this.ctx.device.createCommandEncoder({ label: 'obb:bvh-build' });
      await this.encodeBuild(encoder);
      await this.ctx.scoped(`Bvh.build (${this.set.count} boxes)`, () => this.ctx.device.queue.submit([encoder.finish()]));
    });
  }

  /** Refits the tree now (boxes moved; same count). */
  async refit(): Promise<void> {
    await this.ctx.sequence('Bvh.refit', async () => {
      const encoder = this.ctx.device.createCommandEncoder({ label: 'obb:bvh-refit' });
      await this.encodeRefit(encoder);
      await this.ctx.scoped(`Bvh.refit (${this.set.count} boxes)`, () => this.ctx.device.queue.submit([encoder.finish()]));
    });
  }

  /**
   * The SAH cost of the tree as the last build or refit left it (unit costs: Σ of every node's
   * and leaf's AABB area over the root's, what bvhSahCost counts over a snapshot), computed on the
   * GPU by the refit; 8 bytes read back. A refit keeps the tree's shape while boxes move, so this
   * grows as they scatter; ObbGpu rebuilds when it passes BVH_REBUILD_SAH_RATIO × the build's.
   *
   * @example
   * const built = await bvh.sahCost(); // after a build
   * await bvh.refit();
   * if ((await bvh.sahCost()) > 1.5 * built) await bvh.build();
   */
  async sahCost(): Promise<number> {
    this.assertUsable('Bvh.sahCost');
    return new Float32Array(await this.ctx.readback(this.status, 8, 0, 'Bvh.sahCost'))[1]!;
  }

  /**
   * sahCost through the tree's own mappable buffer (ObbGpu's read-back after each build and
   * refit): it ends with the tree, so a probe in flight when the tree is destroyed holds nothing
   * of the context's (it then rejects). One at a time: a second call waits for the first.
   */
  async probeSah(): Promise<number> {
    const previous = this.probing;
    const run = (async (): Promise<number> => {
      await previous?.catch(() => undefined);
      this.assertUsable('Bvh.probeSah');
      await this.ctx.scoped('Bvh.probeSah', () => {
        const encoder = this.ctx.device.createCommandEncoder({ label: `${this.ctx.label}:bvh-probe` });
        encoder.copyBufferToBuffer(this.status, 0, this.statusRead, 0, 16);
        this.ctx.device.queue.submit([encoder.finish()]);
      });
      // Destroyed while the submission's scope was awaited: mapping a destroyed buffer is a
      // validation error (the nightly fuzz found it), so refuse here, in the same turn as the map.
      this.assertUsable('Bvh.probeSah');
      await this.statusRead.mapAsync(MapMode.READ, 0, 16);
      const sah = new Float32Array(this.statusRead.getMappedRange(0, 16).slice(0))[1]!;
      this.statusRead.unmap();
      return sah;
    })();
    this.probing = run;
    return run;
  }

  /** Reads the whole tree back (tests, tools). */
  async snapshot(): Promise<BvhSnapshot> {
    const n = this.builtCount;
    const internal = Math.max(0, n - 1);
    const [nodes, wide, keys, values, parents, status, bounds] = await Promise.all([
      this.ctx.readback(this.nodes, internal * BVH_NODE.SIZE),
      this.ctx.readback(this.wide, internal * BVH_WIDE_VEC4 * 16),
      this.ctx.readback(this.keys, n * 4),
      this.ctx.readback(this.values, n * 4),
      this.ctx.readback(this.parents, Math.max(0, 2 * n - 1) * 4),
      this.ctx.readback(this.status, 8),
      this.ctx.readback(this.bounds, 32),
    ]);
    return {
      count: n,
      nodeFloats: new Float32Array(nodes),
      nodeWords: new Uint32Array(nodes),
      wideFloats: new Float32Array(wide),
      wideWords: new Uint32Array(wide),
      keys: new Uint32Array(keys),
      values: new Uint32Array(values),
      parents: new Uint32Array(parents),
      rootRefits: new Uint32Array(status)[0]!,
      sah: new Float32Array(status)[1]!,
      bounds: Float32Array.from([...new Float32Array(bounds).subarray(0, 3), ...new Float32Array(bounds).subarray(4, 7)]),
    };
  }

  /** Frees the tree's buffers and its sort (idempotent). */
  destroy(): void {
    if (!this.lifetime.end()) {
      return;
    }
    for (const b of [this.nodes, this.wide, this.keys, this.values, this.parents, this.refitCount, ...this.lists, this.args, this.status, this.statusRead, this.bounds, this.params]) {
      this.ctx.destroyBuffer(b);
    }
    this.sort.destroy();
  }
}
