/**
 * Boxes that live on the GPU: a BoxSet whose boxes are derived, on the GPU, from a buffer the
 * caller's own passes write (instance matrices animated by a compute pass, a simulator's actors,
 * three.js storage instancing), with no CPU copy in either direction. `refresh(encoder)` records
 * the derivation (shaders/boxes/derive.wgsl) into the caller's encoder, and the tree's refit or
 * rebuild after it when ObbGpu keeps one; queries recorded after it in the same encoder
 * (`encodeClosestHit`, a frustum culler's `encode`) see the new boxes. `readBack()` is the proof on
 * demand: the source and what the GPU derived from it, read in one staging copy, and the float64
 * derivation of the same source (src/compare/derive.ts), which `compareDerivedBoxes` judges the
 * GPU's records against.
 *
 * What differs from a BoxSet made from host boxes (docs/queries.md, "Boxes that live on the GPU"):
 * - no float64 host copy: `boxes` is the float64 derivation of the latest `readBack()` (before one,
 *   or after the count changed, every record inert), and `set`, `update`, `updateIndices` are
 *   refused (write the source and refresh, or `setSource`);
 * - a box that cannot be derived (NaN, zero scale, shear, …: BOX_FLAG_*) is written as the inert
 *   record and masked out, counted in the status buffer and named by `readBack()`;
 * - `count`, `origin` and the boxes change at a refresh: a source or origin set with `setSource`
 *   or `rebase` takes effect at the next one; before the first refresh the set has no boxes;
 * - the set does not own the caller's buffers (never maps, writes or destroys them), and it does
 *   not survive `recover()` (its source died with the old device): it is stale then, and made
 *   again with the new device's buffers.
 */
import { BufferUsage } from '../runtime/flags.ts';
import {
  BOX_FLAG_COUNT, BOX_FLAG_NAMES, BOX_INERT_HALF_EXTENT, DERIVE_LAYOUT_MAT3X4F, DERIVE_LAYOUT_MAT4X4F, DERIVE_LAYOUT_OBB,
  DERIVE_OPT_LOCAL_BOXES, DERIVE_OPT_USER_MASKS, WORKGROUP_SIZE, type BoxFlagName,
} from '../constants.ts';
import { BOX_F64, type Aabb, type BoxArray, type Vec3 } from '../core/types.ts';
import { describeValue } from '../core/canonical.ts';
import { checkCapacity, checkOrigin } from '../core/inputs.ts';
import { ValidationError } from '../errors.ts';
import { DERIVE_PARAMS, OBB } from '../layout/index.ts';
import { KERNELS, dispatchGrid, getKernel, type KernelPipeline } from '../runtime/pipelines.ts';
import type { GpuContext } from '../runtime/context.ts';
import {
  DERIVE_RECORD_WORDS, LOCAL_BOX_WORDS, deriveBoxes, type BadBox, type DeriveInput, type DeriveLayout, type DerivedBoxes, type DerivedRecords,
} from '../compare/derive.ts';
import { BoxSet } from './BoxSet.ts';

/** Per-instance local boxes in a buffer of the caller's: min xyz, max xyz as float32 (24 bytes) per instance. */
export interface GpuLocalBoxes {
  /** Needs GPUBufferUsage.STORAGE (and COPY_SRC for readBack). */
  readonly buffer: GPUBuffer;
  /** Bytes before instance 0's local box (a multiple of 4; default 0). */
  readonly offset?: number;
  /** Bytes from one local box to the next (a multiple of 4, at least 24; default 24). */
  readonly stride?: number;
}

/**
 * Where a GPU-sourced set reads its boxes: a buffer of the caller's, in one of three layouts:
 * - `'mat4x4f'`: column-major 4×4 float32 world matrices, 64 bytes (three.js `instanceMatrix`,
 *   glTF, Babylon's world matrices), last row (0, 0, 0, 1);
 * - `'mat3x4f'`: row-major 3×4 float32, 48 bytes: rows (m00 m01 m02 tx), (m10 m11 m12 ty),
 *   (m20 m21 m22 tz);
 * - `'obb'`: the library's box record (struct Obb: centre, hx, u, hy, v, hz) in world
 *   coordinates, 48 bytes; w = u × v.
 * Matrix layouts take the box in the matrix's local space: `localBox` for every instance, or
 * `localBoxes` (one per instance, in a second buffer).
 */
export interface GpuBoxSource {
  /** The caller's buffer: needs GPUBufferUsage.STORAGE (and COPY_SRC for readBack). The set never maps, writes or destroys it. */
  readonly buffer: GPUBuffer;
  readonly layout: DeriveLayout;
  /** Boxes (instances) to read. At most the set's capacity. */
  readonly count: number;
  /** Bytes before record 0 (a multiple of 4; default 0). */
  readonly offset?: number;
  /** Bytes from one record to the next (a multiple of 4, at least the record's 64 or 48; default the record's size). */
  readonly stride?: number;
  /** The box in every matrix's local space (e.g. the instanced geometry's bounding box). */
  readonly localBox?: Aabb;
  /** One local box per instance instead. */
  readonly localBoxes?: GpuLocalBoxes;
}

/** Options of a GPU-sourced set (`gpu.createBoxSet({ source, … })`). */
export interface GpuBoxSetOptions {
  readonly source: GpuBoxSource;
  /**
   * Floating origin (float64, world): the records are re-based to it on the GPU, so float32
   * precision follows the distance from it. Default [0, 0, 0]; put it amid the instances (the
   * derivation's error grows with their distance from it, and inert records sit there).
   */
  readonly origin?: Vec3;
  /** Boxes the set's buffers hold (default `source.count`): room for `setSource` to grow into without reallocating. */
  readonly capacity?: number;
  /** Per-box masks for the first `source.count` boxes (a flagged box's effective mask is 0 whatever its mask). */
  readonly masks?: Uint32Array;
  readonly label?: string;
}

/** What `refresh` does about the set's tree (the BVH ObbGpu keeps for queries with `accel`). */
export type RefreshTree = 'auto' | 'build' | 'none';

