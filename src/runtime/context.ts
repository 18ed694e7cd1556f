/**
 * Device acquisition and the one place where device loss is handled.
 *
 * A {@link GpuContext} owns (or borrows) a GPUDevice, tracks every buffer it creates so that
 * `destroy()` frees them all, turns error-scope results into thrown {@link GpuError}s named by
 * operation, and turns a lost device into {@link DeviceLostError} for in-flight and later work.
 * `recover()` gives it a fresh device and lets every registered resource (box sets, the buffer
 * pool) rebuild itself there from its host copy; objects keep their identity, so references the
 * caller holds stay valid.
 *
 * The rule for work in flight at a loss (docs/guarantees.md, "Device loss"): an operation
 * completes only on a live device, and only then changes what the host keeps (a set's float64
 * boxes, versions, masks, origin; a tree's bookkeeping); one the loss overtakes rejects with
 * DeviceLostError and changes nothing. A loss is known here as soon as it can be known: at once
 * after `device.destroy()` (see `lossOf`: `device.lost` resolves later, after a round trip to the
 * GPU process in Chromium, and a destroyed device's queue and error scopes still answer as if the
 * work had run), when `device.lost` resolves, or when a readback's `mapAsync` fails. Every check
 * goes through `assertAlive` (each sequenced step at its turn), `scoped` (after the submission's
 * error scopes come back) and the readbacks; a step applies its host changes in the same
 * synchronous run as its last check.
 */
import { BufferUsage, MapMode } from './flags.ts';
import { CapacityError, DeviceLostError, GpuError, ValidationError, WebGpuUnavailableError, asSeenBy } from '../errors.ts';

/** What the adapter says about itself (copied: GPUAdapterInfo's fields are prototype getters). */
export interface AdapterSummary {
  readonly vendor: string;
  readonly architecture: string;
  readonly device: string;
  readonly description: string;
  /** True for a software or fallback adapter (SwiftShader). */
  readonly isFallbackAdapter: boolean;
  /** One line for reports: "Google SwiftShader (fallback)". */
  readonly name: string;
}

/** Options of `GpuContext.create` (webgpu-obb/advanced); ObbGpuOptions extends them. */
export interface GpuContextOptions {
  /** Use this device instead of requesting one (the caller keeps ownership). */
  readonly device?: GPUDevice;
  /** The GPU entry point (defaults to `navigator.gpu`; the Node runtime passes Dawn's). */
  readonly gpu?: GPU;
  /** Adapter request options (power preference, fallback). */
  readonly adapterOptions?: GPURequestAdapterOptions;
  /** Label prefix of every GPU object this context creates. */
  readonly label?: string;
  /**
   * Limits this context enforces *below* the device's own (never above): a set, ray batch or
   * output list that would exceed them is refused with a {@link CapacityError} before anything
   * is allocated. For embedding (keep this library within a budget on a device shared with a
   * renderer) and for testing the capacity paths without allocating hundreds of megabytes
   * (WebGPU raises a requested limit that is below the default back to the default, so a
   * device with small limits cannot be requested).
   */
  readonly limits?: GpuLimitOverrides;
  /**
   * When the device is lost (driver reset, GPU process crash; not this context's `destroy()`),
   * start {@link GpuContext.recover} at once: work in flight still fails with DeviceLostError,
   * work issued afterwards waits for the new device. Only for a device this context requested:
   * a caller's own device cannot be re-created here. Default false.
   */
  readonly autoRecover?: boolean;
}

/** Limits a context can lower (see {@link GpuContextOptions.limits}). */
export interface GpuLimitOverrides {
  readonly maxStorageBufferBindingSize?: number;
  readonly maxBufferSize?: number;
}

/** The limits a context enforces: the device's, lowered by {@link GpuContextOptions.limits}. */
export interface GpuContextLimits {
  readonly maxStorageBufferBindingSize: number;
  readonly maxBufferSize: number;
}

/** A device's loss, once it came, and who is waiting for it (GpuContext.whileAlive). */
interface DeviceWatchers {
  info: GPUDeviceLostInfo | undefined;
  readonly listeners: Set<(info: GPUDeviceLostInfo) => void>;
  /**
   * A 4-byte buffer mapped at creation and never unmapped: `device.destroy()` unmaps every
   * buffer of the device at once, on the content timeline (WebGPU, GPUDevice.destroy()), so its
   * `mapState` turning 'unmapped' says the device was destroyed before `device.lost` resolves.
   * Undefined where the implementation has no `mapState` or refused the buffer.
   */
  readonly sentinel: GPUBuffer | undefined;
}

