/**
 * Suite `reliability`: bad input on every GPU entry point (rejected before anything reaches the
 * GPU), ordering of un-awaited calls, capacity limits (CapacityError, never a truncated list),
 * device loss and recovery, error-scope errors named by operation, and precision far from the
 * world origin. Driven by test/gpu/reliability.test.ts.
 */
import { BoxSet, CapacityError, GpuError, ObbGpu, ValidationError, frustumPlanes, linearElevations, type BoxArray, type GpuHitBuffers, type RayArray, type Vec3 } from '../../../../src/index.ts';
import { compareAllHits, compareClosestHits, comparePairLists, comparePairs, mulberry32, randomBoxes, randomRays } from '../../../../src/judge/index.ts';
import { allPairs, closestHit } from '../../../../src/reference/index.ts';
import { GpuContext, RayQueries, type Bvh } from '../../../../src/advanced.ts';
import { getGpu, scoped, summarize, type ComparisonSummary } from '../shared.ts';

/** What one rejected call threw, and whether it touched the GPU. */
export interface Rejection {
  name: string;
  message: string;
  kind?: string;
  index?: number | undefined;
  field?: string;
  /** createBuffer / writeBuffer / submit / createBindGroup / createCommandEncoder calls it made. */
  gpuCalls: number;
}

const unit = { center: [0, 0, 0] as const, halfExtents: [1, 1, 1] as const, rotation: [0, 0, 0, 1] as const };
const ray = { origin: [-5, 0, 0] as const, direction: [1, 0, 0] as const };

function scene(seed: number, boxes: number, rays: number, offset: Vec3 = [0, 0, 0]): { boxes: BoxArray; rays: RayArray } {
  const rnd = mulberry32(seed);
  const b = randomBoxes(boxes, rnd, { extent: 10, halfMin: 0.2, halfMax: 2, offset });
  return { boxes: b, rays: randomRays(rays, b, rnd, { extent: 15, aimed: 0.8, offset }) };
}

/** Counts the calls that would put something on the GPU, on `device`, until `restore()`. */
function countGpuCalls(device: GPUDevice): { readonly count: number; restore(): void } {
  let count = 0;
  const patched: [object, string, unknown][] = [];
  const wrap = (target: object, name: string): void => {
    const original = (target as Record<string, unknown>)[name] as (...a: unknown[]) => unknown;
    patched.push([target, name, original]);
    (target as Record<string, unknown>)[name] = (...args: unknown[]) => {
      count++;
      return original.apply(target, args);
    };
  };
  wrap(device, 'createBuffer');
  wrap(device, 'createBindGroup');
  wrap(device, 'createCommandEncoder');
  wrap(device.queue, 'writeBuffer');
  wrap(device.queue, 'submit');
  return {
    get count() {
      return count;
    },
    restore() {
      for (const [target, name, original] of patched.reverse()) {
        (target as Record<string, unknown>)[name] = original;
      }
    },
  };
}

async function rejection(counter: { readonly count: number }, call: () => unknown): Promise<Rejection> {
  const before = counter.count;
  try {
    await call();
  } catch (e) {
    const error = e as Error & { kind?: string; index?: number; field?: string };
    return {
      name: error.name, message: error.message, gpuCalls: counter.count - before,
      ...(error instanceof ValidationError ? { kind: error.kind, index: error.index, field: error.field } : {}),
    };
  }
  return { name: 'accepted', message: 'the call was accepted', gpuCalls: counter.count - before };
}

/**
 * Every public GPU entry point with bad arguments: each must throw a typed error naming the item
 * and field, and make no GPU call on the way. Returns the rejections by case name.
 */
