/**
 * GPU-resident boxes. A BoxSet keeps a float64 host copy (for the floating origin, for `recover`
 * after device loss, and for the CPU reference), and a GPU buffer of `Obb` records re-based to
 * the set's `origin`, with per-box u32 masks. Capacity grows by doubling; partial updates write
 * only the changed range. Every change is validated before anything reaches the GPU: a rejected
 * update leaves the set exactly as it was. A change still pending when the device is lost or
 * destroyed rejects with DeviceLostError and leaves the host copy as it was: each change checks
 * the device (`assertUsable`, which sees a `device.destroy()` at once) in the same synchronous
 * run in which it writes the GPU buffers and applies the host copy, after its last await. After
 * a device loss, `recover()` of the context rebuilds the set on the new device from the host
 * copy; the object stays the same.
 */
import { BufferUsage } from '../runtime/flags.ts';
import { BOX_F64, type BoxArray, type BoxInput, type Vec3 } from '../core/types.ts';
import { boxArrayFrom, describeValue, validateBoxArray } from '../core/canonical.ts';
import { ValidationError } from '../errors.ts';
import { Lifetime, checkBound } from '../runtime/lifetime.ts';
import { OBB, SCATTER_PARAMS, packBoxes } from '../layout/index.ts';
import { dispatch } from '../runtime/bind.ts';
import { getKernel, type KernelPipeline } from '../runtime/pipelines.ts';
import type { GpuContext } from '../runtime/context.ts';
import { boxBounds, checkBoxRange, checkCapacity, checkOrigin, defaultOrigin, recordCount } from '../core/inputs.ts';

/** Boxes as the GPU API accepts them: objects, or BOX_F64 records (validated either way). */
export type BoxSource = readonly BoxInput[] | BoxArray;

/** Options of a new BoxSet. */
export interface BoxSetOptions {
  /** Per-box masks; a ray tests a box only when `(rayMask & boxMask) != 0`. Default all bits. */
  readonly masks?: Uint32Array;
  /**
   * Floating origin: positions are stored on the GPU relative to this point (float64 on the
   * host). Default: the centre of the boxes' bounds at creation, so float32 precision follows
   * the scene's extent, not its distance from the world origin.
   */
  readonly origin?: Vec3;
  /** Initial capacity in boxes (grows as needed). */
  readonly capacity?: number;
  readonly label?: string;
  /**
   * Take `boxes.data` as the set's float64 host copy instead of copying it: the boxes are
   * validated and canonicalised in place (written only once every box has passed; a set refused
   * after that, for its range from the origin, leaves the same boxes in canonical form), and the
   * array then belongs to the set (`set.boxes.data` is it): do not modify it afterwards. For huge
   * scenes whose array the caller no longer needs: no second copy (120 MB at 1M boxes) and none
   * of its allocation time. Needs a BoxArray whose data is a Float64Array, and not an array a
   * set holds or held (`set.boxes.data`: queries in flight may read it). Default false.
   */
  readonly adopt?: boolean;
}

const USAGE = BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC;

/**
 * How many boxes `source` holds, from its shape alone (nothing is read or copied), so that
 * capacity can be checked before validation copies the input.
 */
export function boxCount(source: BoxSource): number {
  return recordCount('boxes', source, BOX_F64.STRIDE);
}

/**
 * The indices of a sparse update as a Uint32Array copy: `count` of them (one per item), each a
 * non-negative integer, none twice (two writes to one box would race). Checked against the set's
 * size at the call's turn (checkIndicesInSet).
 */
function indexList(indices: Uint32Array | readonly number[], count: number, items: string): Uint32Array {
  if (!(indices instanceof Uint32Array) && !Array.isArray(indices)) {
    throw new ValidationError('argument', undefined, 'indices', 'must be a Uint32Array or an array of box indices');
  }
  if (indices.length !== count) {
    throw new ValidationError('argument', undefined, 'indices', `has ${indices.length} entries for ${count} ${items}; give one index per item`);
  }
  const out = new Uint32Array(count);
  const seen = new Set<number>();
  for (let k = 0; k < count; k++) {
    const i = indices[k];
    if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i > 0xffffffff) {
      throw new ValidationError('argument', undefined, `indices[${k}]`, `= ${String(i)} is not a box index (a non-negative integer)`);
    }
    if (seen.has(i)) {
      throw new ValidationError('argument', undefined, `indices[${k}]`, `= ${i} appears twice; each box can be updated once per call`);
    }
    seen.add(i);
    out[k] = i;
  }
  return out;
}