/** Why a device is gone: device.lost's info, or what `lossOf` knows before it arrives. */
type LossInfo = Pick<GPUDeviceLostInfo, 'reason' | 'message'>;

/** A device seen destroyed (its sentinel unmapped) whose `device.lost` has not resolved yet. */
const DESTROYED: LossInfo = { reason: 'destroyed', message: '' };

/** Something that lives on the device and can rebuild itself on a new one (see `onRecover`). */
export type RecoverHook = () => void;

function checkLimitOverrides(limits: GpuLimitOverrides | undefined): void {
  for (const [name, value] of Object.entries(limits ?? {})) {
    if (name !== 'maxStorageBufferBindingSize' && name !== 'maxBufferSize') {
      throw new ValidationError('argument', undefined, `limits.${name}`, 'is not a limit this context can lower (maxStorageBufferBindingSize, maxBufferSize)');
    }
    if (!(Number.isInteger(value) && (value as number) >= 4)) {
      throw new ValidationError('argument', undefined, `limits.${name}`, `must be an integer ≥ 4 (got ${String(value)})`);
    }
  }
}

/** Requests an adapter and a device with the adapter's largest storage-buffer limits. */
async function requestDevice(options: GpuContextOptions, label: string): Promise<{ device: GPUDevice; adapter: AdapterSummary }> {
  const gpu = options.gpu ?? (typeof navigator !== 'undefined' ? navigator.gpu : undefined);
  if (!gpu) {
    throw new WebGpuUnavailableError('no-webgpu',
      'WebGPU is not available here (no navigator.gpu). Use a browser with WebGPU ' +
        '(Chrome/Edge 113+, or Chromium with --enable-unsafe-webgpu) on a secure page (https or localhost), or the Node runtime (webgpu-obb/node).');
  }
  let adapter: GPUAdapter | null;
  try {
    adapter = await gpu.requestAdapter(options.adapterOptions);
  } catch (error) {
    throw new WebGpuUnavailableError('device-request-failed', `requestAdapter failed (${oneLine(error)}). ${INSTANCE_HINT}`, { cause: error });
  }
  if (!adapter) {
    throw new WebGpuUnavailableError('no-adapter',
      'WebGPU found no adapter (requestAdapter returned null): no usable GPU or driver. In headless Chromium, ' +
        'pass --enable-unsafe-webgpu --use-webgpu-adapter=swiftshader to get the CPU adapter, and, when the page also ' +
        'renders with WebGPU, --enable-features=Vulkan --use-angle=swiftshader --use-vulkan=swiftshader.');
  }
  const limits = adapter.limits;
  const requiredFeatures: GPUFeatureName[] = [];
  if (adapter.features.has('timestamp-query')) {
    requiredFeatures.push('timestamp-query');
  }
  // Subgroups let a CPU adapter's tree walk test boxes only when a lane needs it
  // (RayKernelTuning.subgroupWalk); asking costs nothing where the adapter has them.
  if (adapter.features.has('subgroups')) {
    requiredFeatures.push('subgroups' as GPUFeatureName);
  }
  let device: GPUDevice;
  try {
    device = await adapter.requestDevice({
      label: `${label}:device-${++devicesRequested}`,
      requiredFeatures,
      requiredLimits: {
        maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize,
        maxBufferSize: limits.maxBufferSize,
        maxStorageBuffersPerShaderStage: Math.min(limits.maxStorageBuffersPerShaderStage, 10),
      },
    });
  } catch (error) {
    throw new WebGpuUnavailableError('device-request-failed', `requestDevice failed (${oneLine(error)}). ${INSTANCE_HINT}`, { cause: error });
  }
  const legacyFallback = (adapter as { isFallbackAdapter?: boolean }).isFallbackAdapter === true;
  return { device, adapter: summarizeAdapter(adapter.info, legacyFallback) };
}

/**
 * What to do when the WebGPU instance itself fails. Headless Chromium with a WebGPU canvas on the
 * same page needs its Vulkan flags; without them the instance can be dropped
 * (docs/design.md, "Tooling facts").
 */
export const INSTANCE_HINT =
  'If this is headless Chromium and the page also renders with WebGPU, start it with ' +
  '--enable-features=Vulkan --use-angle=swiftshader --use-vulkan=swiftshader besides --enable-unsafe-webgpu; ' +
  'otherwise check that the GPU driver works (chrome://gpu).';