export async function badInput() {
  return scoped(async (gpu) => {
    const device = gpu.ctx.device;
    const { boxes, rays } = scene(61, 20, 10);
    const set = gpu.createBoxSet(boxes);
    // A set on another device (a bare context: no kernels to compile).
    const otherCtx = await GpuContext.create();
    const foreign = BoxSet.create(otherCtx, [unit]);
    const encoder = device.createCommandEncoder();
    const counter = countGpuCalls(device);
    const out: Record<string, Rejection> = {};
    const nanBox = { ...unit, center: [0, NaN, 0] as const };
    const bad: [string, () => unknown][] = [
      // BoxSet creation
      ['createBoxSet: NaN centre', () => gpu.createBoxSet([unit, unit, nanBox])],
      ['createBoxSet: Infinity half extent', () => gpu.createBoxSet([{ ...unit, halfExtents: [1, Infinity, 1] }])],
      ['createBoxSet: negative half extent', () => gpu.createBoxSet([unit, { ...unit, halfExtents: [1, 1, -0.5] }])],
      ['createBoxSet: non-orthonormal axes', () => gpu.createBoxSet([{ center: [0, 0, 0], halfExtents: [1, 1, 1], axes: [[1, 0, 0], [0.1, 1, 0], [0, 0, 1]] }])],
      ['createBoxSet: zero quaternion', () => gpu.createBoxSet([{ ...unit, rotation: [0, 0, 0, 0] }])],
      ['createBoxSet: not an array', () => gpu.createBoxSet('boxes' as never)],
      ['createBoxSet: BoxArray count mismatch', () => gpu.createBoxSet({ count: 3, data: boxes.data })],
      ['createBoxSet: masks length', () => gpu.createBoxSet(boxes, { masks: new Uint32Array(3) })],
      ['createBoxSet: masks type', () => gpu.createBoxSet(boxes, { masks: [1, 2] as never })],
      ['createBoxSet: capacity', () => gpu.createBoxSet(boxes, { capacity: 1.5 })],
      ['createBoxSet: origin', () => gpu.createBoxSet(boxes, { origin: [0, NaN, 0] })],
      ['createBoxSet: huge coordinate', () => gpu.createBoxSet([unit, { ...unit, center: [0, 0, 1e300] }])],
      // BoxSet changes
      ['set: NaN', () => set.set([unit, nanBox])],
      ['update: first out of range', () => set.update(19, [unit, unit])],
      ['update: negative first', () => set.update(-1, [unit])],
      ['update: bad box', () => set.update(0, [unit, { ...unit, halfExtents: [-1, 1, 1] }])],
      ['setMasks: past the end', () => set.setMasks(new Uint32Array(5), 18)],
      ['setMasks: type', () => set.setMasks([1] as never)],
      ['rebase: origin', () => set.rebase([0, 0] as never)],
      ['rebase: too far', () => set.rebase([0, 0, 1e16])],
      // Ray queries
      ['closestHit: zero direction', () => gpu.closestHit(set, [ray, { origin: [0, 0, 0], direction: [0, 0, 0] }])],
      ['closestHit: NaN origin', () => gpu.closestHit(set, [{ origin: [0, 0, NaN], direction: [1, 0, 0] }])],
      ['closestHit: negative maxDistance', () => gpu.closestHit(set, [{ ...ray, maxDistance: -1 }])],
      ['closestHit: RayArray length', () => gpu.closestHit(set, { count: 2, data: rays.data })],
      ['closestHit: rayMasks length', () => gpu.closestHit(set, rays, { rayMasks: new Uint32Array(3) })],
      ['closestHit: rayMasks type', () => gpu.closestHit(set, rays, { rayMasks: [1] as never })],
      ['closestHit: exclude out of range', () => gpu.closestHit(set, rays, { exclude: Int32Array.from({ length: 10 }, (_, i) => (i === 7 ? 20 : -1)) })],
      ['closestHit: exclude length', () => gpu.closestHit(set, rays, { exclude: new Int32Array(2) })],
      ['closestHit: set of another context', () => gpu.closestHit(foreign, rays)],
      ['closestHit: not a set', () => gpu.closestHit({} as never, rays)],
      ['closestHit: huge ray origin', () => gpu.closestHit(set, [ray, { origin: [2e15, 0, 0], direction: [1, 0, 0] }])],
      ['anyHit: zero direction', () => gpu.anyHit(set, [{ origin: [0, 0, 0], direction: [0, 0, 0] }])],
      ['allHits: capacity', () => gpu.allHits(set, rays, { capacity: 0 })],
      ['closestHitBuffers: NaN', () => gpu.closestHitBuffers(set, [{ origin: [NaN, 0, 0], direction: [1, 0, 0] }])],
      ['encodeClosestHit: rayCount', () => gpu.rays.encodeClosestHit(encoder, set, set.buffer, -1, set.buffer, set.buffer)],
      ['encodeClosestHit: hits too small', () => gpu.rays.encodeClosestHit(encoder, set, set.buffer, 10, set.maskBuffer, set.buffer)],
      // Pair queries
      ['obbPairs: index out of range', () => gpu.obbPairs(set, [[0, 1], [3, 20]])],
      ['obbPairs: odd flat length', () => gpu.obbPairs(set, new Uint32Array(3))],
      ['obbPairs: non-integer index', () => gpu.obbPairs(set, [[0.5, 1]])],
      ['obbPairs: not a pair', () => gpu.obbPairs(set, [[0, 1], [2] as never])],
      ['obbPairs: tolerance', () => gpu.obbPairs(set, [[0, 1]], { tolerance: NaN })],
      ['obbOneVsMany: bad box', () => gpu.obbOneVsMany({ ...unit, rotation: [0, 0, 0, 0] }, set)],
      ['obbCross: set of another context', () => gpu.obbCross(set, foreign)],
      ['allPairs: capacity', () => gpu.allPairs(set, { capacity: -1 })],
      ['create: workgroupSize', () => ObbGpu.create({ workgroupSize: 0 })],
      ['create: limits', () => ObbGpu.create({ limits: { maxBufferSize: -1 } })],
    ];
    try {
      const before = counter.count;
      for (const [name, call] of bad) {
        out[name] = await rejection(counter, call);
      }
      const total = counter.count - before;
      counter.restore();
      // Empty inputs are valid and give empty results (and the set is intact after all this).
      const none = gpu.createBoxSet([]);
      const empty = {
        closestOnEmptySet: Array.from((await gpu.closestHit(none, [ray])).box),
        anyOnEmptySet: Array.from(await gpu.anyHit(none, [ray])),
        allHitsNoRays: (await gpu.allHits(set, [])).count,
        oneVsManyEmptySet: (await gpu.obbOneVsMany(unit, none)).count,
        crossWithEmpty: (await gpu.obbCross(set, none)).count,
        pairsNone: (await gpu.obbPairs(none, [])).count,
        buffersNoRays: (await gpu.closestHitBuffers(none, [])).count,
      };
      none.destroy();
      const after = await gpu.closestHit(set, rays);
      const intact = summarize(compareClosestHits({ boxes, rays, origin: set.origin }, after));
      return { rejections: out, gpuCallsWhileRejecting: total, empty, intact };
    } finally {
      counter.restore();
      encoder.finish();
      set.destroy();
      otherCtx.destroy();
    }
  });
}

/**
 * A context whose storage bindings are limited to `bindingLimit` bytes: every path that would
 * exceed it throws a CapacityError that names the limit and says what to do; nothing is
 * truncated, and a refused change leaves the set intact.
 */