/** Every index of a sparse update lies in the set (checked at the call's turn). */
function checkIndicesInSet(indices: Uint32Array, count: number): void {
  for (let k = 0; k < indices.length; k++) {
    if (indices[k]! >= count) {
      throw new ValidationError('argument', undefined, `indices[${k}]`, `= ${indices[k]} is outside the set (0..${count - 1})`);
    }
  }
}

/** Every array a set holds or held as its host copy: never adopted (canonicalised in place) again. */
const held = new WeakSet<Float64Array>();

/**
 * Validated canonical boxes from either form (a copy; with `adopt`, the caller's Float64Array
 * canonicalised in place, written only once every box has passed); call boxCount first.
 */
function canonicalBoxes(source: BoxSource, adopt: unknown = false): BoxArray {
  if (adopt !== false && adopt !== true) {
    throw new ValidationError('argument', undefined, 'adopt', `must be true or false (got ${describeValue(adopt)})`);
  }
  let out: BoxArray;
  if (adopt) {
    const data = Array.isArray(source) ? undefined : (source as BoxArray).data;
    if (!(data instanceof Float64Array)) {
      throw new ValidationError('argument', undefined, 'adopt',
        `needs boxes as a BoxArray whose data is a Float64Array (got ${Array.isArray(source) ? 'an array of box objects' : describeValue(data)}); without adopt the boxes are copied`);
    }
    if (held.has(data)) {
      throw new ValidationError('argument', undefined, 'adopt',
        'boxes.data is a set\'s host copy (set.boxes.data, now or before), which queries in flight may still read; adopt a new array, or pass it without adopt to copy it');
    }
    out = validateBoxArray(data, (source as BoxArray).count, { out: data });
  } else if (Array.isArray(source)) {
    out = boxArrayFrom(source as readonly BoxInput[]);
  } else {
    const arr = source as BoxArray;
    out = validateBoxArray(arr.data, arr.count);
  }
  return out;
}

function checkMasks(masks: Uint32Array | undefined, count: number): void {
  if (masks !== undefined && !(masks instanceof Uint32Array)) {
    throw new ValidationError('argument', undefined, 'masks', 'must be a Uint32Array (one mask per box)');
  }
  if (masks && masks.length !== count) {
    throw new ValidationError('argument', undefined, 'masks', `has length ${masks.length}, expected one per box (${count})`);
  }
}

/**
 * Per-box materials of a set, for LiDAR returns (BoxSet.setMaterials): what a beam sees of a box
 * beyond its shape. Either array may be left out (its boxes keep what they had; never set: the
 * default).
 */
export interface BoxMaterials {
  /** Reflectivity ρ per box, in [0, 1] (default 1): the intensity model's factor (src/core/lidar.ts, lidarIntensity). */
  readonly reflectivity?: ArrayLike<number>;
  /** Semantic class per box, an integer in [0, 65535] (default 0): a label, carried to the returns. */
  readonly classId?: ArrayLike<number>;
}

/** The materials a set holds: one reflectivity (float32, as the GPU reads it) and one class per box. */
export interface BoxMaterialArrays {
  readonly reflectivity: Float32Array;
  readonly classId: Uint16Array;
}