/** The first line of an error's message. */
export function oneLine(error: unknown): string {
  const text = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  return text.split('\n')[0]?.trim() ?? '';
}

/** Devices requested by this module: each gets its own label, so a driver message naming one is unambiguous. */
let devicesRequested = 0;

/** How long a failed GPU call waits for `device.lost` to say whether the device was the cause. */
const LOSS_SETTLE_MS = 1000;

export function summarizeAdapter(info: GPUAdapterInfo | undefined, isFallback: boolean): AdapterSummary {
  const vendor = info?.vendor ?? '';
  const architecture = info?.architecture ?? '';
  const device = info?.device ?? '';
  const description = info?.description ?? '';
  const fallback = isFallback || (info as { isFallbackAdapter?: boolean } | undefined)?.isFallbackAdapter === true;
  const words = [vendor, architecture, device, description].filter((w, i, all) => w && all.indexOf(w) === i);
  const name = `${words.join(' ') || 'unknown adapter'}${fallback ? ' (fallback)' : ''}`;
  return { vendor, architecture, device, description, isFallbackAdapter: fallback, name };
}

/**
 * A WebGPU device with the bookkeeping every query needs.
 *
 * @example
 * const ctx = await GpuContext.create();
 * console.log(ctx.adapter.name); // "google swiftshader … (fallback)"
 * ctx.destroy();
 */
export class GpuContext {
  readonly label: string;
  private current: GPUDevice;
  private adapterSummary: AdapterSummary;
  private currentLost: Promise<GPUDeviceLostInfo>;
  private lostInfo: GPUDeviceLostInfo | undefined;
  private destroyed = false;
  private ownsDevice: boolean;
  private readonly options: GpuContextOptions;
  private readonly buffers = new Set<GPUBuffer>();
  /**
   * Mappable staging buffers kept for the next readback, by size (a power of two): creating
   * one per readback cost about half of a 1 MB readback in Chromium. At most STAGING_KEEP per
   * size and STAGING_BUDGET bytes in all; none kept across a recovery.
   */
  private readonly staging = new Map<number, GPUBuffer[]>();
  private stagingBytes = 0;
  /** Host memory for packing uploads (uploadScratch). */
  private scratch: Float32Array<ArrayBuffer> | undefined;
  private readonly hooks = new Set<RecoverHook>();
  /** Per device: its loss, once it came, and the work waiting on it (whileAlive). */
  private readonly watchers = new WeakMap<GPUDevice, DeviceWatchers>();
  private order: Promise<unknown> = Promise.resolve();
  /** Replaced (synchronously) by every `recover()`: work issued before it cannot complete. */
  private currentEpoch: object = {};
  private recovering: Promise<void> | undefined;
  private recoveries = 0;

  private constructor(device: GPUDevice, adapter: AdapterSummary, ownsDevice: boolean, label: string, options: GpuContextOptions) {
    this.current = device;
    this.adapterSummary = adapter;
    this.ownsDevice = ownsDevice;
    this.label = label;
    this.options = options;
    this.currentLost = this.watch(device);
  }

  /** Follows `device.lost`: records the loss if `device` is still the current device. */
  private watch(device: GPUDevice): Promise<GPUDeviceLostInfo> {
    const watchers: DeviceWatchers = { info: undefined, listeners: new Set(), sentinel: lossSentinel(device, this.label) };
    this.watchers.set(device, watchers);
    return device.lost.then((info) => {
      watchers.info = info;
      for (const listener of watchers.listeners) {
        listener(info);
      }
      watchers.listeners.clear();
      if (device === this.current && !this.recovering) {
        this.lostInfo = info;
        if (this.options.autoRecover && this.ownsDevice && !this.destroyed) {
          // Errors surface to whoever waits on the work queued behind the recovery.
          this.recover().catch(() => undefined);
        }
      }
      return info;
    });
  }

  /**
   * Requests an adapter and a device with the adapter's largest storage-buffer limits (so large
   * box sets fit one binding), or wraps `options.device`.
   *
   * @example
   * const ctx = await GpuContext.create({ adapterOptions: { powerPreference: 'high-performance' } });
   */
  static async create(options: GpuContextOptions = {}): Promise<GpuContext> {
    const label = options.label ?? 'obb';
    checkLimitOverrides(options.limits);
    if (options.device) {
      const info = (options.device as { adapterInfo?: GPUAdapterInfo }).adapterInfo;
      return new GpuContext(options.device, summarizeAdapter(info, false), false, label, options);
    }
    const { device, adapter } = await requestDevice(options, label);
    return new GpuContext(device, adapter, true, label, options);
  }