export async function capacity(bindingLimit: number) {
  // The page's device, with lowered limits (its kernels are compiled already).
  const shared = await getGpu();
  const gpu = await ObbGpu.create({ device: shared.ctx.device, limits: { maxStorageBufferBindingSize: bindingLimit, maxBufferSize: 4 * bindingLimit } });
  const errors: Record<string, { name: string; message: string; limit?: string; requested?: number; available?: number }> = {};
  const capture = async (name: string, call: () => unknown): Promise<void> => {
    try {
      await call();
      errors[name] = { name: 'accepted', message: '' };
    } catch (e) {
      const error = e as Error;
      errors[name] = {
        name: error.name, message: error.message,
        ...(error instanceof CapacityError ? { limit: error.limit, requested: error.requested, available: error.available } : {}),
      };
    }
  };
  try {
    const fit = Math.floor(bindingLimit / 48);
    const rnd = mulberry32(71);
    const boxes = randomBoxes(fit, rnd, { extent: 3, halfMin: 0.5, halfMax: 2 });
    const more = randomBoxes(fit + 1, rnd, { extent: 3, halfMin: 0.5, halfMax: 2 });
    const rays = randomRays(fit, boxes, rnd, { extent: 6, aimed: 1 });
    const tooManyRays = randomRays(fit + 1, boxes, rnd, { extent: 6 });
    const set = gpu.createBoxSet(boxes, { capacity: Math.floor(fit / 2) + 1 });
    await capture('createBoxSet over the limit', () => gpu.createBoxSet(more));
    await capture('set() growing past the limit', () => set.set(more));
    await capture('closestHit with too many rays', () => gpu.closestHit(set, tooManyRays));
    // Dense scene: far more hits and overlapping pairs than one binding holds.
    await capture('allHits list beyond the limit', () => gpu.allHits(set, rays));
    await capture('allPairs list beyond the limit', () => gpu.allPairs(set));
    // Pair indices fit (8 bytes each) but their results (12 bytes each) do not.
    const n = Math.floor(bindingLimit / 8);
    await capture('obbPairs results beyond the limit', () => gpu.obbPairs(set, Uint32Array.from({ length: 2 * n }, (_, k) => k % fit)));
    await capture('buffer beyond maxBufferSize', () => gpu.ctx.createBuffer({ size: 4 * bindingLimit + 4, usage: GPUBufferUsage.STORAGE }));
    // The refused set() left the set as it was.
    const hits = await gpu.closestHit(set, rays);
    const intact = summarize(compareClosestHits({ boxes, rays, origin: set.origin }, hits));
    // Small enough lists still arrive whole, through the overflow re-run.
    const sparse = randomRays(20, boxes, rnd, { extent: 6, aimed: 0.5 });
    const all = await gpu.allHits(set, sparse, { capacity: 1 });
    const allSummary = summarize(compareAllHits({ boxes, rays: sparse, origin: set.origin }, all));
    return { errors, count: set.count, fit, intact, allHits: { summary: allSummary, runs: all.runs, count: all.count } };
  } finally {
    gpu.destroy();
  }
}

interface LossReport {
  inFlight: Record<string, string>;
  later: Record<string, string>;
  hostIntact: boolean;
  sameSet: boolean;
  afterRecover: ComparisonSummary;
  exactBoxes: boolean;
  afterUpdate: ComparisonSummary;
  allPairsAfter: ComparisonSummary;
  recoveries: number;
  liveBuffers: number;
  wrappedDevice: string;
}

const errorName = (e: unknown): string => (e instanceof Error ? `${e.name}: ${e.message}` : String(e));

/** Settles `p` and names the error it rejects with ('resolved' if it does not). */
async function outcome(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'resolved';
  } catch (e) {
    return errorName(e);
  }
}

/**
 * Device loss simulated with `device.destroy()`: queries in flight and queries issued later
 * reject with DeviceLostError; an update in flight is dropped whole; `recover()` rebuilds the
 * same BoxSet on a new device from its host copy, and the next answers equal the reference.
 */
export async function deviceLoss(seed: number): Promise<LossReport> {
  const gpu = await ObbGpu.create();
  try {
    const { boxes, rays } = scene(seed, 200, 5000);
    const replacement = scene(seed + 1, 200, 1).boxes;
    const set = gpu.createBoxSet(boxes);
    const before = set.boxes;
    await gpu.closestHit(set, rays);
    // In flight: issued, not finished, when the device goes.
    const pending = {
      closestHit: gpu.closestHit(set, rays),
      anyHit: gpu.anyHit(set, rays),
      allHits: gpu.allHits(set, rays),
      allPairs: gpu.allPairs(set),
      obbPairs: gpu.obbPairs(set, [[0, 1]]),
      update: set.update(0, { count: 10, data: replacement.data.slice(0, 150) }),
    };
    gpu.ctx.device.destroy();
    const inFlight: Record<string, string> = {};
    for (const [name, p] of Object.entries(pending)) {
      inFlight[name] = await outcome(p);
    }
    const later = {
      closestHit: await outcome(gpu.closestHit(set, rays)),
      update: await outcome(set.update(0, [unit])),
      createBoxSet: await outcome(Promise.resolve().then(() => gpu.createBoxSet([unit]))),
    };
    const hostIntact = set.boxes === before;
    const ref = set;
    await gpu.recover();
    const hits = await gpu.closestHit(set, rays);
    const afterRecover = summarize(compareClosestHits({ boxes: set.boxes, rays, origin: set.origin }, hits));
    const want = closestHit(set.boxes, rays);
    const exactBoxes = hits.box.every((b, r) => b === want.box[r] || afterRecover.ambiguous > 0);
    // The recovered set takes updates, and answers for them.
    await set.set(replacement);
    const updated = await gpu.closestHit(set, rays);
    const afterUpdate = summarize(compareClosestHits({ boxes: replacement, rays, origin: set.origin }, updated));
    const pairs = await gpu.allPairs(set);
    const allPairsAfter = summarize(comparePairLists({ a: replacement, origin: set.origin }, pairs.pairs));
    // A context wrapping a caller's device cannot make a new one by itself.
    const wrapped = await GpuContext.create({ device: gpu.ctx.device });
    const wrappedDevice = await outcome(wrapped.recover());
    return {
      inFlight, later, hostIntact, sameSet: ref === set && set instanceof BoxSet, afterRecover, exactBoxes,
      afterUpdate, allPairsAfter, recoveries: gpu.ctx.recoveryCount, liveBuffers: gpu.ctx.liveBuffers, wrappedDevice,
    };
  } finally {
    gpu.destroy();
  }
}