/** Checks one material array: `length` numbers, each passing `ok`. */
function checkMaterial(values: ArrayLike<number> | undefined, field: string, length: number, ok: (x: number) => boolean, rule: string): void {
  if (values === undefined) {
    return;
  }
  if (typeof values !== 'object' || values === null || typeof values.length !== 'number') {
    throw new ValidationError('argument', undefined, field, 'must be an array of numbers, one per box');
  }
  if (values.length !== length) {
    throw new ValidationError('argument', undefined, field, `has ${values.length} entries, the other array ${length}: give one per box for both`);
  }
  for (let k = 0; k < values.length; k++) {
    const x = values[k];
    if (!(typeof x === 'number' && ok(x))) {
      throw new ValidationError('argument', k, field, `[${k}] must be ${rule} (got ${String(x)})`);
    }
  }
}

/**
 * @example
 * const set = BoxSet.create(ctx, [{ center: [0, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] }]);
 * await set.update(0, [{ center: [0, 1, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] }]);
 * set.destroy();
 */
export class BoxSet {
  readonly ctx: GpuContext;
  readonly label: string;
  private host: BoxArray;
  private hostMasks: Uint32Array | undefined;
  private gpuBoxes: GPUBuffer;
  private gpuMasks: GPUBuffer;
  private capacity: number;
  private readonly lifetime: Lifetime;
  /** Changed only inside sequenced calls, so each call packs against the origin of its turn. */
  private currentOrigin: Vec3;
  private readonly unregister: () => void;
  /** Bumped by every change of the boxes (a BVH over the set refits when it moved). */
  private boxVersion = 0;
  /** Bumped when the boxes were replaced, re-based or re-uploaded (a BVH rebuilds). */
  private shapeVersionValue = 0;
  /** Materials (setMaterials), one per box as of the last call; undefined until then. */
  private hostMaterials: BoxMaterialArrays | undefined;
  private materialsVersionValue = 0;

  /**
   * `sourced`: a set whose boxes a GPU pass writes (GpuSourcedBoxSet, ./GpuSourcedBoxSet.ts): no
   * host boxes to upload, and no rebuild after `recover()` (its source buffer died with the old
   * device: it is stale then, like a sensor).
   */
  protected constructor(ctx: GpuContext, boxes: BoxArray, origin: Vec3, options: BoxSetOptions, sourced = false) {
    this.ctx = ctx;
    this.label = options.label ?? 'boxes';
    this.host = boxes;
    held.add(boxes.data);
    this.hostMasks = options.masks ? options.masks.slice() : undefined;
    this.currentOrigin = origin;
    this.capacity = Math.max(1, options.capacity ?? 0, boxes.count);
    this.lifetime = new Lifetime(ctx, `BoxSet "${this.label}"`, !sourced);
    this.gpuBoxes = ctx.createBuffer({ label: `${ctx.label}:${this.label}`, size: this.capacity * OBB.SIZE, usage: USAGE });
    try {
      this.gpuMasks = ctx.createBuffer({ label: `${ctx.label}:${this.label}:masks`, size: this.capacity * 4, usage: USAGE });
    } catch (error) {
      ctx.destroyBuffer(this.gpuBoxes);
      throw error;
    }
    this.writeAll(this.currentOrigin);
    // After a device loss: the same object, rebuilt on the new device from the host copy.
    this.unregister = sourced ? () => undefined : ctx.onRecover(() => {
      this.gpuBoxes = ctx.createBuffer({ label: `${ctx.label}:${this.label}`, size: this.capacity * OBB.SIZE, usage: USAGE });
      this.gpuMasks = ctx.createBuffer({ label: `${ctx.label}:${this.label}:masks`, size: this.capacity * 4, usage: USAGE });
      this.writeAll(this.currentOrigin);
      this.changed(true);
    });
  }

  /**
   * Validates `boxes` (and `options.masks`) and uploads them. Throws ValidationError naming the
   * first bad box before anything is allocated.
   */
  static create(ctx: GpuContext, boxes: BoxSource, options: BoxSetOptions = {}): BoxSet {
    ctx.assertAlive('BoxSet.create');
    // Sizes first, from counts and strides: a set beyond the device is refused before its boxes
    // are read, let alone copied.
    const count = boxCount(boxes);
    checkCapacity(options.capacity);
    const slots = Math.max(1, options.capacity ?? 0, count);
    ctx.assertBindingFits(`box set "${options.label ?? 'boxes'}"`, slots * OBB.SIZE, `${slots} boxes × ${OBB.SIZE} bytes`);
    checkMasks(options.masks, count);
    if (options.origin !== undefined) {
      checkOrigin(options.origin);
    }
    const canonical = canonicalBoxes(boxes, options.adopt ?? false);
    // One pass for the default origin and the range check.
    const bounds = boxBounds(canonical);
    const origin: Vec3 = options.origin ? [options.origin[0], options.origin[1], options.origin[2]] : defaultOrigin(canonical, bounds);
    checkBoxRange(canonical, origin, 0, bounds);
    return new BoxSet(ctx, canonical, origin, options);
  }