  /** The current device (a new one after each {@link recover}). */
  get device(): GPUDevice {
    return this.current;
  }

  /** What the adapter of the current device says about itself. */
  get adapter(): AdapterSummary {
    return this.adapterSummary;
  }

  /** Resolves when the current device is lost (never rejects). */
  get lost(): Promise<GPUDeviceLostInfo> {
    return this.currentLost;
  }

  /**
   * An opaque token of the current device: it changes with every {@link recover}. A query takes
   * it when issued and hands it to {@link readback} and {@link sequence}, so work begun on a
   * device that has since been replaced fails with DeviceLostError rather than touch the new one.
   */
  get epoch(): object {
    return this.currentEpoch;
  }

  /** How many times {@link recover} replaced the device. */
  get recoveryCount(): number {
    return this.recoveries;
  }

  /** The limits this context enforces (the device's, lowered by `options.limits`). */
  get limits(): GpuContextLimits {
    const device = this.current.limits;
    const lower = this.options.limits ?? {};
    return {
      maxStorageBufferBindingSize: Math.min(device.maxStorageBufferBindingSize, lower.maxStorageBufferBindingSize ?? Infinity),
      maxBufferSize: Math.min(device.maxBufferSize, lower.maxBufferSize ?? Infinity),
    };
  }

  /**
   * Whether the device has been lost or destroyed (even before `device.lost` resolves), or this
   * context destroyed; false while recovering.
   */
  get isLost(): boolean {
    return this.destroyed || (!this.recovering && (this.lostInfo ?? this.lossOf(this.current)) !== undefined);
  }

  /**
   * What is known of `device`'s loss now: `device.lost`'s info once it resolved; before that,
   * DESTROYED if `device.destroy()` was called (its sentinel was unmapped); else undefined.
   */
  private lossOf(device: GPUDevice): LossInfo | undefined {
    const watchers = this.watchers.get(device);
    if (watchers?.info) {
      return watchers.info;
    }
    return watchers?.sentinel?.mapState === 'unmapped' ? DESTROYED : undefined;
  }

  /**
   * Throws DeviceLostError if the device is gone, including a device destroyed in this very turn
   * (whose `device.lost` has not resolved yet). Every operation calls this first, and every step
   * that changes host state calls it (through `assertUsable`) in the same synchronous run as the
   * change. While a recovery runs this passes: sequenced work waits for the new device.
   */
  assertAlive(operation: string): void {
    if (this.destroyed) {
      throw new DeviceLostError(operation, 'destroyed', 'the GPU context was destroyed');
    }
    if (this.recovering) {
      return;
    }
    const info = this.lostInfo ?? this.lossOf(this.current);
    if (info) {
      throw lostError(operation, info);
    }
  }

  /**
   * {@link assertAlive} and {@link assertEpoch}: a step resumed after an await calls this before
   * it changes anything, then changes it in the same synchronous run.
   *
   * @example
   * await ctx.sequence('myUpdate', async () => {
   *   const epoch = ctx.epoch;
   *   await ctx.device.queue.onSubmittedWorkDone();
   *   ctx.assertCurrent('myUpdate', epoch); // DeviceLostError if the device went meanwhile
   *   // … write the GPU buffers and apply the host change here, before any other await
   * });
   */
  assertCurrent(operation: string, epoch: object): void {
    this.assertAlive(operation);
    this.assertEpoch(operation, epoch);
  }

  /** Throws DeviceLostError if `epoch` is not the current device's (see {@link GpuContext.epoch}). */
  assertEpoch(operation: string, epoch: object): void {
    if (epoch !== this.currentEpoch) {
      throw new DeviceLostError(operation, 'replaced', 'issued on a GPU device that has since been lost and replaced; issue it again');
    }
  }

