/**
 * Device acquisition and the one place where device loss is handled.
 *
 * A {@link GpuContext} owns (or borrows) a GPUDevice, tracks every buffer it creates so that
 * `destroy()` frees them all, turns error-scope results into thrown {@link GpuError}s named by
 * operation, and turns a lost device into {@link DeviceLostError} for in-flight and later work.
 */
import { BufferUsage, MapMode } from './flags.ts';
import { CapacityError, DeviceLostError, GpuError } from '../errors.ts';

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

/** Options of {@link GpuContext.create}. */
export interface GpuContextOptions {
  /** Use this device instead of requesting one (the caller keeps ownership). */
  readonly device?: GPUDevice;
  /** The GPU entry point (defaults to `navigator.gpu`; the Node runtime passes Dawn's). */
  readonly gpu?: GPU;
  /** Adapter request options (power preference, fallback). */
  readonly adapterOptions?: GPURequestAdapterOptions;
  /** Label prefix of every GPU object this context creates. */
  readonly label?: string;
}

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
  readonly device: GPUDevice;
  readonly adapter: AdapterSummary;
  readonly label: string;
  /** Resolves when the device is lost (never rejects). */
  readonly lost: Promise<GPUDeviceLostInfo>;
  private lostInfo: GPUDeviceLostInfo | undefined;
  private destroyed = false;
  private readonly ownsDevice: boolean;
  private readonly buffers = new Set<GPUBuffer>();
  private order: Promise<unknown> = Promise.resolve();

  private constructor(device: GPUDevice, adapter: AdapterSummary, ownsDevice: boolean, label: string) {
    this.device = device;
    this.adapter = adapter;
    this.ownsDevice = ownsDevice;
    this.label = label;
    this.lost = device.lost.then((info) => {
      this.lostInfo = info;
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
    if (options.device) {
      const info = (options.device as { adapterInfo?: GPUAdapterInfo }).adapterInfo;
      return new GpuContext(options.device, summarizeAdapter(info, false), false, label);
    }
    const gpu = options.gpu ?? (typeof navigator !== 'undefined' ? navigator.gpu : undefined);
    if (!gpu) {
      throw new Error(
        'WebGPU is not available here (no navigator.gpu). Use a browser with WebGPU ' +
          '(Chrome/Edge 113+, or Chromium with --enable-unsafe-webgpu), or the Node runtime.',
      );
    }
    const adapter = await gpu.requestAdapter(options.adapterOptions);
    if (!adapter) {
      throw new Error('WebGPU found no adapter (requestAdapter returned null): no usable GPU or driver.');
    }
    const limits = adapter.limits;
    const requiredFeatures: GPUFeatureName[] = [];
    if (adapter.features.has('timestamp-query')) {
      requiredFeatures.push('timestamp-query');
    }
    const device = await adapter.requestDevice({
      label: `${label}:device`,
      requiredFeatures,
      requiredLimits: {
        maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize,
        maxBufferSize: limits.maxBufferSize,
        maxStorageBuffersPerShaderStage: Math.min(limits.maxStorageBuffersPerShaderStage, 10),
      },
    });
    const legacyFallback = (adapter as { isFallbackAdapter?: boolean }).isFallbackAdapter === true;
    return new GpuContext(device, summarizeAdapter(adapter.info, legacyFallback), true, label);
  }

  /** Whether the device has been lost (or this context destroyed). */
  get isLost(): boolean {
    return this.lostInfo !== undefined || this.destroyed;
  }

  /** Throws DeviceLostError if the device is gone. Every operation calls this first. */
  assertAlive(operation: string): void {
    if (this.destroyed) {
      throw new DeviceLostError(`${operation}: the GPU context was destroyed`, 'destroyed');
    }
    if (this.lostInfo) {
      throw new DeviceLostError(
        `${operation}: the GPU device was lost (${this.lostInfo.reason}: ${this.lostInfo.message})`,
        this.lostInfo.reason,
      );
    }
  }

  /** Creates a tracked buffer; `destroy()` of this context frees it if its owner did not. */
  createBuffer(descriptor: GPUBufferDescriptor): GPUBuffer {
    this.assertAlive(`create buffer ${descriptor.label ?? ''}`);
    const maxSize = this.device.limits.maxBufferSize;
    if (descriptor.size > maxSize) {
      throw new CapacityError(
        `${descriptor.label ?? 'buffer'}: ${descriptor.size} bytes exceed the device's maxBufferSize ` +
          `(${maxSize}); split the data into several sets or use an adapter with larger limits`,
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

  /** Checks a storage binding of `size` bytes fits the device; throws CapacityError otherwise. */
  assertBindingFits(what: string, size: number): void {
    const limit = this.device.limits.maxStorageBufferBindingSize;
    if (size > limit) {
      throw new CapacityError(
        `${what}: ${size} bytes exceed the device's maxStorageBufferBindingSize (${limit}); ` +
          'split the data into smaller sets or use an adapter with larger limits',
        'maxStorageBufferBindingSize', size, limit,
      );
    }
  }

  /**
   * Runs `encode` inside validation and out-of-memory error scopes and throws a GpuError named
   * after `operation` if either catches something. `encode` must not await (error scopes are a
   * per-device stack; pushing and popping in one synchronous run keeps concurrent queries apart).
   */
  async scoped<T>(operation: string, encode: () => T): Promise<T> {
    this.assertAlive(operation);
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
    const [v, o] = await Promise.all([validation, oom]);
    if (failure !== undefined) {
      throw failure;
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
   * Copies `size` bytes of `source` (needs COPY_SRC) into a fresh staging buffer and maps it:
   * staging → copy → mapAsync → copy out → unmap. Each call has its own staging buffer, so
   * concurrent readbacks never share one.
   */
  async readback(source: GPUBuffer, size: number, offset = 0, operation = 'readback'): Promise<ArrayBuffer> {
    this.assertAlive(operation);
    if (size === 0) {
      return new ArrayBuffer(0);
    }
    const staging = this.createBuffer({
      label: `${this.label}:staging`,
      size: alignTo(size, 4),
      usage: BufferUsage.COPY_DST | BufferUsage.MAP_READ,
    });
    try {
      await this.scoped(operation, () => {
        const encoder = this.device.createCommandEncoder({ label: `${this.label}:${operation}` });
        encoder.copyBufferToBuffer(source, offset, staging, 0, alignTo(size, 4));
        this.device.queue.submit([encoder.finish()]);
      });
      await this.whileAlive(operation, staging.mapAsync(MapMode.READ));
      const out = staging.getMappedRange(0, alignTo(size, 4)).slice(0, size);
      staging.unmap();
      return out;
    } finally {
      this.destroyBuffer(staging);
    }
  }

  /** Awaits `promise`, but rejects with DeviceLostError if the device is lost first. */
  async whileAlive<T>(operation: string, promise: Promise<T>): Promise<T> {
    const lost = this.lost.then((info): never => {
      throw new DeviceLostError(`${operation}: the GPU device was lost (${info.reason}: ${info.message})`, info.reason);
    });
    try {
      return await Promise.race([promise, lost]);
    } catch (error) {
      if (this.isLost && !(error instanceof DeviceLostError)) {
        this.assertAlive(operation);
      }
      throw error;
    }
  }

  /**
   * Runs `submit` once every earlier sequenced operation has submitted its work: uploads,
   * updates and dispatches reach the queue in the order they were called, so a query sees the
   * data as it was when the query was issued, whatever awaits happen inside each operation.
   */
  sequence<T>(operation: string, submit: () => T | Promise<T>): Promise<T> {
    const run = this.order.then(() => {
      this.assertAlive(operation);
      return submit();
    });
    this.order = run.catch(() => undefined);
    return run;
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
    this.destroyed = true;
    if (this.ownsDevice) {
      this.device.destroy();
    }
  }
}

/** Rounds `n` up to a multiple of `alignment`. */
export function alignTo(n: number, alignment: number): number {
  return Math.ceil(n / alignment) * alignment;
}
