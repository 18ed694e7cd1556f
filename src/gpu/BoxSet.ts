/**
 * GPU-resident boxes. A BoxSet keeps a float64 host copy (for the floating origin, for `recover`
 * after device loss, and for the CPU reference), and a GPU buffer of `Obb` records re-based to
 * the set's `origin`, with per-box u32 masks. Capacity grows by doubling; partial updates write
 * only the changed range. Every change is validated before anything reaches the GPU: a rejected
 * update leaves the set exactly as it was.
 */
import { BufferUsage } from './flags.ts';
import { BOX_F64, type BoxArray, type BoxInput, type Vec3 } from '../core/types.ts';
import { boxArrayFrom, validateBoxArray } from '../core/canonical.ts';
import { ValidationError } from '../errors.ts';
import { OBB, packBoxes } from '../layout/index.ts';
import type { GpuContext } from './device.ts';

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
}

const USAGE = BufferUsage.STORAGE | BufferUsage.COPY_DST | BufferUsage.COPY_SRC;

function canonicalBoxes(source: BoxSource): BoxArray {
  if (Array.isArray(source)) {
    return boxArrayFrom(source as readonly BoxInput[]);
  }
  const arr = source as BoxArray;
  if (!arr || !(arr.data instanceof Float64Array) || !Number.isInteger(arr.count)) {
    throw new ValidationError('argument', undefined, 'boxes', 'must be an array of boxes or a BoxArray { count, data: Float64Array }');
  }
  return validateBoxArray(arr.data, arr.count);
}

function checkMasks(masks: Uint32Array | undefined, count: number): void {
  if (masks && masks.length !== count) {
    throw new ValidationError('argument', undefined, 'masks', `has length ${masks.length}, expected one per box (${count})`);
  }
}

/** Centre of the bounds of the box centres (float64). */
function centreOfCentres(boxes: BoxArray): Vec3 {
  if (boxes.count === 0) {
    return [0, 0, 0];
  }
  const lo = [Infinity, Infinity, Infinity];
  const hi = [-Infinity, -Infinity, -Infinity];
  for (let i = 0; i < boxes.count; i++) {
    for (let k = 0; k < 3; k++) {
      const c = boxes.data[i * BOX_F64.STRIDE + k]!;
      lo[k] = Math.min(lo[k]!, c);
      hi[k] = Math.max(hi[k]!, c);
    }
  }
  return [(lo[0]! + hi[0]!) / 2, (lo[1]! + hi[1]!) / 2, (lo[2]! + hi[2]!) / 2];
}

/**
 * @example
 * const set = BoxSet.create(ctx, [{ center: [0, 0, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] }]);
 * await set.update(0, [{ center: [0, 1, 0], halfExtents: [1, 1, 1], rotation: [0, 0, 0, 1] }]);
 * set.destroy();
 */
export class BoxSet {
  readonly ctx: GpuContext;
  readonly origin: Vec3;
  readonly label: string;
  private host: BoxArray;
  private hostMasks: Uint32Array | undefined;
  private gpuBoxes: GPUBuffer;
  private gpuMasks: GPUBuffer;
  private capacity: number;
  private destroyed = false;

  private constructor(ctx: GpuContext, boxes: BoxArray, options: BoxSetOptions) {
    this.ctx = ctx;
    this.label = options.label ?? 'boxes';
    this.host = boxes;
    this.hostMasks = options.masks ? options.masks.slice() : undefined;
    this.origin = options.origin ?? centreOfCentres(boxes);
    this.capacity = Math.max(1, options.capacity ?? 0, boxes.count);
    ctx.assertBindingFits(`box set "${this.label}"`, this.capacity * OBB.SIZE);
    this.gpuBoxes = ctx.createBuffer({ label: `${ctx.label}:${this.label}`, size: this.capacity * OBB.SIZE, usage: USAGE });
    this.gpuMasks = ctx.createBuffer({ label: `${ctx.label}:${this.label}:masks`, size: this.capacity * 4, usage: USAGE });
    this.writeAll();
  }