/** How a device-loss trial takes the device away. */
export type LossKind = 'device.destroy' | 'ctx.destroy';

/**
 * When a trial destroys the device: in the turn that issued the work, in the next task, in the
 * task after the k-th queue submission made after that turn (`submit-k`: the loss lands inside
 * the operations, between a submission and what follows it), or in the task after the sweep or
 * the all-pairs settled. Always from a task of its own (or the issuing turn), so an operation
 * that completed before the loss has settled by then.
 */
export type LossMoment = 'sync' | 'timeout-0' | `submit-${number}` | 'after-sweep' | 'after-allPairs';

/** One trial: when the device goes, and whether a sweep and an all-pairs are queued ahead of the rest. */
export interface LossPlan {
  readonly moment: LossMoment;
  readonly ahead: boolean;
}

const MOMENTS: readonly LossMoment[] = ['sync', 'timeout-0', 'submit-1', 'submit-2', 'submit-4', 'submit-8', 'submit-16'];

/**
 * The trials by index (seed 3300 + index): with the sweep and the all-pairs queued ahead of the
 * operations under test, as found, at each moment (0–8); then behind them (9–15), the operations
 * meeting an idle queue as an update issued just before the loss does (without the two `after-`
 * moments, by which nearly everything has completed).
 */
export const LOSS_PLAN: readonly LossPlan[] = [
  ...[...MOMENTS, 'after-sweep' as const, 'after-allPairs' as const].map((moment) => ({ moment, ahead: true })),
  ...MOMENTS.map((moment) => ({ moment, ahead: false })),
];

/** The trials of the context's `destroy()`: every other one of LOSS_PLAN (both queues, eight moments). */
export const CTX_LOSS_TRIALS: readonly number[] = LOSS_PLAN.map((_, k) => k).filter((k) => k % 2 === 0);

/** What a set's host side says about it: its float64 boxes (by identity and value), count, versions, masks, origin. */
interface HostState {
  readonly boxes: BoxArray;
  readonly data: Float64Array;
  readonly count: number;
  readonly version: number;
  readonly shapeVersion: number;
  readonly masks: Uint32Array | undefined;
  readonly origin: Vec3;
}

function hostState(set: BoxSet): HostState {
  return {
    boxes: set.boxes, data: set.boxes.data.slice(), count: set.count, version: set.version, shapeVersion: set.shapeVersion,
    masks: set.masks?.slice(), origin: [...set.origin],
  };
}

/** Where two host states differ ('' when they do not). */
function hostDiff(a: HostState, b: HostState): string {
  const out: string[] = [];
  if (a.boxes !== b.boxes) {
    out.push('host copy replaced');
  }
  if (a.count !== b.count || a.data.length !== b.data.length || a.data.some((v, i) => !Object.is(v, b.data[i]))) {
    out.push(`boxes (count ${a.count} → ${b.count})`);
  }
  if (a.version !== b.version || a.shapeVersion !== b.shapeVersion) {
    out.push(`version ${a.version}/${a.shapeVersion} → ${b.version}/${b.shapeVersion}`);
  }
  if (String(a.masks) !== String(b.masks)) {
    out.push('masks');
  }
  if (String(a.origin) !== String(b.origin)) {
    out.push(`origin ${String(a.origin)} → ${String(b.origin)}`);
  }
  return out.join(', ');
}

/**
 * The bookkeeping ObbGpu keeps for a set's tree (private: read here to prove a failed build or
 * refit left it as it was): which tree, its leaves, and the set versions it is current for.
 */
function treeState(gpu: ObbGpu, set: BoxSet): string {
  const trees = (gpu as unknown as { trees: Map<BoxSet, { bvh: Bvh; version: number; shapeVersion: number }> }).trees;
  const st = trees.get(set);
  if (!st) {
    return 'none';
  }
  const ids = (treeIds.get(st.bvh) ?? treeIds.set(st.bvh, treeIds.size + 1).get(st.bvh))!;
  return `tree #${ids}: ${st.bvh.count} leaves, current for version ${st.version}/${st.shapeVersion}`;
}
const treeIds = new Map<Bvh, number>();