  /**
   * Maps a failure of GPU work to DeviceLostError when the device was lost (or replaced) under
   * it, and rethrows it unchanged otherwise. A lost device rejects pending `mapAsync` calls
   * before `device.lost` resolves, so for such GPU-side failures (`settle`) this waits briefly
   * for the verdict, unless the device is already known destroyed (`lossOf`); host-side errors
   * (validation, capacity) pass straight through.
   */
  private async failure(operation: string, error: unknown, epoch: object, device: GPUDevice, settle: boolean): Promise<never> {
    if (error instanceof DeviceLostError) {
      throw asSeenBy(operation, error);
    }
    if (epoch !== this.currentEpoch) {
      this.assertEpoch(operation, epoch);
    }
    if (settle && !this.destroyed && !this.lostInfo && !this.lossOf(device) && device === this.current) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([device.lost, new Promise((resolve) => { timer = setTimeout(resolve, LOSS_SETTLE_MS); })]);
      clearTimeout(timer);
    }
    if (epoch !== this.currentEpoch) {
      this.assertEpoch(operation, epoch);
    }
    const info = this.lostInfo ?? this.lossOf(device);
    if (this.destroyed || info) {
      this.assertAlive(operation);
      if (info) {
        throw lostError(operation, info);
      }
    }
    throw asSeenBy(operation, error);
  }

  /** Creates a tracked buffer; `destroy()` of this context frees it if its owner did not. */
  createBuffer(descriptor: GPUBufferDescriptor): GPUBuffer {
    this.assertAlive(`create buffer ${descriptor.label ?? ''}`);
    const maxSize = this.limits.maxBufferSize;
    if (descriptor.size > maxSize) {
      throw new CapacityError(
        `${descriptor.label ?? 'buffer'}: ${descriptor.size} bytes exceed maxBufferSize ` +
          `(${maxSize} bytes${this.lowered('maxBufferSize')}); split the data into several smaller sets or batches, ` +
          'or use an adapter with larger limits',
        'maxBufferSize', descriptor.size, maxSize,
      );
    }
    const buffer = this.device.createBuffer(descriptor);
    this.buffers.add(buffer);
    return buffer;
  }

  /** Destroys a buffer created by {@link createBuffer} (idempotent). */
  destroyBuffer(buffer: GPUBuffer | undefined): void {
    if (buffer && this.buffers.delete(buffer)) {
      buffer.destroy();
    }
  }

  /** Number of live buffers this context created (for leak tests). */
  get liveBuffers(): number {
    return this.buffers.size;
  }

  /** ", lowered by this context's options" when the option, not the device, sets the limit. */
  private lowered(name: keyof GpuLimitOverrides): string {
    const lower = this.options.limits?.[name];
    return lower !== undefined && lower < this.current.limits[name] ? `, lowered from the device's ${this.current.limits[name]} by this context's limits option` : '';
  }

  /**
   * Checks that a storage binding of `size` bytes fits the device: within
   * maxStorageBufferBindingSize and maxBufferSize (a binding is a buffer), whichever is smaller.
   * Throws a CapacityError naming the limit, `what` and the real bytes asked for; `items`
   * (e.g. "4000 boxes × 48 bytes") says where the bytes come from. Call it before reading or
   * copying the input it sizes.
   */
  assertBindingFits(what: string, size: number, items?: string): void {
    const { maxStorageBufferBindingSize: binding, maxBufferSize: buffer } = this.limits;
    const name: keyof GpuLimitOverrides = buffer < binding ? 'maxBufferSize' : 'maxStorageBufferBindingSize';
    const limit = Math.min(binding, buffer);
    if (size > limit) {
      throw new CapacityError(
        `${what}: ${items ? `${items} = ` : ''}${size} bytes exceed ${name} (${limit} bytes` +
          `${this.lowered(name)}); split the data into smaller sets or batches, or use an adapter with larger limits`,
        name, size, limit,
      );
    }
  }

  /**
   * Runs `encode` inside validation and out-of-memory error scopes and throws a GpuError named
   * after `operation` if either catches something. `encode` must not await (error scopes are a
   * per-device stack; pushing and popping in one synchronous run keeps concurrent queries apart).
   */
  async scoped<T>(operation: string, encode: () => T, epoch: object = this.currentEpoch): Promise<T> {
    this.assertAlive(operation);
    this.assertEpoch(operation, epoch);
    const device = this.device;
    device.pushErrorScope('out-of-memory');
    device.pushErrorScope('validation');
    let result: T | undefined;
    let failure: unknown;
    try {
      result = encode();
    } catch (error) {
      failure = error;
    }
    const validation = device.popErrorScope();
    const oom = device.popErrorScope();
    let v: GPUError | null;
    let o: GPUError | null;
    try {
      [v, o] = await Promise.all([validation, oom]);
    } catch (error) {
      return this.failure(operation, error, epoch, device, true);
    }
    if (failure !== undefined) {
      throw failure;
    }
    // A device destroyed (or replaced) meanwhile still answers its error scopes, with null: the
    // work did not run, so the operation has not completed and must not go on as if it had.
    if (this.destroyed || epoch !== this.currentEpoch || this.lossOf(device)) {
      this.assertCurrent(operation, epoch);
      throw lostError(operation, this.lossOf(device) ?? DESTROYED);
    }
    if ((v || o) && (epoch !== this.currentEpoch || this.isLost)) {
      // Buffers of a replaced device used on the new one: the loss, not a bug, caused this.
      return this.failure(operation, new GpuError(operation, (v ?? o)?.message ?? '', v ? 'validation' : 'out-of-memory'), epoch, device, false);
    }
    if (v) {
      throw new GpuError(operation, v.message, 'validation');
    }
    if (o) {
      throw new GpuError(operation, o.message, 'out-of-memory');
    }
    return result as T;
  }

  /**
   * Copies `size` bytes of `source` (needs COPY_SRC) into a staging buffer and maps it:
   * staging → copy → mapAsync → copy out → unmap. Each call holds its own staging buffer (a
   * fresh one, or one a finished readback returned), so concurrent readbacks never share one.
   */
  async readback(source: GPUBuffer, size: number, offset = 0, operation = 'readback', epoch: object = this.currentEpoch): Promise<ArrayBuffer> {
    return (await this.readbackParts([{ source, size, offset }], operation, epoch))[0]!;
  }

  /**
   * Several readbacks through one staging buffer and one map: each part's bytes (its source
   * needs COPY_SRC) copied in order, returned as one ArrayBuffer per part. For results read
   * together (a sweep's range image, boxes and counters), one round trip instead of one each.
   * With `encoder` (the work that writes the parts, not yet finished), the copies are appended
   * to it and everything is submitted at once, under one error scope: one submission and one
   * wait instead of two each. `record` (the work itself, recorded into that encoder) runs inside
   * the same scope, first: one error-scope round trip for the whole query. The submission happens
   * before this call first awaits.
   */
  async readbackParts(
    parts: readonly { readonly source: GPUBuffer; readonly size: number; readonly offset?: number }[],
    operation = 'readback', epoch: object = this.currentEpoch, encoder?: GPUCommandEncoder,
    record?: (encoder: GPUCommandEncoder) => void,
  ): Promise<ArrayBuffer[]> {
    this.assertAlive(operation);
    this.assertEpoch(operation, epoch);
    const at: number[] = [];
    let total = 0;
    for (const p of parts) {
      at.push(total);
      total += alignTo(p.size, 4);
    }
    if (total === 0) {
      if (encoder || record) {
        await this.scoped(operation, () => {
          const enc = encoder ?? this.device.createCommandEncoder({ label: `${this.label}:${operation}` });
          record?.(enc);
          this.device.queue.submit([enc.finish()]);
        }, epoch);
      }
      return parts.map(() => new ArrayBuffer(0));
    }
    const staging = this.takeStaging(total);
    let reusable = false;
    try {
      await this.scoped(operation, () => {
        const enc = encoder ?? this.device.createCommandEncoder({ label: `${this.label}:${operation}` });
        record?.(enc);
        parts.forEach((p, k) => {
          if (p.size > 0) {
            enc.copyBufferToBuffer(p.source, p.offset ?? 0, staging, at[k]!, alignTo(p.size, 4));
          }
        });
        this.device.queue.submit([enc.finish()]);
      }, epoch);
      await this.whileAlive(operation, staging.mapAsync(MapMode.READ, 0, total), epoch);
      const mapped = staging.getMappedRange(0, total);
      const out = parts.map((p, k) => mapped.slice(at[k]!, at[k]! + p.size));
      staging.unmap();
      reusable = epoch === this.currentEpoch;
      return out;
    } finally {
      if (reusable) {
        this.returnStaging(staging);
      } else {
        this.destroyBuffer(staging);
      }
    }
  }

  /**
   * `length` floats of host memory to pack an upload into, for a `queue.writeBuffer` made before
   * the next call (which copies it at once): the same memory each time, up to 16M floats (64 MB),
   * so repeated uploads (a moving scene's `set` every frame) do not touch fresh pages.
   */
  uploadScratch(length: number): Float32Array<ArrayBuffer> {
    if (length > UPLOAD_SCRATCH_MAX) {
      return new Float32Array(length);
    }
    if (!this.scratch || this.scratch.length < length) {
      this.scratch = new Float32Array(length);
    }
    return this.scratch.subarray(0, length);
  }

  /** A staging buffer of at least `size` bytes for one readback (see `staging`). */
  private takeStaging(size: number): GPUBuffer {
    const kept = stagingSize(size);
    const reused = this.staging.get(kept)?.pop();
    if (reused) {
      this.stagingBytes -= kept;
      return reused;
    }
    const exact = kept > this.limits.maxBufferSize || kept > STAGING_BUDGET / 2;
    return this.createBuffer({ label: `${this.label}:staging`, size: exact ? size : kept, usage: BufferUsage.COPY_DST | BufferUsage.MAP_READ });
  }

  /** Keeps `buffer` (unmapped, from takeStaging) for a later readback, or frees it. */
  private returnStaging(buffer: GPUBuffer): void {
    const size = buffer.size;
    const list = this.staging.get(size) ?? [];
    if (size !== stagingSize(size) || list.length >= STAGING_KEEP || this.stagingBytes + size > STAGING_BUDGET || !this.buffers.has(buffer)) {
      this.destroyBuffer(buffer);
      return;
    }
    list.push(buffer);
    this.staging.set(size, list);
    this.stagingBytes += size;
  }

  /**
   * Frees the context's caches: the staging buffers kept for readbacks and the host memory kept
   * for packing uploads. Readbacks in flight keep theirs. Buffers that objects own stay.
   */
  trimCaches(): void {
    for (const list of this.staging.values()) {
      for (const buffer of list) {
        this.destroyBuffer(buffer);
      }
    }
    this.dropStaging();
    this.scratch = undefined;
  }

  private dropStaging(): void {
    this.staging.clear();
    this.stagingBytes = 0;
  }

  /**
   * Awaits `promise`, but rejects with DeviceLostError if the device is lost first, or if the
   * promise fails because the device was lost or replaced under it.
   */
  async whileAlive<T>(operation: string, promise: Promise<T>, epoch: object = this.currentEpoch): Promise<T> {
    const device = this.current;
    // A listener that is removed when `promise` settles: a reaction on `device.lost` (which
    // may never settle) would keep every awaited promise, and its value, alive for good.
    const watchers = this.watchers.get(device);
    let stop = (): void => undefined;
    const lost = new Promise<never>((_, reject) => {
      const known = this.lossOf(device);
      if (known) {
        reject(lostError(operation, known));
        return;
      }
      const listener = (info: GPUDeviceLostInfo): void => reject(lostError(operation, info));
      watchers?.listeners.add(listener);
      stop = () => {
        watchers?.listeners.delete(listener);
      };
    });
    lost.catch(() => undefined);
    try {
      return await Promise.race([promise, lost]);
    } catch (error) {
      return this.failure(operation, error, epoch, device, true);
    } finally {
      stop();
    }
  }

  /**
   * Runs `submit` once every earlier sequenced operation has submitted its work: uploads,
   * updates and dispatches reach the queue in the order they were called, so a query sees the
   * data as it was when the query was issued, whatever awaits happen inside each operation.
   */
  sequence<T>(operation: string, submit: () => T | Promise<T>): Promise<T> {
    const epoch = this.currentEpoch;
    const device = this.current;
    const run = this.order.then(async () => {
      this.assertAlive(operation);
      this.assertEpoch(operation, epoch);
      try {
        return await submit();
      } catch (error) {
        return this.failure(operation, error, epoch, device, false);
      }
    });
    // Only the turn, not its result: the chain must not keep the last query's data alive.
    this.order = run.then(() => undefined, () => undefined);
    return run;
  }

  /**
   * Runs a public operation: whatever `run` throws, synchronously or not, becomes a rejection,
   * and a DeviceLostError or StaleObjectError raised by an inner step is named after
   * `operation`, the call the user made (see asSeenBy).
   *
   * @example
   * // ObbGpu.closestHit: errors of the steps inside are named after the user's call
   * const hits = await ctx.named('closestHit', () => rq.closestHit(set, rays));
   */
  async named<T>(operation: string, run: () => T | Promise<T>): Promise<T> {
    try {
      return await run();
    } catch (error) {
      throw asSeenBy(operation, error);
    }
  }

  /**
   * Registers `hook` to run right after {@link recover} installed a new device (to re-create
   * buffers there and re-upload host data). Returns a function that unregisters it.
   *
   * @example
   * const hostCopy = new Float32Array(256);
   * const desc = { size: hostCopy.byteLength, usage: BufferUsage.STORAGE | BufferUsage.COPY_DST };
   * let buffer = ctx.createBuffer(desc);
   * const off = ctx.onRecover(() => { buffer = ctx.createBuffer(desc); ctx.device.queue.writeBuffer(buffer, 0, hostCopy); });
   * // … off() when the owner is destroyed
   */
  onRecover(hook: RecoverHook): () => void {
    this.hooks.add(hook);
    return () => {
      this.hooks.delete(hook);
    };
  }

  /**
   * Replaces the device, after a loss or on demand: requests a new adapter and device as
   * `create` did (or installs `device`, which a context wrapping a caller's device needs), then
   * runs every {@link onRecover} hook so that box sets and pools rebuild themselves from their
   * host copies. Work issued before the call fails with DeviceLostError (its device is gone);
   * work issued after it waits for the new device. A live device this context owns is destroyed
   * first. Resolves when the new device is ready; concurrent calls share one recovery.
   *
   * @example
   * gpu.ctx.lost.then(() => gpu.recover());
   */
  recover(options: { readonly device?: GPUDevice } = {}): Promise<void> {
    if (this.destroyed) {
      return Promise.reject(new DeviceLostError('recover', 'destroyed', 'the GPU context was destroyed; create a new one'));
    }
    if (this.recovering) {
      return this.recovering;
    }
    if (!options.device && !this.ownsDevice) {
      return Promise.reject(new Error(
        'recover: this context wraps a device it did not create; pass the replacement: recover({ device })',
      ));
    }
    const old = this.current;
    this.currentEpoch = {};
    if (this.ownsDevice && !this.lostInfo) {
      old.destroy();
    }
    const recovery = (async () => {
      try {
        const next = options.device
          ? { device: options.device, adapter: summarizeAdapter((options.device as { adapterInfo?: GPUAdapterInfo }).adapterInfo, false) }
          : await requestDevice(this.options, this.label);
        if (this.destroyed) {
          if (!options.device) {
            next.device.destroy();
          }
          throw new DeviceLostError('recover', 'destroyed', 'the GPU context was destroyed during recovery');
        }
        // The old device's buffers are gone with it (destroying them there is harmless).
        for (const buffer of this.buffers) {
          buffer.destroy();
        }
        this.watchers.get(old)?.sentinel?.destroy();
        this.buffers.clear();
        this.dropStaging();
        this.current = next.device;
        this.adapterSummary = next.adapter;
        this.ownsDevice = !options.device;
        this.lostInfo = undefined;
        this.currentLost = this.watch(next.device);
        this.recoveries++;
        for (const hook of [...this.hooks]) {
          hook();
        }
      } finally {
        this.recovering = undefined;
      }
    })();
    this.recovering = recovery;
    // Work issued from now on runs once the new device is in place.
    this.order = Promise.all([this.order, recovery.catch(() => undefined)]);
    return recovery;
  }

  /** Frees every buffer this context created, and the device if the context requested it. */
  destroy(): void {
    if (this.destroyed) {
      return;
    }
    for (const buffer of this.buffers) {
      buffer.destroy();
    }
    this.buffers.clear();
    this.dropStaging();
    this.destroyed = true;
    if (this.ownsDevice) {
      this.device.destroy();
    }
    this.watchers.get(this.current)?.sentinel?.destroy();
  }
}