/** Options of {@link GpuSourcedBoxSet.refresh}. */
export interface RefreshOptions {
  /**
   * `'auto'` (default): refit or rebuild (by the SAH rule, ObbGpuOptions.rebuildSahRatio) the tree
   * ObbGpu keeps for the set, in the same encoder after the derivation, and build one when queries
   * with `accel: 'auto'` would walk one (from `thresholds.rays` boxes); `'build'`: build one in
   * any case; `'none'`: leave the tree (a query that walks it refits it at its own turn, in its
   * own submission: submit this encoder first).
   */
  readonly tree?: RefreshTree;
  /** Timestamp writes of the derivation's compute pass (profiling). */
  readonly timestampWrites?: GPUComputePassTimestampWrites;
  /** Timestamp writes of the tree's refit or rebuild pass, when one is recorded (profiling). */
  readonly treeTimestampWrites?: GPUComputePassTimestampWrites;
}

/** What a refresh recorded. */
export interface RefreshResult {
  /** Boxes derived (the set's count from now on). */
  readonly count: number;
  /** The tree work recorded after the derivation. */
  readonly tree: 'none' | 'refit' | 'rebuild';
}

/**
 * How ObbGpu keeps a sourced set's tree current inside a refresh's encoder (installed by ObbGpu;
 * a set made without it has no managed tree).
 */
export type SourcedTreeRefresh = (
  encoder: GPUCommandEncoder, mode: RefreshTree, operation: string, timestampWrites?: GPUComputePassTimestampWrites,
) => Promise<'none' | 'refit' | 'rebuild'>;

/** The derivation's counts: flagged boxes, and boxes per flag (a box may have several). */
export interface DeriveStatus {
  readonly flagged: number;
  readonly byFlag: Readonly<Record<BoxFlagName, number>>;
}

/** What {@link GpuSourcedBoxSet.readBack} returns: the source, what the GPU made of it, and the float64 derivation. */
export interface GpuSourcedReadBack {
  readonly count: number;
  readonly origin: Vec3;
  /** The source as read (and the set's origin and masks): the input of `deriveBoxes` and `compareDerivedBoxes`. */
  readonly input: DeriveInput;
  /** The float64 derivation of that source (world coordinates; flagged boxes inert). */
  readonly reference: DerivedBoxes;
  /** The boxes the derivation left out, with their reasons (the reference's). */
  readonly bad: readonly BadBox[];
  /**
   * What the GPU holds: its records, flags, counts and effective masks as read back, and its
   * records as boxes in world coordinates (`boxes`: centre + origin in float64, the records' u and
   * v, w = u × v), the boxes its queries answer for: judge a query against the reference on these
   * (with `masks` as the box masks), and the records against `reference` with compareDerivedBoxes.
   */
  readonly gpu: DerivedRecords & { readonly status: Uint32Array; readonly masks: Uint32Array; readonly boxes: BoxArray };
}

/** A source, validated and resolved to what the kernel binds (bytes and words). */
interface ResolvedSource {
  readonly buffer: GPUBuffer;
  readonly layout: DeriveLayout;
  readonly count: number;
  readonly offset: number;
  readonly stride: number;
  /** Bytes of one record. */
  readonly record: number;
  /** The bound range: from `base` (aligned down), `size` bytes. */
  readonly base: number;
  readonly size: number;
  readonly localBox: Aabb | undefined;
  readonly localBoxes: { readonly buffer: GPUBuffer; readonly offset: number; readonly stride: number; readonly base: number; readonly size: number } | undefined;
}

const LAYOUT_CODE: Readonly<Record<DeriveLayout, number>> = { mat4x4f: DERIVE_LAYOUT_MAT4X4F, mat3x4f: DERIVE_LAYOUT_MAT3X4F, obb: DERIVE_LAYOUT_OBB };
const OWN = BufferUsage.STORAGE | BufferUsage.COPY_SRC | BufferUsage.COPY_DST;
/** Words of the status buffer: the flagged count, then one count per flag bit. */
const STATUS_WORDS = 1 + BOX_FLAG_COUNT;
/** Largest |coordinate| of an origin or a local box: its float32 rounding must stay finite, with room. */
const HOST_MAX = 1e30;
const MIN_STORAGE_ALIGN = 256;

function isGpuBuffer(value: unknown): value is GPUBuffer {
  return typeof value === 'object' && value !== null && typeof (value as GPUBuffer).size === 'number' && typeof (value as GPUBuffer).usage === 'number';
}

function usageNames(usage: number): string {
  return Object.entries(BufferUsage).filter(([, bit]) => usage & bit).map(([name]) => name).join(' | ') || 'none';
}

function checkBytes(field: string, value: unknown, least = 0): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < least || value % 4 !== 0) {
    throw new ValidationError('argument', undefined, field, `must be a multiple of 4 bytes${least > 0 ? ` of at least ${least}` : ' ≥ 0'} (got ${String(value)})`);
  }
  return value;
}

function checkStorage(field: string, buffer: unknown): GPUBuffer {
  if (!isGpuBuffer(buffer)) {
    throw new ValidationError('argument', undefined, field, `must be a GPUBuffer (got ${describeValue(buffer)})`);
  }
  if ((buffer.usage & BufferUsage.STORAGE) === 0) {
    throw new ValidationError('argument', undefined, field,
      `needs GPUBufferUsage.STORAGE to be read by the derivation (its usage is ${usageNames(buffer.usage)}); add STORAGE where you create it (and COPY_SRC for readBack)`);
  }
  return buffer;
}