  /**
   * Floating origin: positions are stored on the GPU relative to this point, and rays are
   * re-based to it, so float32 precision follows the distance from here (see {@link rebase}).
   */
  get origin(): Vec3 {
    return this.currentOrigin;
  }

  /** Number of boxes. */
  get count(): number {
    return this.host.count;
  }

  /** The float64 host copy (canonical boxes, world coordinates). Do not modify. */
  get boxes(): BoxArray {
    return this.host;
  }

  /** Per-box masks, or undefined when every box has all bits. */
  get masks(): Uint32Array | undefined {
    return this.hostMasks;
  }

  /** The GPU buffer of `Obb` records (positions relative to `origin`). */
  get buffer(): GPUBuffer {
    this.assertUsable('BoxSet.buffer');
    return this.gpuBoxes;
  }

  /** The GPU buffer of per-box masks (meaningful when `masks` is defined). */
  get maskBuffer(): GPUBuffer {
    this.assertUsable('BoxSet.maskBuffer');
    return this.gpuMasks;
  }

  /**
   * Throws StaleObjectError when this set was destroyed, DeviceLostError when its context is gone.
   * Queries call it with their own name.
   */
  assertUsable(operation: string): void {
    this.lifetime.assertUsable(operation);
  }

  /** Whether `destroy()` was called. */
  get isDestroyed(): boolean {
    return this.lifetime.destroyed;
  }

  /**
   * Runs `hook` once when this set is destroyed: the owner of something kept for the set (ObbGpu,
   * its tree) frees it then. Returns a function that unregisters the hook.
   */
  onDestroy(hook: () => void): () => void {
    return this.lifetime.onDestroy(hook);
  }

  private writeAll(origin: Vec3): void {
    const q = this.ctx.device.queue;
    if (this.host.count > 0) {
      q.writeBuffer(this.gpuBoxes, 0, packBoxes(this.host, origin, 0, this.host.count, this.ctx.uploadScratch(this.host.count * (OBB.SIZE / 4))));
      if (this.hostMasks) {
        q.writeBuffer(this.gpuMasks, 0, this.hostMasks);
      }
    }
  }

  private grow(count: number): void {
    if (count <= this.capacity) {
      return;
    }
    // Doubling, but never past the binding limit while `count` itself still fits.
    const fits = Math.floor(Math.min(this.ctx.limits.maxStorageBufferBindingSize, this.ctx.limits.maxBufferSize) / OBB.SIZE);
    const capacity = Math.max(count, Math.min(this.capacity * 2, fits));
    this.ctx.assertBindingFits(`box set "${this.label}"`, capacity * OBB.SIZE);
    const boxes = this.ctx.createBuffer({ label: `${this.ctx.label}:${this.label}`, size: capacity * OBB.SIZE, usage: USAGE });
    const masks = this.ctx.createBuffer({ label: `${this.ctx.label}:${this.label}:masks`, size: capacity * 4, usage: USAGE });
    // Work already submitted keeps using the old buffers; WebGPU frees them once it completes.
    this.ctx.destroyBuffer(this.gpuBoxes);
    this.ctx.destroyBuffer(this.gpuMasks);
    this.gpuBoxes = boxes;
    this.gpuMasks = masks;
    this.capacity = capacity;
  }