  /**
   * Validates `boxes` (and `options.masks`) and uploads them. Throws ValidationError naming the
   * first bad box before anything is allocated.
   */
  static create(ctx: GpuContext, boxes: BoxSource, options: BoxSetOptions = {}): BoxSet {
    ctx.assertAlive('BoxSet.create');
    const canonical = canonicalBoxes(boxes);
    checkMasks(options.masks, canonical.count);
    if (options.origin && !options.origin.every(Number.isFinite)) {
      throw new ValidationError('argument', undefined, 'origin', 'must be three finite numbers');
    }
    return new BoxSet(ctx, canonical, options);
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

  private assertUsable(operation: string): void {
    if (this.destroyed) {
      throw new Error(`${operation}: this BoxSet was destroyed`);
    }
    this.ctx.assertAlive(operation);
  }

  private writeAll(): void {
    const q = this.ctx.device.queue;
    if (this.host.count > 0) {
      q.writeBuffer(this.gpuBoxes, 0, packBoxes(this.host, this.origin));
      if (this.hostMasks) {
        q.writeBuffer(this.gpuMasks, 0, this.hostMasks);
      }
    }
  }

  private grow(count: number): void {
    if (count <= this.capacity) {
      return;
    }
    const capacity = Math.max(count, this.capacity * 2);
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
   */
  async set(boxes: BoxSource, masks?: Uint32Array): Promise<void> {
    this.assertUsable('BoxSet.set');
    const canonical = canonicalBoxes(boxes);
    checkMasks(masks, canonical.count);
    await this.ctx.sequence('BoxSet.set', () => {
      this.grow(canonical.count);
      this.host = canonical;
      this.hostMasks = masks ? masks.slice() : undefined;
      this.writeAll();
    });
  }

  /** Replaces boxes `[first, first + n)`; the set keeps its size (use `set` to change it). */
  async update(first: number, boxes: BoxSource): Promise<void> {
    this.assertUsable('BoxSet.update');
    const canonical = canonicalBoxes(boxes);
    if (!Number.isInteger(first) || first < 0 || first + canonical.count > this.host.count) {
      throw new ValidationError('argument', undefined, 'first',
        `= ${first}: boxes [${first}, ${first + canonical.count}) are outside the set (0..${this.host.count})`);
    }
    await this.ctx.sequence('BoxSet.update', () => {
      const data = this.host.data.slice();
      data.set(canonical.data, first * BOX_F64.STRIDE);
      this.host = { count: this.host.count, data };
      this.ctx.device.queue.writeBuffer(this.gpuBoxes, first * OBB.SIZE, packBoxes(canonical, this.origin));
    });
  }

  /** Replaces masks `[first, first + masks.length)`. */
  async setMasks(masks: Uint32Array, first = 0): Promise<void> {
    this.assertUsable('BoxSet.setMasks');
    if (!Number.isInteger(first) || first < 0 || first + masks.length > this.host.count) {
      throw new ValidationError('argument', undefined, 'masks',
        `[${first}, ${first + masks.length}) are outside the set (0..${this.host.count})`);
    }
    await this.ctx.sequence('BoxSet.setMasks', () => {
      const all = this.hostMasks ? this.hostMasks.slice() : new Uint32Array(this.host.count).fill(0xffffffff);
      all.set(masks, first);
      this.hostMasks = all;
      this.ctx.device.queue.writeBuffer(this.gpuMasks, 0, all);
    });
  }

  /** Frees the set's GPU buffers (idempotent). */
  destroy(): void {
    if (this.destroyed) {
      return;
    }
    this.destroyed = true;
    this.ctx.destroyBuffer(this.gpuBoxes);
    this.ctx.destroyBuffer(this.gpuMasks);
  }
}