function checkLocalBox(value: unknown): Aabb {
  const box = value as Aabb | null;
  if (typeof box !== 'object' || box === null) {
    throw new ValidationError('argument', undefined, 'source.localBox', `must be { min, max } (got ${describeValue(value)})`);
  }
  for (const key of ['min', 'max'] as const) {
    const v = box[key] as unknown;
    if (!Array.isArray(v) || v.length !== 3 || !v.every((x) => typeof x === 'number' && Number.isFinite(x) && Math.abs(x) <= HOST_MAX)) {
      throw new ValidationError('argument', undefined, `source.localBox.${key}`, `must be three finite numbers within ±${HOST_MAX} (got ${JSON.stringify(v) ?? String(v)})`);
    }
  }
  for (let k = 0; k < 3; k++) {
    if (box.min[k]! > box.max[k]!) {
      throw new ValidationError('argument', undefined, `source.localBox.min[${k}]`, `is greater than localBox.max[${k}] (${box.min[k]} > ${box.max[k]})`);
    }
  }
  return { min: [box.min[0], box.min[1], box.min[2]], max: [box.max[0], box.max[1], box.max[2]] };
}

/** The bound range of `count` records of `record` bytes, `stride` apart from byte `offset`. */
function rangeOf(offset: number, stride: number, record: number, count: number, align: number): { base: number; size: number; end: number } {
  const end = count > 0 ? offset + (count - 1) * stride + record : offset;
  const base = Math.floor(offset / align) * align;
  return { base, size: Math.max(4, end - base), end };
}

/**
 * Validates a source against `capacity` and the device's limits (everything that can be known
 * before the GPU reads it: usage, alignment, count × stride within the buffer, the binding size).
 */
function resolveSource(ctx: GpuContext, source: unknown, capacity: number): ResolvedSource {
  if (typeof source !== 'object' || source === null) {
    throw new ValidationError('argument', undefined, 'source', `must be { buffer, layout, count, … } (got ${describeValue(source)})`);
  }
  const s = source as GpuBoxSource;
  const known = ['buffer', 'layout', 'count', 'offset', 'stride', 'localBox', 'localBoxes'];
  const unknown = Object.keys(s).find((k) => !known.includes(k));
  if (unknown !== undefined) {
    throw new ValidationError('argument', undefined, 'source', `has unknown key ${JSON.stringify(unknown)} (known: ${known.join(', ')})`);
  }
  const buffer = checkStorage('source.buffer', s.buffer);
  const layout = s.layout;
  if (!(typeof layout === 'string' && layout in DERIVE_RECORD_WORDS)) {
    throw new ValidationError('argument', undefined, 'source.layout', `must be 'mat4x4f', 'mat3x4f' or 'obb' (got ${describeValue(layout)})`);
  }
  const record = 4 * DERIVE_RECORD_WORDS[layout];
  const offset = checkBytes('source.offset', s.offset ?? 0);
  const stride = checkBytes('source.stride', s.stride ?? record, record);
  const count = s.count;
  if (typeof count !== 'number' || !Number.isInteger(count) || count < 0) {
    throw new ValidationError('argument', undefined, 'source.count', `must be a non-negative integer (got ${String(count)})`);
  }
  if (count > capacity) {
    throw new ValidationError('argument', undefined, 'source.count', `= ${count} exceeds the set's capacity ${capacity} (create the set with a larger capacity)`);
  }
  const align = ctx.device.limits.minStorageBufferOffsetAlignment ?? MIN_STORAGE_ALIGN;
  const range = rangeOf(offset, stride, record, count, align);
  if (range.end > buffer.size) {
    throw new ValidationError('argument', undefined, 'source',
      `${count} ${layout} records of ${record} bytes, ${stride} apart from byte ${offset}, end at byte ${range.end}, beyond the buffer's ${buffer.size} bytes`);
  }
  ctx.assertBindingFits('source buffer range', range.size, `${count} records × ${stride} bytes from byte ${offset}`);
  let localBox: Aabb | undefined;
  let localBoxes: ResolvedSource['localBoxes'];
  if (layout === 'obb') {
    if (s.localBox !== undefined || s.localBoxes !== undefined) {
      throw new ValidationError('argument', undefined, 'source.localBox', "is for matrix layouts; a layout 'obb' record is the box itself");
    }
  } else if ((s.localBox === undefined) === (s.localBoxes === undefined)) {
    throw new ValidationError('argument', undefined, 'source.localBox',
      `give the box in the matrices' local space: localBox (one for every instance) or localBoxes (one per instance), one of them (got ${s.localBox === undefined ? 'neither' : 'both'})`);
  } else if (s.localBox !== undefined) {
    localBox = checkLocalBox(s.localBox);
  } else {
    const lb = s.localBoxes as GpuLocalBoxes;
    if (typeof lb !== 'object' || lb === null) {
      throw new ValidationError('argument', undefined, 'source.localBoxes', `must be { buffer, offset?, stride? } (got ${describeValue(lb)})`);
    }
    const lbBuffer = checkStorage('source.localBoxes.buffer', lb.buffer);
    const lbOffset = checkBytes('source.localBoxes.offset', lb.offset ?? 0);
    const lbStride = checkBytes('source.localBoxes.stride', lb.stride ?? 4 * LOCAL_BOX_WORDS, 4 * LOCAL_BOX_WORDS);
    const r = rangeOf(lbOffset, lbStride, 4 * LOCAL_BOX_WORDS, count, align);
    if (r.end > lbBuffer.size) {
      throw new ValidationError('argument', undefined, 'source.localBoxes',
        `${count} local boxes of 24 bytes, ${lbStride} apart from byte ${lbOffset}, end at byte ${r.end}, beyond the buffer's ${lbBuffer.size} bytes`);
    }
    ctx.assertBindingFits('local boxes buffer range', r.size, `${count} local boxes × ${lbStride} bytes from byte ${lbOffset}`);
    localBoxes = { buffer: lbBuffer, offset: lbOffset, stride: lbStride, base: r.base, size: r.size };
  }
  return { buffer, layout, count, offset, stride, record, base: range.base, size: range.size, localBox, localBoxes };
}

function checkSourcedOrigin(origin: unknown, field = 'origin'): Vec3 {
  checkOrigin(origin, field);
  if (!origin.every((x) => Math.abs(x) <= HOST_MAX)) {
    throw new ValidationError('argument', undefined, field, `must lie within ±${HOST_MAX} (its float32 parts must stay finite; got ${JSON.stringify(origin)})`);
  }
  return [origin[0], origin[1], origin[2]];
}