  /**
   * Replaces every box (and the masks: pass `masks` again to keep them; omitted = all bits).
   * Queries issued earlier still see the old boxes; queries issued later see the new ones.
   * `options.adopt` takes `boxes.data` as the new host copy, as createBoxSet's option does (not
   * an array a set holds or held: set.boxes.data is copied, or refused with adopt).
   */
  async set(boxes: BoxSource, masks?: Uint32Array, options: { readonly adopt?: boolean } = {}): Promise<void> {
    this.assertUsable('BoxSet.set');
    const count = boxCount(boxes);
    this.ctx.assertBindingFits(`box set "${this.label}"`, count * OBB.SIZE, `${count} boxes × ${OBB.SIZE} bytes`);
    // Masks first, as in create: an adopted array is written only once nothing else can refuse it.
    checkMasks(masks, count);
    const canonical = canonicalBoxes(boxes, options.adopt ?? false);
    const maskCopy = masks ? masks.slice() : undefined;
    await this.ctx.sequence('BoxSet.set', () => {
      this.assertUsable('BoxSet.set');
      checkBoxRange(canonical, this.currentOrigin);
      this.grow(canonical.count);
      this.host = canonical;
      held.add(canonical.data);
      this.hostMasks = maskCopy;
      this.writeAll(this.currentOrigin);
      this.changed(true);
    });
  }

  /**
   * Versions of the boxes as of the latest applied change: `version` moves with every change,
   * `shapeVersion` only when the boxes were replaced, re-based or re-created (read them inside a
   * sequenced call to see the state of that call's turn).
   */
  get version(): number {
    return this.boxVersion;
  }

  /** Bumped when the boxes were replaced, re-based or re-created (see {@link BoxSet.version}). */
  get shapeVersion(): number {
    return this.shapeVersionValue;
  }

  /** Records a change of the boxes (`shape`: replaced or re-based, so a tree rebuilds rather than refits); for subclasses. */
  protected changed(shape: boolean): void {
    this.boxVersion++;
    if (shape) {
      this.shapeVersionValue++;
    }
  }

  /** Replaces boxes `[first, first + n)`; the set keeps its size (use `set` to change it). */
  async update(first: number, boxes: BoxSource): Promise<void> {
    this.assertUsable('BoxSet.update');
    boxCount(boxes);
    const canonical = canonicalBoxes(boxes);
    const outside = (): ValidationError => new ValidationError('argument', undefined, 'first',
      `= ${first}: boxes [${first}, ${first + canonical.count}) are outside the set (0..${this.host.count})`);
    if (!Number.isInteger(first) || first < 0) {
      throw outside();
    }
    await this.ctx.sequence('BoxSet.update', () => {
      // Checked at this call's turn: a set() issued just before (not yet applied) sets the size.
      this.assertUsable('BoxSet.update');
      if (first + canonical.count > this.host.count) {
        throw outside();
      }
      checkBoxRange(canonical, this.currentOrigin, first);
      const data = this.host.data.slice();
      data.set(canonical.data, first * BOX_F64.STRIDE);
      this.host = { count: this.host.count, data };
      held.add(data);
      this.ctx.device.queue.writeBuffer(this.gpuBoxes, first * OBB.SIZE, packBoxes(canonical, this.currentOrigin, 0, canonical.count, this.ctx.uploadScratch(canonical.count * (OBB.SIZE / 4))));
      this.changed(false);
    });
  }