/** One trial: which operations were pending at the loss and how each settled; what changed. */
export interface LossTrialReport {
  readonly trial: number;
  readonly kind: LossKind;
  readonly moment: LossMoment;
  /** Whether the sweep and the all-pairs were queued ahead of the rest (see LOSS_PLAN). */
  readonly ahead: boolean;
  /** Every operation issued, in order. */
  readonly issued: string[];
  /** Outcome ('resolved' or the error) of each operation still pending when the device went. */
  readonly pending: Record<string, string>;
  /** Operations that had settled before the loss (these may resolve). */
  readonly settledBefore: string[];
  /** Queue submissions made in the turn that issued the work, before the loss, and in the whole trial before recover(). */
  readonly submissionsAtIssue: number;
  readonly submissionsAtLoss: number;
  readonly submissions: number;
  /** How the set's host copy changed after the loss ('' = not at all). */
  readonly hostChanged: string;
  /** The tree's bookkeeping at the loss and once everything settled. */
  readonly treeAtLoss: string;
  readonly treeAfter: string;
  /** After `recover()` (device.destroy trials): closest hits over the host copy against the reference. */
  readonly afterRecover?: ComparisonSummary;
}

/**
 * Device loss with work in flight (issue #33): on `gpu`, a set with a tree, a LiDAR sensor (of
 * the raster and the bvh method in turn) and a frustum culler; then, without awaiting, a sweep
 * and an all-pairs (queued ahead of the rest, as found, or behind it: LOSS_PLAN[trial]), every
 * async operation of the public API (BoxSet update / updateIndices / setMasks / setMasksAt /
 * rebase / set, buildBvh, bvhOf, every query, sweeps, a cull, readbacks), and the device is
 * destroyed (`kind`: `device.destroy()` or the context's `destroy()`) at the trial's moment.
 * Every operation still pending then must reject with DeviceLostError, and none may change the
 * set's host copy or the tree's state after the loss. Trials of `device.destroy` then
 * `recover()` and check that the rebuilt set answers for the host copy. Shared by
 * test/node/deviceLoss.test.ts (Dawn) and the page (lossTrials).
 */