/**
 * @example
 * declare const matrices: GPUBuffer; // STORAGE | COPY_SRC, written by your animation pass
 * const sourced = gpu.createBoxSet({
 *   source: { buffer: matrices, layout: 'mat4x4f', count: 100_000, localBox: { min: [-0.5, -0.5, -0.5], max: [0.5, 0.5, 0.5] } },
 *   origin: [0, 0, 0],
 * });
 * const enc = device.createCommandEncoder();
 * // … your animation pass writes `matrices` …
 * declare const rayBuffer: GPUBuffer, hitBuffer: GPUBuffer, geometryBuffer: GPUBuffer;
 * await sourced.refresh(enc); // derivation + tree refit, recorded after it
 * const tree = await gpu.bvhOf(sourced); // current for the refresh: no GPU work here
 * await gpu.rays.encodeClosestHit(enc, sourced, rayBuffer, 1, hitBuffer, geometryBuffer, tree ? { tree } : {});
 * device.queue.submit([enc.finish()]);
 */
export class GpuSourcedBoxSet extends BoxSet {
  /** Boxes the set's buffers hold (a source's count may grow up to it). */
  readonly boxCapacity: number;
  private pending: ResolvedSource;
  private applied: ResolvedSource | undefined;
  private pendingOrigin: Vec3;
  private appliedOrigin: Vec3;
  private readonly params: GPUBuffer;
  private readonly flags: GPUBuffer;
  private readonly status: GPUBuffer;
  /** Bound where the layout needs no buffer (no per-instance local boxes, no masks of the caller's). */
  private readonly empty: GPUBuffer;
  private userMaskBuffer: GPUBuffer | undefined;
  /** The caller's masks (capacity entries), undefined while it gave none. */
  private userMasks: Uint32Array | undefined;
  /** All bits, for `masks` while the caller gave none (made on first read). */
  private allBits: Uint32Array | undefined;
  /** The params as last written (written again only when they change: no upload per frame). */
  private written: Uint32Array | undefined;
  private group: { key: ResolvedSource; masks: GPUBuffer | undefined; group: GPUBindGroup } | undefined;
  private treeRefresh: SourcedTreeRefresh | undefined;
  private lastReadBack: DerivedBoxes | undefined;
  private inertHost: BoxArray | undefined;

  private constructor(ctx: GpuContext, source: ResolvedSource, origin: Vec3, capacity: number, options: GpuBoxSetOptions) {
    const label = options.label ?? 'gpu-boxes';
    super(ctx, { count: 0, data: new Float64Array(0) }, origin, { capacity, label }, true);
    this.boxCapacity = capacity;
    this.pending = source;
    this.pendingOrigin = origin;
    this.appliedOrigin = origin;
    const made: GPUBuffer[] = [];
    const make = (name: string, size: number, usage: number): GPUBuffer => {
      const b = ctx.createBuffer({ label: `${ctx.label}:${label}:${name}`, size: Math.max(16, size), usage });
      made.push(b);
      return b;
    };
    try {
      this.params = make('derive-params', DERIVE_PARAMS.SIZE, BufferUsage.UNIFORM | BufferUsage.COPY_DST);
      this.flags = make('flags', capacity * 4, OWN);
      this.status = make('status', STATUS_WORDS * 4, OWN);
      this.empty = make('empty', 16, BufferUsage.STORAGE);
      if (options.masks) {
        this.userMasks = new Uint32Array(capacity).fill(0xffffffff);
        this.userMasks.set(options.masks);
        this.userMaskBuffer = make('user-masks', capacity * 4, OWN);
        ctx.device.queue.writeBuffer(this.userMaskBuffer, 0, this.userMasks);
      }
    } catch (error) {
      made.forEach((b) => ctx.destroyBuffer(b));
      super.destroy();
      throw error;
    }
  }

  /**
   * Validates `options` (the source's usage, alignment and extent, the origin, the capacity, the
   * masks) and allocates the set's buffers; the set has no boxes until its first `refresh`.
   * `gpu.createBoxSet({ source, … })` calls this and keeps the set's tree.
   */
  static fromSource(ctx: GpuContext, options: GpuBoxSetOptions): GpuSourcedBoxSet {
    ctx.assertAlive('createBoxSet');
    if (typeof options !== 'object' || options === null) {
      throw new ValidationError('argument', undefined, 'options', `must be { source, origin?, capacity?, masks?, label? } (got ${describeValue(options)})`);
    }
    const known = ['source', 'origin', 'capacity', 'masks', 'label'];
    const unknown = Object.keys(options).find((k) => !known.includes(k));
    if (unknown !== undefined) {
      throw new ValidationError('argument', undefined, 'options', `has unknown key ${JSON.stringify(unknown)} (known: ${known.join(', ')})`);
    }
    checkCapacity(options.capacity);
    const given = (options.source as GpuBoxSource | undefined)?.count;
    const capacity = Math.max(1, options.capacity ?? (typeof given === 'number' && Number.isInteger(given) ? given : 0));
    ctx.assertBindingFits(`box set "${options.label ?? 'gpu-boxes'}"`, capacity * OBB.SIZE, `${capacity} boxes × ${OBB.SIZE} bytes`);
    const source = resolveSource(ctx, options.source, capacity);
    const origin = options.origin === undefined ? [0, 0, 0] as const : checkSourcedOrigin(options.origin);
    if (options.masks !== undefined && (!(options.masks instanceof Uint32Array) || options.masks.length !== source.count)) {
      throw new ValidationError('argument', undefined, 'masks', `must be a Uint32Array of one mask per box (${source.count}; got ${describeValue(options.masks)}${options.masks instanceof Uint32Array ? ` of length ${options.masks.length}` : ''})`);
    }
    if (options.label !== undefined && typeof options.label !== 'string') {
      throw new ValidationError('argument', undefined, 'label', `must be a string (got ${describeValue(options.label)})`);
    }
    return new GpuSourcedBoxSet(ctx, source, [origin[0], origin[1], origin[2]], capacity, options);
  }