  /**
   * Replaces the boxes at `indices` (any order, no index twice): `boxes[k]` becomes box
   * `indices[k]`, in one upload and one scatter dispatch whatever the pattern (100 scattered
   * moves are one call, not 100). Validated all-or-nothing like `update`: a rejected call leaves
   * the set as it was. A tree over the set refits, as after `update`.
   *
   * @example
   * await set.updateIndices([7, 3, 1204], boxes); // boxes[k] replaces box [7, 3, 1204][k]
   */
  async updateIndices(indices: Uint32Array | readonly number[], boxes: BoxSource): Promise<void> {
    const op = 'BoxSet.updateIndices';
    this.assertUsable(op);
    const count = boxCount(boxes);
    const list = indexList(indices, count, 'boxes');
    this.ctx.assertBindingFits('box update', count * OBB.SIZE, `${count} boxes × ${OBB.SIZE} bytes`);
    const canonical = canonicalBoxes(boxes);
    await this.ctx.sequence(op, async () => {
      this.assertUsable(op);
      const epoch = this.ctx.epoch;
      checkIndicesInSet(list, this.host.count);
      checkBoxRange(canonical, this.currentOrigin);
      if (count === 0) {
        return;
      }
      const kernel = await getKernel(this.ctx.device, 'scatterBoxes');
      // The device may have gone while the kernel was awaited: nothing is written or applied then.
      this.assertUsable(op);
      this.ctx.assertCurrent(op, epoch);
      const source = packBoxes(canonical, this.currentOrigin, 0, count, this.ctx.uploadScratch(count * (OBB.SIZE / 4)));
      this.scatter(kernel, list, source, count * OBB.SIZE);
      const data = this.host.data.slice();
      for (let k = 0; k < count; k++) {
        data.set(canonical.data.subarray(k * BOX_F64.STRIDE, (k + 1) * BOX_F64.STRIDE), list[k]! * BOX_F64.STRIDE);
      }
      this.host = { count: this.host.count, data };
      held.add(data);
      this.changed(false);
    });
  }

  /**
   * Replaces the masks of the boxes at `indices` (no index twice): `masks[k]` becomes the mask of
   * box `indices[k]`, in one upload and one scatter dispatch. All-or-nothing, like setMasks.
   *
   * @example
   * await set.setMasksAt([7, 3], new Uint32Array([0b10, 0b10]));
   */
  async setMasksAt(indices: Uint32Array | readonly number[], masks: Uint32Array): Promise<void> {
    const op = 'BoxSet.setMasksAt';
    this.assertUsable(op);
    if (!(masks instanceof Uint32Array)) {
      throw new ValidationError('argument', undefined, 'masks', 'must be a Uint32Array');
    }
    const list = indexList(indices, masks.length, 'masks');
    const copy = masks.slice();
    await this.ctx.sequence(op, async () => {
      this.assertUsable(op);
      const epoch = this.ctx.epoch;
      checkIndicesInSet(list, this.host.count);
      if (copy.length === 0) {
        return;
      }
      const kernel = await getKernel(this.ctx.device, 'scatterMasks');
      // As in updateIndices: checked again after the await, before anything is written.
      this.assertUsable(op);
      this.ctx.assertCurrent(op, epoch);
      const all = this.hostMasks ? this.hostMasks.slice() : new Uint32Array(this.host.count).fill(0xffffffff);
      if (!this.hostMasks) {
        // The GPU masks were never written (every box had all bits): write them all first.
        this.ctx.device.queue.writeBuffer(this.gpuMasks, 0, all);
      }
      this.scatter(kernel, list, copy, copy.byteLength);
      list.forEach((i, k) => {
        all[i] = copy[k]!;
      });
      this.hostMasks = all;
    });
  }