export async function lossTrial(gpu: ObbGpu, trial: number, kind: LossKind): Promise<LossTrialReport> {
  const plan = LOSS_PLAN[trial];
  if (!plan) {
    throw new RangeError(`lossTrial: no trial ${trial} (0..${LOSS_PLAN.length - 1})`);
  }
  const { moment, ahead } = plan;
  const rnd = mulberry32(3300 + trial);
  const boxes = randomBoxes(600, rnd, { extent: 30, halfMin: 0.2, halfMax: 1.5 });
  const big = randomBoxes(1500, rnd, { extent: 60, halfMin: 0.2, halfMax: 1.5 });
  const moved = randomBoxes(8, rnd, { extent: 30, halfMin: 0.2, halfMax: 1.5 });
  const replacement = randomBoxes(700, rnd, { extent: 30, halfMin: 0.2, halfMax: 1.5 });
  const rays = randomRays(256, boxes, rnd, { extent: 35 });
  const set = gpu.createBoxSet(boxes);
  const other = gpu.createBoxSet(big);
  const sensor = await gpu.createLidar({ elevations: linearElevations(16, -10, 10), azimuthSteps: 256, maxRange: 60 }, { method: trial % 2 === 0 ? 'raster' : 'bvh' });
  const culler = await gpu.createFrustumCuller(2000);
  const planes = frustumPlanes(Float64Array.from([0.05, 0, 0, 0, 0, 0.05, 0, 0, 0, 0, -0.01, 0, 0, 0, 0, 1]));
  const unitBox = { center: [0, 0, 0] as Vec3, halfExtents: [1, 1, 1] as Vec3, rotation: [0, 0, 0, 1] as const };
  const pose = { origin: [0, 0, 0] as Vec3 };
  const tree = await gpu.bvhOf(set);
  if (!tree) {
    throw new Error('lossTrial: a 600-box set has a tree');
  }
  const handedOut: GpuHitBuffers[] = [];
  let restore = (): void => undefined;
  try {
    const extra: [string, () => Promise<unknown>][] = [
      [`lidarSweep (${ahead ? 'ahead' : 'behind'})`, () => gpu.lidarSweep(sensor, set, pose)],
      [`allPairs (${ahead ? 'ahead' : 'behind'})`, () => gpu.allPairs(other)],
    ];
    const calls: [string, () => Promise<unknown>][] = [
      ...(ahead ? extra : []),
      ['BoxSet.update', () => set.update(3, moved)],
      ['BoxSet.updateIndices', () => set.updateIndices([10, 2, 50], { count: 3, data: moved.data.slice(0, 45) })],
      ['BoxSet.setMasks', () => set.setMasks(new Uint32Array(600).fill(3))],
      ['BoxSet.setMasksAt', () => set.setMasksAt([5, 6], new Uint32Array([1, 1]))],
      ['BoxSet.rebase', () => set.rebase([1, 2, 3])],
      ['buildBvh', () => gpu.buildBvh(set)],
      ['BoxSet.set', () => set.set(replacement)],
      ['bvhOf', () => gpu.bvhOf(set)],
      ['closestHit', () => gpu.closestHit(set, rays)],
      ['closestHitBuffers', () => gpu.closestHitBuffers(set, rays).then((b) => handedOut.push(b))],
      ['anyHit', () => gpu.anyHit(set, rays)],
      ['allHits', () => gpu.allHits(set, rays)],
      ['allPairs', () => gpu.allPairs(set)],
      ['obbPairs', () => gpu.obbPairs(set, [[0, 1], [2, 3]])],
      ['obbOneVsMany', () => gpu.obbOneVsMany(unitBox, set)],
      ['obbCross', () => gpu.obbCross(set, other)],
      ['lidarSweep', () => gpu.lidarSweep(sensor, set, pose)],
      ['lidarSweepMany', () => gpu.lidarSweepMany(set, [{ sensor, pose }])],
      ['frustumCull', () => gpu.frustumCull(culler, set, planes)],
      ['readback', () => gpu.ctx.readback(set.buffer, 48, 0, 'readback')],
      ['Bvh.sahCost', () => tree.sahCost()],
      ['Bvh.snapshot', () => tree.snapshot()],
      ...(ahead ? [] : extra),
    ];
    let loseDevice = (): void => undefined;
    const later = (): void => {
      setTimeout(() => loseDevice(), 0);
    };
    // Counts the submissions (and, for `submit-k`, loses the device in the task after the k-th).
    const queue = gpu.ctx.device.queue;
    const submit = queue.submit.bind(queue);
    let submissions = 0;
    // Readbacks submit in the turn they are issued; `submit-k` counts from the end of that turn.
    let issuedWith = Infinity;
    queue.submit = (buffers: Iterable<GPUCommandBuffer>): undefined => {
      submit(buffers);
      submissions++;
      if (moment === `submit-${submissions - issuedWith}`) {
        later();
      }
    };
    restore = () => {
      queue.submit = submit;
    };
    const outcomes = new Map<string, string>();
    const promises = calls.map(([name, call]) => {
      // Every async method of the API rejects rather than throws, so each is issued right here.
      return call().then(() => 'resolved', (e: unknown) => errorName(e)).then((o) => {
        outcomes.set(name, o);
      });
    });
    issuedWith = submissions;
    let atLoss: { settled: string[]; host: HostState; tree: string; submissions: number } | undefined;
    loseDevice = (): void => {
      if (atLoss) {
        return;
      }
      atLoss = { settled: [...outcomes.keys()], host: hostState(set), tree: treeState(gpu, set), submissions };
      if (kind === 'device.destroy') {
        gpu.ctx.device.destroy();
      } else {
        gpu.ctx.destroy();
      }
    };
    if (moment === 'sync') {
      loseDevice(); // in the turn that issued everything
    } else if (moment === 'timeout-0') {
      later();
    } else if (moment === 'after-sweep') {
      void promises[calls.findIndex(([name]) => name.startsWith('lidarSweep ('))]!.then(later);
    } else if (moment === 'after-allPairs') {
      void promises[calls.findIndex(([name]) => name.startsWith('allPairs ('))]!.then(later);
    }
    await Promise.all(promises);
    if (!atLoss) {
      // Fewer submissions than the moment waits for: everything completed; lose the device now.
      later();
    }
    while (!atLoss) {
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    const loss = atLoss as { settled: string[]; host: HostState; tree: string; submissions: number };
    const pending: Record<string, string> = {};
    for (const [name] of calls) {
      if (!loss.settled.includes(name)) {
        pending[name] = outcomes.get(name)!;
      }
    }
    const report: LossTrialReport = {
      trial, kind, moment, ahead, issued: calls.map(([name]) => name), pending, settledBefore: loss.settled,
      submissionsAtIssue: issuedWith, submissionsAtLoss: loss.submissions, submissions,
      hostChanged: hostDiff(loss.host, hostState(set)), treeAtLoss: loss.tree, treeAfter: treeState(gpu, set),
    };
    if (kind !== 'device.destroy') {
      return report;
    }
    // The set comes back from its host copy, and nothing of the dropped work reached the new device.
    await gpu.recover();
    const hits = await gpu.closestHit(set, rays);
    return { ...report, afterRecover: summarize(compareClosestHits({ boxes: set.boxes, rays, options: set.masks ? { boxMasks: set.masks } : {}, origin: set.origin }, hits)) };
  } finally {
    restore();
    for (const b of handedOut) {
      b.destroy();
    }
    sensor.destroy();
    culler.destroy();
    other.destroy();
    set.destroy();
  }
}

/** What went wrong in a trial, one line each (none expected). */
export function lossViolations(r: LossTrialReport): string[] {
  const out: string[] = [];
  const at = `trial ${r.trial} (${r.kind}, ${r.moment}, work ${r.ahead ? 'ahead' : 'behind'})`;
  for (const [name, outcome] of Object.entries(r.pending)) {
    if (!/^DeviceLostError: /.test(outcome)) {
      out.push(`${at}: ${name} pending at the loss settled as ${outcome}`);
    }
  }
  if (r.hostChanged) {
    out.push(`${at}: the host copy changed after the loss: ${r.hostChanged}`);
  }
  if (r.treeAfter !== r.treeAtLoss) {
    out.push(`${at}: the tree changed after the loss: ${r.treeAtLoss} → ${r.treeAfter}`);
  }
  if (r.afterRecover && r.afterRecover.mismatch > 0) {
    out.push(`${at}: after recover(), ${r.afterRecover.mismatch} closest hits disagree with the host copy`);
  }
  return out;
}

/** Per operation: trials where it was pending at the loss, and how many of those rejected with DeviceLostError. */
export function lossTally(reports: readonly LossTrialReport[]): Map<string, { pending: number; lost: number }> {
  const counts = new Map<string, { pending: number; lost: number }>();
  for (const r of reports) {
    for (const name of r.issued) {
      const c = counts.get(name) ?? { pending: 0, lost: 0 };
      if (name in r.pending) {
        c.pending++;
        c.lost += /^DeviceLostError: /.test(r.pending[name]!) ? 1 : 0;
      }
      counts.set(name, c);
    }
  }
  return counts;
}

/** {@link lossTrial} on a fresh ObbGpu per trial, in the page. */
export async function lossTrials(trials: readonly number[], kind: LossKind): Promise<LossTrialReport[]> {
  const out: LossTrialReport[] = [];
  for (const trial of trials) {
    const gpu = await ObbGpu.create();
    try {
      out.push(await lossTrial(gpu, trial, kind));
    } finally {
      gpu.destroy();
    }
  }
  return out;
}

/**
 * `autoRecover` (on the context, which ObbGpu passes it to): after a loss the context recovers
 * by itself; the query in flight fails, and a query issued once the loss is known waits for the
 * new device and is right. Built on a bare context and RayQueries, so only the kernel it uses
 * compiles.
 */
export async function autoRecover(seed: number) {
  const ctx = await GpuContext.create({ autoRecover: true });
  try {
    const rq = new RayQueries(ctx);
    const { boxes, rays } = scene(seed, 100, 5000);
    const set = BoxSet.create(ctx, boxes);
    await rq.closestHit(set, rays.count > 0 ? { count: 1, data: rays.data.slice(0, 7) } : rays);
    const inFlight = rq.closestHit(set, rays);
    const old = ctx.device;
    old.destroy();
    const first = await outcome(inFlight);
    await old.lost;
    const hits = await rq.closestHit(set, rays);
    const summary = summarize(compareClosestHits({ boxes, rays, origin: set.origin }, hits));
    return { first, summary, newDevice: ctx.device !== old, recoveries: ctx.recoveryCount };
  } finally {
    ctx.destroy();
  }
}

/**
 * Calls issued back to back, none awaited: setMasks on a set that had none, rebase, set() with a
 * smaller set, update. Each query must use the masks, origin and boxes of its turn, not of the
 * moment it was called (the flags and the ray packing are decided at the query's turn).
 */
export async function ordering(seed: number) {
  return scoped(async (gpu) => {
    const { boxes, rays } = scene(seed, 150, 3000);
    const smaller = scene(seed + 1, 60, 1).boxes;
    const set = gpu.createBoxSet(boxes);
    try {
      const masks = Uint32Array.from({ length: boxes.count }, (_, i) => (i % 2 === 0 ? 1 : 2));
      const rayMasks = Uint32Array.from({ length: rays.count }, (_, r) => (r % 3 === 0 ? 3 : 1));
      const far: Vec3 = [40, -30, 25];
      const calls: Promise<unknown>[] = [];
      calls.push(set.setMasks(masks));
      const masked = gpu.closestHit(set, rays, { rayMasks });
      calls.push(set.rebase(far));
      const rebased = gpu.closestHit(set, rays, { rayMasks });
      calls.push(set.set(smaller));
      const replaced = gpu.closestHit(set, rays);
      const part = scene(seed + 2, 10, 1).boxes;
      calls.push(set.update(5, part));
      const updated = gpu.closestHit(set, rays);
      // Growing again: box indices valid only once this set() has run are accepted.
      calls.push(set.set(boxes));
      const exclude = Int32Array.from({ length: rays.count }, (_, r) => (r % 2 === 0 ? 100 + (r % 50) : -1));
      const excluded = gpu.closestHit(set, rays, { exclude });
      const grownPairs = Uint32Array.from([0, 149, 120, 130, 60, 61]);
      const pairsAfterGrow = gpu.obbPairs(set, grownPairs);
      const oneVsMany = gpu.obbOneVsMany({ center: [0, 0, 0], halfExtents: [3, 3, 3], rotation: [0, 0, 0, 1] }, set);
      await Promise.all(calls);
      const after = smaller.data.slice();
      after.set(part.data, 5 * 15);
      const afterUpdate = { count: smaller.count, data: after };
      // Destroying a set with calls still queued: they fail with a clear error and write
      // nothing to the destroyed buffers (the page's error scope would catch that).
      const doomed = gpu.createBoxSet(boxes);
      const queued = [doomed.update(0, part), gpu.closestHit(doomed, rays), doomed.setMasks(masks.subarray(0, 10)), doomed.rebase()];
      doomed.destroy();
      const afterDestroy = await Promise.all(queued.map((p) => outcome(p)));
      return {
        afterDestroy,
        masked: summarize(compareClosestHits({ boxes, rays, options: { boxMasks: masks, rayMasks }, origin: far }, await masked)),
        rebased: summarize(compareClosestHits({ boxes, rays, options: { boxMasks: masks, rayMasks }, origin: far }, await rebased)),
        replaced: summarize(compareClosestHits({ boxes: smaller, rays, origin: far }, await replaced)),
        updated: summarize(compareClosestHits({ boxes: afterUpdate, rays, origin: far }, await updated)),
        excluded: summarize(compareClosestHits({ boxes, rays, options: { exclude }, origin: far }, await excluded)),
        pairsAfterGrow: summarize(comparePairs({ a: boxes, pairs: grownPairs, origin: far }, await pairsAfterGrow)),
        oneVsManyCount: (await oneVsMany).count,
        origin: set.origin,
      };
    } finally {
      set.destroy();
    }
  });
}

/**
 * Some implementations (Dawn in Node) reject a pending `mapAsync` before `device.lost` resolves.
 * Simulated: a staging buffer whose mapAsync rejects with an OperationError while the device is
 * destroyed a little later. The readback must still fail with DeviceLostError; the same
 * rejection with no loss behind it must come through unchanged.
 */
export async function lossDuringMap() {
  const run = async (lose: boolean): Promise<string> => {
    const adapter = await navigator.gpu.requestAdapter();
    const device = await adapter!.requestDevice();
    const ctx = await GpuContext.create({ device });
    const create = device.createBuffer.bind(device);
    device.createBuffer = (descriptor: GPUBufferDescriptor) => {
      const buffer = create(descriptor);
      if (descriptor.usage & GPUBufferUsage.MAP_READ) {
        buffer.mapAsync = () => {
          if (lose) {
            setTimeout(() => device.destroy(), 50);
          }
          return Promise.reject(new DOMException('mapAsync failed', 'OperationError'));
        };
      }
      return buffer;
    };
    const source = ctx.createBuffer({ size: 16, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC });
    try {
      return await outcome(ctx.readback(source, 16, 0, 'test readback'));
    } finally {
      ctx.destroy();
      device.destroy();
    }
  };
  return { lost: await run(true), notLost: await run(false) };
}

/** A WebGPU validation error (hits buffer without STORAGE usage) becomes a GpuError naming the operation. */
export async function gpuError() {
  return scoped(async (gpu) => {
    const device = gpu.ctx.device;
    const set = gpu.createBoxSet([unit]);
    const rays = device.createBuffer({ size: 48, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST });
    const hits = device.createBuffer({ size: 16, usage: GPUBufferUsage.COPY_SRC });
    const geometry = device.createBuffer({ size: 32, usage: GPUBufferUsage.STORAGE });
    try {
      await gpu.rays.encodeClosestHit(device.createCommandEncoder(), set, rays, 1, hits, geometry);
      return { name: 'accepted', message: '', operation: '', filter: '' };
    } catch (e) {
      const error = e as GpuError;
      return { name: error.name, message: error.message, operation: error.operation, filter: error.filter, isGpuError: e instanceof GpuError };
    } finally {
      rays.destroy();
      hits.destroy();
      geometry.destroy();
      set.destroy();
    }
  });
}

/** Largest |t_gpu − t_ref| / t_ref over hits on the same box with t_ref ≥ minT. */
function worstRelative(gpuBox: Int32Array, gpuT: ArrayLike<number>, refBox: Int32Array, refT: ArrayLike<number>, minT: number): { worst: number; counted: number } {
  let worst = 0;
  let counted = 0;
  for (let r = 0; r < gpuBox.length; r++) {
    if (gpuBox[r]! < 0 || gpuBox[r] !== refBox[r] || refT[r]! < minT) {
      continue;
    }
    counted++;
    worst = Math.max(worst, Math.abs(gpuT[r]! - refT[r]!) / refT[r]!);
  }
  return { worst, counted };
}

/**
 * Boxes and rays `offset` metres from the world origin (a 100 m scene): with the floating origin
 * the GPU's hit distances stay within `worst` relative of the float64 reference; with the origin
 * forced to the world origin (no re-basing) they do not.
 */
export async function worldScale(offset: number, seed: number, rayCount: number) {
  return scoped(async (gpu) => {
    const at: Vec3 = [offset, -0.6 * offset, 0.3 * offset];
    const rnd = mulberry32(seed);
    const boxes = randomBoxes(200, rnd, { extent: 50, halfMin: 0.3, halfMax: 3, offset: at });
    const rays = randomRays(rayCount, boxes, rnd, { extent: 60, aimed: 0.8, offset: at });
    const ref = closestHit(boxes, rays);
    const floating = gpu.createBoxSet(boxes);
    const naive = gpu.createBoxSet(boxes, { origin: [0, 0, 0] });
    try {
      const a = await gpu.closestHit(floating, rays);
      const b = await gpu.closestHit(naive, rays);
      const summary = summarize(compareClosestHits({ boxes, rays, origin: floating.origin }, a));
      return {
        summary, origin: floating.origin,
        floating: worstRelative(a.box, a.t, ref.box, ref.t, 1),
        naive: worstRelative(b.box, b.t, ref.box, ref.t, 1),
        hits: ref.box.filter((x) => x >= 0).length,
      };
    } finally {
      floating.destroy();
      naive.destroy();
    }
  });
}

/**
 * A set 100 km wide, 1e6 m from the world origin, queried by rays in one 100 m corner: with the
 * default origin (the set's centre, 50 km away) float32 costs precision; `rebase` to the rays'
 * region restores it. Also checks that queries issued before and after a rebase each see their
 * own origin, and that pairs agree after it.
 */
export async function wideSet(seed: number) {
  return scoped(async (gpu) => {
    const at: Vec3 = [1e6, 2e6, 0];
    const rnd = mulberry32(seed);
    const far = randomBoxes(300, rnd, { extent: 5e4, halfMin: 1, halfMax: 20, offset: at });
    const corner: Vec3 = [at[0] + 4.9e4, at[1] - 4.9e4, at[2] + 10];
    const near = randomBoxes(200, rnd, { extent: 50, halfMin: 0.3, halfMax: 3, offset: corner });
    const data = new Float64Array((far.count + near.count) * 15);
    data.set(far.data);
    data.set(near.data, far.data.length);
    const boxes = { count: far.count + near.count, data };
    const rays = randomRays(5000, near, rnd, { extent: 60, aimed: 0.8, offset: corner });
    const ref = closestHit(boxes, rays);
    const set = gpu.createBoxSet(boxes);
    try {
      const centre = set.origin;
      const before = gpu.closestHit(set, rays);
      const rebased = set.rebase(corner);
      const after = gpu.closestHit(set, rays);
      await rebased;
      const [a, b] = await Promise.all([before, after]);
      const pairs = await gpu.allPairs(set);
      return {
        centre, rebasedTo: set.origin,
        atCentre: worstRelative(a.box, a.t, ref.box, ref.t, 1),
        rebased: worstRelative(b.box, b.t, ref.box, ref.t, 1),
        summaryAtCentre: summarize(compareClosestHits({ boxes, rays, origin: centre }, a)),
        summaryRebased: summarize(compareClosestHits({ boxes, rays, origin: corner }, b)),
        pairs: summarize(comparePairLists({ a: boxes, origin: corner }, pairs.pairs)),
        refPairs: allPairs(boxes).length / 2,
      };
    } finally {
      set.destroy();
    }
  });
}