  /** Boxes as of the last refresh (0 before the first). */
  override get count(): number {
    return this.applied?.count ?? 0;
  }

  /** The floating origin the records are re-based to, as of the last refresh. */
  override get origin(): Vec3 {
    return this.appliedOrigin;
  }

  /**
   * The float64 derivation of the latest `readBack()` (world coordinates; flagged boxes hold the
   * inert record). A GPU-sourced set has no host copy: before the first readBack, or once the
   * count changed since, every record is the inert record (made on first read: 120 bytes a box).
   * The reference fallbacks of the queries read it; call readBack first for anything else.
   */
  override get boxes(): BoxArray {
    const n = this.count;
    if (this.lastReadBack && this.lastReadBack.count === n) {
      return this.lastReadBack.boxes;
    }
    if (!this.inertHost || this.inertHost.count !== n) {
      const data = new Float64Array(n * BOX_F64.STRIDE);
      const o = this.appliedOrigin;
      const h = Math.fround(-BOX_INERT_HALF_EXTENT);
      for (let i = 0; i < n; i++) {
        data.set([o[0], o[1], o[2], h, h, h, 1, 0, 0], i * BOX_F64.STRIDE);
      }
      this.inertHost = { count: n, data };
    }
    return this.inertHost;
  }

  /**
   * The caller's masks for the current boxes (all bits where none were given). Always defined: the
   * queries then read the effective masks, which are 0 for flagged boxes.
   */
  override get masks(): Uint32Array {
    const n = this.count;
    if (this.userMasks) {
      return this.userMasks.subarray(0, n);
    }
    if (!this.allBits || this.allBits.length < n) {
      this.allBits = new Uint32Array(Math.max(n, 1)).fill(0xffffffff);
    }
    return this.allBits.subarray(0, n);
  }

  /** Per-box flag bits of the last refresh (u32; 0 = derived, else BOX_FLAG_* bits), for the caller's own passes. */
  get flagBuffer(): GPUBuffer {
    this.assertUsable('GpuSourcedBoxSet.flagBuffer');
    return this.flags;
  }

  /** The last refresh's counts (u32): [0] flagged boxes, [1 + b] boxes with flag bit b (BOX_FLAG_NAMES[b]). */
  get statusBuffer(): GPUBuffer {
    this.assertUsable('GpuSourcedBoxSet.statusBuffer');
    return this.status;
  }

  /** The layout, count and buffer of the source the next refresh reads. */
  get source(): { readonly buffer: GPUBuffer; readonly layout: DeriveLayout; readonly count: number } {
    return { buffer: this.pending.buffer, layout: this.pending.layout, count: this.pending.count };
  }

  /**
   * Installs ObbGpu's tree upkeep (ObbGpu does, for the sets it makes); without it a refresh
   * leaves trees alone.
   */
  manageTree(refresh: SourcedTreeRefresh): void {
    this.treeRefresh = refresh;
  }

  /**
   * A new source for the next refresh (another buffer, layout, count up to the capacity, local
   * boxes): validated now, in full, like the first. Ordered with the set's other calls.
   *
   * @example
   * declare const sourced: GpuSourcedBoxSet, moreMatrices: GPUBuffer;
   * await sourced.setSource({ buffer: moreMatrices, layout: 'mat4x4f', count: 2000, localBox: { min: [-1, -1, -1], max: [1, 1, 1] } });
   */
  async setSource(source: GpuBoxSource): Promise<void> {
    const op = 'GpuSourcedBoxSet.setSource';
    this.assertUsable(op);
    const resolved = resolveSource(this.ctx, source, this.boxCapacity);
    await this.ctx.sequence(op, () => {
      this.assertUsable(op);
      this.pending = resolved;
    });
  }

  /**
   * Moves the floating origin; the next refresh re-bases every record to it on the GPU (and
   * rebuilds the tree). Queries until then use the old origin with the old records. A
   * GPU-sourced set has no host boxes to centre on: give the origin.
   */
  override async rebase(origin?: Vec3): Promise<void> {
    const op = 'GpuSourcedBoxSet.rebase';
    this.assertUsable(op);
    if (origin === undefined) {
      throw new ValidationError('argument', undefined, 'origin', 'is needed: a GPU-sourced set has no host boxes to centre on');
    }
    const o = checkSourcedOrigin(origin);
    await this.ctx.sequence(op, () => {
      this.assertUsable(op);
      this.pendingOrigin = o;
    });
  }

  private refuse(op: string): Promise<never> {
    return Promise.reject(new ValidationError('argument', undefined, 'set',
      `${op}: a GPU-sourced set's boxes come from its source buffer; write that buffer and refresh(), or setSource()`));
  }

  /** Refused: the boxes come from the source buffer (write it and refresh, or setSource). */
  override set(...args: Parameters<BoxSet['set']>): Promise<void> {
    void args;
    return this.refuse('BoxSet.set');
  }

  /** Refused: the boxes come from the source buffer (write it and refresh, or setSource). */
  override update(...args: Parameters<BoxSet['update']>): Promise<void> {
    void args;
    return this.refuse('BoxSet.update');
  }

  /** Refused: the boxes come from the source buffer (write it and refresh, or setSource). */
  override updateIndices(...args: Parameters<BoxSet['updateIndices']>): Promise<void> {
    void args;
    return this.refuse('BoxSet.updateIndices');
  }