  /** One scatter dispatch: uploads `source` and the indices, runs `kernel`, frees the uploads. */
  private scatter(
    kernel: KernelPipeline<'scatterBoxes'> | KernelPipeline<'scatterMasks'>,
    indices: Uint32Array, source: ArrayBufferView<ArrayBuffer>, bytes: number,
  ): void {
    const ctx = this.ctx;
    const device = ctx.device;
    const n = indices.length;
    const make = (label: string, size: number, usage: number): GPUBuffer =>
      ctx.createBuffer({ label: `${ctx.label}:${this.label}:${label}`, size: Math.max(16, Math.ceil(size / 4) * 4), usage });
    const params = make('scatter-params', SCATTER_PARAMS.SIZE, BufferUsage.UNIFORM | BufferUsage.COPY_DST);
    const indexBuffer = make('scatter-indices', n * 4, BufferUsage.STORAGE | BufferUsage.COPY_DST);
    const sourceBuffer = make('scatter-source', bytes, BufferUsage.STORAGE | BufferUsage.COPY_DST);
    try {
      device.queue.writeBuffer(params, 0, new Uint32Array([n, 0, 0, 0]));
      device.queue.writeBuffer(indexBuffer, 0, indices);
      device.queue.writeBuffer(sourceBuffer, 0, source.buffer, source.byteOffset, bytes);
      const enc = device.createCommandEncoder({ label: `${ctx.label}:${kernel.name}` });
      const pass = enc.beginComputePass({ label: `${ctx.label}:${kernel.name}` });
      const groups = Math.ceil(n / kernel.workgroupSize);
      if (kernel.name === 'scatterBoxes') {
        dispatch(device, pass, kernel as KernelPipeline<'scatterBoxes'>, { scatter: params, indices: indexBuffer, sourceBoxes: sourceBuffer, boxes: this.gpuBoxes }, groups);
      } else {
        dispatch(device, pass, kernel as KernelPipeline<'scatterMasks'>, { scatter: params, indices: indexBuffer, sourceMasks: sourceBuffer, masks: this.gpuMasks }, groups);
      }
      pass.end();
      device.queue.submit([enc.finish()]);
    } finally {
      // Submitted work keeps its buffers until it completes.
      for (const b of [params, indexBuffer, sourceBuffer]) {
        ctx.destroyBuffer(b);
      }
    }
  }

  /** Replaces masks `[first, first + masks.length)`. */
  async setMasks(masks: Uint32Array, first = 0): Promise<void> {
    this.assertUsable('BoxSet.setMasks');
    if (!(masks instanceof Uint32Array)) {
      throw new ValidationError('argument', undefined, 'masks', 'must be a Uint32Array');
    }
    const outside = (): ValidationError => new ValidationError('argument', undefined, 'masks',
      `[${first}, ${first + masks.length}) are outside the set (0..${this.host.count})`);
    if (!Number.isInteger(first) || first < 0) {
      throw outside();
    }
    const copy = masks.slice(); // the caller may reuse its array before this call's turn
    await this.ctx.sequence('BoxSet.setMasks', () => {
      this.assertUsable('BoxSet.setMasks');
      if (first + copy.length > this.host.count) {
        throw outside();
      }
      const all = this.hostMasks ? this.hostMasks.slice() : new Uint32Array(this.host.count).fill(0xffffffff);
      all.set(copy, first);
      this.hostMasks = all;
      this.ctx.device.queue.writeBuffer(this.gpuMasks, 0, all);
    });
  }

  /**
   * Sets the materials of boxes `[first, first + n)` (n the length of the arrays given): their
   * reflectivity (in [0, 1]; the LiDAR intensity model's ρ, rounded to float32 as the GPU reads
   * it) and their semantic class (an integer in [0, 65535]). Boxes never given one keep the
   * defaults (reflectivity 1, class 0), including boxes a later `set()` adds; materials are per
   * box index, as masks are. Ordered with the set's other calls; all-or-nothing.
   *
   * @example
   * await set.setMaterials({ reflectivity: [0.9, 0.05], classId: [1, 7] }); // boxes 0 and 1
   */
  async setMaterials(materials: BoxMaterials, first = 0): Promise<void> {
    const op = 'BoxSet.setMaterials';
    this.assertUsable(op);
    if (typeof materials !== 'object' || materials === null) {
      throw new ValidationError('argument', undefined, 'materials', 'must be { reflectivity?, classId? }');
    }
    const unknown = Object.keys(materials).filter((k) => k !== 'reflectivity' && k !== 'classId');
    if (unknown.length > 0) {
      throw new ValidationError('argument', undefined, 'materials', `has unknown key ${JSON.stringify(unknown[0])} (known: reflectivity, classId)`);
    }
    const n = materials.reflectivity?.length ?? materials.classId?.length ?? 0;
    checkMaterial(materials.reflectivity, 'reflectivity', n, (x) => x >= 0 && x <= 1, 'a number in [0, 1]');
    checkMaterial(materials.classId, 'classId', n, (x) => Number.isInteger(x) && x >= 0 && x <= 0xffff, 'an integer in [0, 65535]');
    const outside = (): ValidationError => new ValidationError('argument', undefined, 'materials',
      `[${first}, ${first + n}) are outside the set (0..${this.host.count})`);
    if (!Number.isInteger(first) || first < 0) {
      throw outside();
    }
    // Copies now: the caller may reuse its arrays before this call's turn.
    const reflectivity = materials.reflectivity ? Float32Array.from(materials.reflectivity) : undefined;
    const classId = materials.classId ? Uint16Array.from(materials.classId) : undefined;
    await this.ctx.sequence(op, () => {
      this.assertUsable(op);
      if (first + n > this.host.count) {
        throw outside();
      }
      const all = this.materials ?? { reflectivity: new Float32Array(this.host.count).fill(1), classId: new Uint16Array(this.host.count) };
      const next = { reflectivity: all.reflectivity.slice(), classId: all.classId.slice() };
      if (reflectivity) {
        next.reflectivity.set(reflectivity, first);
      }
      if (classId) {
        next.classId.set(classId, first);
      }
      this.hostMaterials = next;
      this.materialsVersionValue++;
    });
  }