/** DeviceLostError for `operation` from the device's loss info (its message kept to one line). */
function lostError(operation: string, info: LossInfo): DeviceLostError {
  const message = info.message.split('\n')[0]?.trim() ?? '';
  return new DeviceLostError(operation, info.reason, `the GPU device was lost (${info.reason}${message ? `: ${message}` : ''})`);
}

/**
 * The sentinel of `device` (DeviceWatchers.sentinel): not one of the context's tracked buffers
 * (it is no cache and no result; `liveBuffers` does not count it), destroyed with the context
 * or when `recover()` replaces the device.
 */
function lossSentinel(device: GPUDevice, label: string): GPUBuffer | undefined {
  try {
    const buffer = device.createBuffer({ label: `${label}:loss-sentinel`, size: 4, usage: BufferUsage.MAP_READ | BufferUsage.COPY_DST, mappedAtCreation: true });
    return buffer.mapState === 'mapped' ? buffer : (buffer.destroy(), undefined);
  } catch {
    return undefined;
  }
}

/** Rounds `n` up to a multiple of `alignment`. */
export function alignTo(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}

/** Staging buffers kept per size, and in all (GpuContext.staging). */
const STAGING_KEEP = 2;
const STAGING_BUDGET = 64 * 1024 * 1024;

/** Floats of upload scratch a context keeps (GpuContext.uploadScratch). */
const UPLOAD_SCRATCH_MAX = 16 * 1024 * 1024;

/** The size a staging buffer for `bytes` is made with: the next power of two, at least 256. */
function stagingSize(bytes: number): number {
  return Math.max(256, 2 ** Math.ceil(Math.log2(bytes)));
}