  /**
   * Records the derivation of the boxes from the source into `encoder` (or submits it alone
   * without one): each record re-based to the origin, flagged boxes made inert and masked out, the
   * counts in `statusBuffer`; then the tree's refit or rebuild (`options.tree`). Nothing is read
   * back and nothing uploaded (but the 80-byte parameters when the source or origin changed). The
   * set's count, origin and version change now: work recorded after this call in the same encoder,
   * and anything issued after the encoder's submission, sees the new boxes; submit the encoder
   * before issuing queries that submit themselves (they would see the boxes before it).
   *
   * @example
   * declare const sourced: GpuSourcedBoxSet;
   * const enc = device.createCommandEncoder();
   * const { count, tree } = await sourced.refresh(enc); // tree: 'refit' most frames
   * device.queue.submit([enc.finish()]);
   */
  async refresh(encoder?: GPUCommandEncoder, options: RefreshOptions = {}): Promise<RefreshResult> {
    const op = 'GpuSourcedBoxSet.refresh';
    this.assertUsable(op);
    const tree = options.tree ?? 'auto';
    if (tree !== 'auto' && tree !== 'build' && tree !== 'none') {
      throw new ValidationError('argument', undefined, 'options.tree', `must be 'auto', 'build' or 'none' (got ${describeValue(tree)})`);
    }
    return this.ctx.sequence(op, async () => {
      this.assertUsable(op);
      const epoch = this.ctx.epoch;
      const enc = encoder ?? this.ctx.device.createCommandEncoder({ label: `${this.ctx.label}:${this.label}:refresh` });
      const result = await this.record(enc, op, tree, options.timestampWrites, options.treeTimestampWrites);
      if (!encoder) {
        await this.ctx.scoped(`${op} (${result.count} boxes)`, () => this.ctx.device.queue.submit([enc.finish()]), epoch);
      }
      return result;
    });
  }

  /** The DeriveParams of `source` and `origin`, as words. */
  private paramsOf(source: ResolvedSource, origin: Vec3): Uint32Array {
    const bytes = new ArrayBuffer(DERIVE_PARAMS.SIZE);
    const f = new Float32Array(bytes);
    const u = new Uint32Array(bytes);
    const P = DERIVE_PARAMS;
    for (let k = 0; k < 3; k++) {
      const hi = Math.fround(origin[k]!);
      f[P.ORIGIN_HI / 4 + k] = hi;
      f[P.ORIGIN_LO / 4 + k] = origin[k]! - hi;
    }
    u[P.COUNT / 4] = source.count;
    u[P.SOURCE_LAYOUT / 4] = LAYOUT_CODE[source.layout];
    u[P.RECORD_FIRST / 4] = (source.offset - source.base) / 4;
    u[P.RECORD_STRIDE / 4] = source.stride / 4;
    let flags = 0;
    if (source.localBox) {
      const { min, max } = source.localBox;
      for (let k = 0; k < 3; k++) {
        f[P.LOCAL_CENTER / 4 + k] = min[k]! / 2 + max[k]! / 2;
        f[P.LOCAL_HALF / 4 + k] = max[k]! / 2 - min[k]! / 2;
      }
    }
    if (source.localBoxes) {
      flags |= DERIVE_OPT_LOCAL_BOXES;
      u[P.LOCAL_FIRST / 4] = (source.localBoxes.offset - source.localBoxes.base) / 4;
      u[P.LOCAL_STRIDE / 4] = source.localBoxes.stride / 4;
    }
    if (this.userMaskBuffer) {
      flags |= DERIVE_OPT_USER_MASKS;
    }
    u[P.FLAGS / 4] = flags;
    return u;
  }

  /** Writes the params when they differ from what was written last (never in a steady frame loop). */
  private writeParams(source: ResolvedSource, origin: Vec3): void {
    const words = this.paramsOf(source, origin);
    if (this.written && this.written.every((w, k) => w === words[k])) {
      return;
    }
    this.ctx.device.queue.writeBuffer(this.params, 0, words);
    this.written = words;
  }

  /** The derivation's bind group for `source` (made again only when the source or the masks changed). */
  private bindGroupOf(kernel: KernelPipeline<'deriveBoxes'>, source: ResolvedSource): GPUBindGroup {
    if (this.group && this.group.key === source && this.group.masks === this.userMaskBuffer) {
      return this.group.group;
    }
    const n = KERNELS.deriveBoxes.bindings;
    const whole = (buffer: GPUBuffer): GPUBufferBinding => ({ buffer });
    const lb = source.localBoxes;
    const entries: GPUBindGroupEntry[] = [
      { binding: n.derive[0], resource: whole(this.params) },
      { binding: n.source[0], resource: { buffer: source.buffer, offset: source.base, size: Math.min(source.size, source.buffer.size - source.base) } },
      { binding: n.localBoxes[0], resource: lb ? { buffer: lb.buffer, offset: lb.base, size: Math.min(lb.size, lb.buffer.size - lb.base) } : whole(this.empty) },
      { binding: n.boxes[0], resource: whole(this.buffer) },
      { binding: n.boxFlags[0], resource: whole(this.flags) },
      { binding: n.deriveStatus[0], resource: whole(this.status) },
      { binding: n.userMasks[0], resource: whole(this.userMaskBuffer ?? this.empty) },
      { binding: n.masks[0], resource: whole(this.maskBuffer) },
    ];
    const group = this.ctx.device.createBindGroup({ label: `${this.ctx.label}:${this.label}:derive`, layout: kernel.layout, entries });
    this.group = { key: source, masks: this.userMaskBuffer, group };
    return group;
  }

  /**
   * Records the derivation (and the tree's upkeep) into `encoder` and applies the pending source
   * and origin: the set's count, origin and version are the refresh's from here on.
   */
  private async record(
    encoder: GPUCommandEncoder, op: string, tree: RefreshTree, timestampWrites?: GPUComputePassTimestampWrites, treeTimestampWrites?: GPUComputePassTimestampWrites,
  ): Promise<RefreshResult> {
    const source = this.pending;
    // One pipeline per layout (override LAYOUT): each compiles only its own reading.
    const kernel = await getKernel(this.ctx.device, 'deriveBoxes', WORKGROUP_SIZE, { LAYOUT: LAYOUT_CODE[source.layout] });
    this.assertUsable(op);
    const origin = this.pendingOrigin;
    const shape = !this.applied || source.count !== this.applied.count || origin !== this.appliedOrigin;
    this.writeParams(source, origin);
    encoder.clearBuffer(this.status);
    if (source.count > 0) {
      const pass = encoder.beginComputePass(timestampWrites
        ? { label: `${this.ctx.label}:${this.label}:derive`, timestampWrites }
        : { label: `${this.ctx.label}:${this.label}:derive` });
      pass.setPipeline(kernel.pipeline);
      pass.setBindGroup(0, this.bindGroupOf(kernel, source));
      const [x, y] = dispatchGrid(source.count, kernel.workgroupSize);
      pass.dispatchWorkgroups(x, y);
      pass.end();
    }
    this.applied = source;
    this.appliedOrigin = origin;
    this.changed(shape);
    const work = this.treeRefresh && source.count >= 2 ? await this.treeRefresh(encoder, tree, op, treeTimestampWrites) : 'none';
    return { count: source.count, tree: work };
  }