  /**
   * The materials, one per box of the set as it is now (reflectivity 1 and class 0 where never
   * set), or undefined when setMaterials was never called. Do not modify.
   */
  get materials(): BoxMaterialArrays | undefined {
    const m = this.hostMaterials;
    if (!m || m.reflectivity.length === this.host.count) {
      return m;
    }
    // The set was resized since: boxes beyond the old materials take the defaults.
    const count = this.host.count;
    const reflectivity = new Float32Array(count).fill(1);
    const classId = new Uint16Array(count);
    reflectivity.set(m.reflectivity.subarray(0, count));
    classId.set(m.classId.subarray(0, count));
    this.hostMaterials = { reflectivity, classId };
    return this.hostMaterials;
  }

  /** Bumped by every setMaterials (a sensor re-uploads the reflectivities when it moved). */
  get materialsVersion(): number {
    return this.materialsVersionValue;
  }

  /**
   * Moves the floating origin (default: the centre of the current boxes' bounds) and re-uploads
   * every box relative to it from the float64 host copy. Float32 error grows with the distance
   * from the origin, so a set much wider than the region its queries look at (a 100 km map
   * queried around one vehicle) should be re-based near the queries, as a floating-origin
   * engine shifts its world. Queries issued before see the old origin, queries issued after see
   * the new one; results are in world coordinates either way. Refused (nothing changes) if a
   * box would lie beyond `GPU_MAX_COORDINATE` (src/core/inputs.ts) of the new origin.
   *
   * @example
   * await set.rebase([52_000, -8_300, 0]); // the vehicle's position; then cast its LiDAR rays
   */
  async rebase(origin?: Vec3): Promise<void> {
    this.assertUsable('BoxSet.rebase');
    if (origin !== undefined) {
      checkOrigin(origin);
    }
    const given: Vec3 | undefined = origin ? [origin[0], origin[1], origin[2]] : undefined;
    await this.ctx.sequence('BoxSet.rebase', () => {
      this.assertUsable('BoxSet.rebase');
      // The host copy as of this call's turn (earlier calls are applied first).
      const target = given ?? defaultOrigin(this.host);
      checkBoxRange(this.host, target);
      this.currentOrigin = target;
      this.writeAll(target);
      this.changed(true);
    });
  }

  /**
   * Frees the set's GPU buffers and whatever its owner kept for it (ObbGpu: its tree), and
   * unregisters it from recovery, so nothing of the library holds the set any more (idempotent).
   * Queries issued earlier and not yet run fail with StaleObjectError.
   */
  destroy(): void {
    if (!this.lifetime.end()) {
      return;
    }
    this.unregister();
    this.ctx.destroyBuffer(this.gpuBoxes);
    this.ctx.destroyBuffer(this.gpuMasks);
  }
}

/** Checks that `set` is a live box set of context `ctx` (see checkBound). */
export function checkSet(ctx: object, set: unknown, field = 'set', operation = 'query'): void {
  checkBound(ctx, set, field, 'BoxSet', (v) => 'boxes' in v && 'assertUsable' in v, operation);
}