  /**
   * Replaces masks `[first, first + masks.length)` (indices up to the capacity; boxes beyond the
   * current count keep theirs for when they come). The effective masks are recomputed on the GPU
   * at once (0 for flagged boxes), in order with the set's other calls.
   */
  override async setMasks(masks: Uint32Array, first = 0): Promise<void> {
    const op = 'BoxSet.setMasks';
    this.assertUsable(op);
    if (!(masks instanceof Uint32Array)) {
      throw new ValidationError('argument', undefined, 'masks', 'must be a Uint32Array');
    }
    if (!Number.isInteger(first) || first < 0 || first + masks.length > this.boxCapacity) {
      throw new ValidationError('argument', undefined, 'masks', `[${first}, ${first + masks.length}) are outside the set's capacity (0..${this.boxCapacity})`);
    }
    const copy = masks.slice();
    await this.ctx.sequence(op, () => this.applyMasks(op, (all) => all.set(copy, first)));
  }

  /** Replaces the masks of the boxes at `indices` (below the capacity, none twice), as setMasks. */
  override async setMasksAt(indices: Uint32Array | readonly number[], masks: Uint32Array): Promise<void> {
    const op = 'BoxSet.setMasksAt';
    this.assertUsable(op);
    if (!(masks instanceof Uint32Array)) {
      throw new ValidationError('argument', undefined, 'masks', 'must be a Uint32Array');
    }
    if ((!(indices instanceof Uint32Array) && !Array.isArray(indices)) || indices.length !== masks.length) {
      throw new ValidationError('argument', undefined, 'indices', `must list one box index per mask (${masks.length})`);
    }
    const seen = new Set<number>();
    const list = Array.from(indices as ArrayLike<number>, (i, k) => {
      if (typeof i !== 'number' || !Number.isInteger(i) || i < 0 || i >= this.boxCapacity || seen.has(i)) {
        throw new ValidationError('argument', undefined, `indices[${k}]`, `= ${String(i)} is not a box index below the capacity ${this.boxCapacity} (or appears twice)`);
      }
      seen.add(i);
      return i;
    });
    const copy = masks.slice();
    await this.ctx.sequence(op, () => this.applyMasks(op, (all) => list.forEach((i, k) => {
      all[i] = copy[k]!;
    })));
  }

  /** Applies a change of the caller's masks: host copy, upload, and the effective masks again. */
  private async applyMasks(op: string, change: (all: Uint32Array) => void): Promise<void> {
    this.assertUsable(op);
    const kernel = await getKernel(this.ctx.device, 'applyBoxMasks', WORKGROUP_SIZE);
    this.assertUsable(op);
    const all = this.userMasks ? this.userMasks.slice() : new Uint32Array(this.boxCapacity).fill(0xffffffff);
    change(all);
    if (!this.userMaskBuffer) {
      this.userMaskBuffer = this.ctx.createBuffer({ label: `${this.ctx.label}:${this.label}:user-masks`, size: Math.max(16, this.boxCapacity * 4), usage: OWN });
    }
    const device = this.ctx.device;
    device.queue.writeBuffer(this.userMaskBuffer, 0, all);
    this.userMasks = all;
    const applied = this.applied;
    if (!applied || applied.count === 0) {
      return;
    }
    this.writeParams(applied, this.appliedOrigin);
    const n = KERNELS.applyBoxMasks.bindings;
    await this.ctx.scoped(op, () => {
      const enc = device.createCommandEncoder({ label: `${this.ctx.label}:${this.label}:masks` });
      const pass = enc.beginComputePass({ label: `${this.ctx.label}:${this.label}:apply-masks` });
      pass.setPipeline(kernel.pipeline);
      pass.setBindGroup(0, device.createBindGroup({
        label: `${this.ctx.label}:${this.label}:apply-masks`, layout: kernel.layout, entries: [
          { binding: n.derive[0], resource: { buffer: this.params } },
          { binding: n.boxFlags[0], resource: { buffer: this.flags } },
          { binding: n.userMasks[0], resource: { buffer: this.userMaskBuffer ?? this.empty } },
          { binding: n.masks[0], resource: { buffer: this.maskBuffer } },
        ],
      }));
      const [x, y] = dispatchGrid(applied.count, kernel.workgroupSize);
      pass.dispatchWorkgroups(x, y);
      pass.end();
      device.queue.submit([enc.finish()]);
    });
  }

  /**
   * The last refresh's counts, read back (36 bytes): how many boxes were flagged, and how many per
   * reason. For the indices and the float64 reasons, readBack.
   *
   * @example
   * declare const sourced: GpuSourcedBoxSet;
   * const { flagged, byFlag } = await sourced.readStatus(); // e.g. 3, { shear: 2, 'zero-scale': 1, … }
   */
  async readStatus(): Promise<DeriveStatus> {
    const op = 'GpuSourcedBoxSet.readStatus';
    this.assertUsable(op);
    const words = await this.ctx.sequence(op, async () => {
      this.assertUsable(op);
      return new Uint32Array(await this.ctx.readback(this.status, STATUS_WORDS * 4, 0, op));
    });
    return statusOf(words);
  }

  /**
   * The proof on demand: in one submission (after a refresh, with `refresh: true`), the source as
   * the last refresh read it (records, per-instance local boxes) and what the GPU derived (records,
   * flags, counts, effective masks) are copied to one staging buffer and mapped once; then the
   * source is derived again in float64 (deriveBoxes, the kernel's twin), with every bad box named.
   * Judge `gpu` against `reference` with compareDerivedBoxes, and queries against the reference on
   * `gpu.boxes`. The source must have COPY_SRC. Read it when the source has not changed since the
   * last refresh (between frames whose refresh follows the animation), or pass `refresh: true`.
   * Also keeps the reference as the set's `boxes`.
   *
   * @example
   * declare const sourced: GpuSourcedBoxSet;
   * const back = await sourced.readBack();
   * console.log(back.bad.map((b) => `${b.index}: ${b.reasons.join(', ')}`)); // e.g. ['17: shear']
   * console.log(formatComparison(compareDerivedBoxes(back.input, back.gpu)));
   */
  async readBack(options: { readonly refresh?: boolean } = {}): Promise<GpuSourcedReadBack> {
    const op = 'GpuSourcedBoxSet.readBack';
    this.assertUsable(op);
    if (options.refresh !== undefined && typeof options.refresh !== 'boolean') {
      throw new ValidationError('argument', undefined, 'options.refresh', `must be true or false (got ${describeValue(options.refresh)})`);
    }
    const read = await this.ctx.sequence(op, async () => {
      this.assertUsable(op);
      const epoch = this.ctx.epoch;
      let encoder: GPUCommandEncoder | undefined;
      if (options.refresh) {
        encoder = this.ctx.device.createCommandEncoder({ label: `${this.ctx.label}:${this.label}:read-back` });
        await this.record(encoder, op, 'auto');
      }
      const s = this.applied;
      const n = s?.count ?? 0;
      for (const [field, buffer] of [['source.buffer', s?.buffer], ['source.localBoxes.buffer', s?.localBoxes?.buffer]] as const) {
        if (buffer && (buffer.usage & BufferUsage.COPY_SRC) === 0) {
          throw new ValidationError('argument', undefined, field, `needs GPUBufferUsage.COPY_SRC to be read back (its usage is ${usageNames(buffer.usage)})`);
        }
      }
      const sourceBytes = s && n > 0 ? (n - 1) * s.stride + s.record : 0;
      const lb = s?.localBoxes;
      const lbBytes = lb && n > 0 ? (n - 1) * lb.stride + 4 * LOCAL_BOX_WORDS : 0;
      const parts = [
        { source: s?.buffer ?? this.empty, offset: s?.offset ?? 0, size: sourceBytes },
        { source: lb?.buffer ?? this.empty, offset: lb?.offset ?? 0, size: lbBytes },
        { source: this.buffer, size: n * OBB.SIZE },
        { source: this.flags, size: n * 4 },
        { source: this.status, size: STATUS_WORDS * 4 },
        { source: this.maskBuffer, size: n * 4 },
      ];
      const bytes = await this.ctx.readbackParts(parts, op, epoch, encoder);
      return { bytes, source: s, n, origin: this.appliedOrigin, masks: this.userMasks?.slice(0, n) };
    });
    const { bytes, source: s, n, origin } = read;
    const [src, lbBytes, records, flags, status, masks] = bytes as [ArrayBuffer, ArrayBuffer, ArrayBuffer, ArrayBuffer, ArrayBuffer, ArrayBuffer];
    const layout = s?.layout ?? 'obb';
    const input: DeriveInput = {
      layout, words: new Uint32Array(src), stride: (s?.stride ?? 4 * DERIVE_RECORD_WORDS[layout]) / 4, count: n, origin,
      ...(s?.localBox ? { localBox: s.localBox } : {}),
      ...(s?.localBoxes ? { localBoxes: { words: new Uint32Array(lbBytes), stride: s.localBoxes.stride / 4 } } : {}),
      ...(read.masks ? { masks: read.masks } : {}),
    };
    const reference = deriveBoxes(input);
    const recordFloats = new Float32Array(records);
    const gpu = {
      records: recordFloats, flags: new Uint32Array(flags), status: new Uint32Array(status), masks: new Uint32Array(masks),
      boxes: boxesOfRecords(recordFloats, n, origin),
    };
    if (n === this.count) {
      this.lastReadBack = reference;
    }
    return { count: n, origin, input, reference, bad: reference.bad, gpu };
  }

  /** Frees the set's buffers (not the caller's source) and whatever its owner kept for it (idempotent). */
  override destroy(): void {
    if (this.isDestroyed) {
      return;
    }
    super.destroy();
    for (const b of [this.params, this.flags, this.status, this.empty, this.userMaskBuffer]) {
      this.ctx.destroyBuffer(b);
    }
    this.group = undefined;
    this.lastReadBack = undefined;
    this.inertHost = undefined;
  }
}

/** The status words as counts by flag name. */
function statusOf(words: Uint32Array): DeriveStatus {
  const byFlag = Object.fromEntries(BOX_FLAG_NAMES.map((name, b) => [name, words[1 + b] ?? 0])) as Record<BoxFlagName, number>;
  return { flagged: words[0] ?? 0, byFlag };
}

/** Records (struct Obb, relative to `origin`) as boxes in world coordinates: centre + origin in float64, u and v as stored, w = u × v. */
function boxesOfRecords(r: Float32Array, n: number, origin: Vec3): BoxArray {
  const data = new Float64Array(n * BOX_F64.STRIDE);
  for (let i = 0; i < n; i++) {
    const a = 12 * i;
    const ux = r[a + 4]!, uy = r[a + 5]!, uz = r[a + 6]!, vx = r[a + 8]!, vy = r[a + 9]!, vz = r[a + 10]!;
    data.set([
      r[a]! + origin[0], r[a + 1]! + origin[1], r[a + 2]! + origin[2], r[a + 3]!, r[a + 7]!, r[a + 11]!,
      ux, uy, uz, vx, vy, vz, uy * vz - uz * vy, uz * vx - ux * vz, ux * vy - uy * vx,
    ], i * BOX_F64.STRIDE);
  }
  return { count: n, data };
}
