/**
 * Errors the library throws. Bad arguments are {@link ValidationError} (a `RangeError` that names
 * the item, its index and the field); GPU conditions have their own classes.
 */

/** What kind of item a validation error is about. */
export type ItemKind = 'box' | 'ray' | 'pair' | 'point' | 'matrix' | 'quaternion' | 'argument';

/**
 * Bad input, caught before anything reaches the GPU.
 *
 * @example
 * try { toObb(box, 1532) } catch (e) {
 *   if (e instanceof ValidationError) console.log(e.index, e.field) // 1532 'axes'
 * }
 */
export class ValidationError extends RangeError {
  override readonly name = 'ValidationError';
  constructor(
    readonly kind: ItemKind,
    readonly index: number | undefined,
    readonly field: string,
    detail: string,
  ) {
    super(`${index === undefined ? kind : `${kind} ${index}`}: ${field} ${detail}`);
  }
}

/** A WGSL compile error, located at `file:line` of the chunk it came from. */
export class ShaderCompileError extends Error {
  override readonly name = 'ShaderCompileError';
  constructor(
    message: string,
    readonly file: string,
    readonly line: number,
  ) {
    super(message);
  }
}

/**
 * The GPU device was lost (destroyed, driver reset, …) or this library's context was destroyed;
 * the query cannot complete. The message starts with the operation the user called.
 */
export class DeviceLostError extends Error {
  override readonly name = 'DeviceLostError';
  constructor(
    /** The operation that failed, as the user called it (`closestHit`, `BoxSet.update`, …). */
    readonly operation: string,
    /** `destroyed` (this context's destroy()), `replaced` (issued before a recover()), or the device's own reason. */
    readonly reason: string,
    /** What happened, in one line. */
    readonly detail: string,
  ) {
    super(`${operation}: ${detail}`);
  }
}

/** Why an object can no longer be used (see {@link StaleObjectError}). */
export type StaleReason = 'destroyed' | 'device-replaced';

/**
 * An object of this library was used after its `destroy()`, or after `recover()` replaced the
 * device it was made on (LiDAR sensors, frustum cullers and trees do not move to the new device;
 * box sets do). Create it again.
 *
 * @example
 * try { await gpu.lidarSweep(sensor, set, pose) } catch (e) {
 *   if (e instanceof StaleObjectError && e.reason === 'device-replaced') sensor = await gpu.createLidar(desc)
 * }
 */
export class StaleObjectError extends Error {
  override readonly name = 'StaleObjectError';
  constructor(
    readonly operation: string,
    /** The object, e.g. `BoxSet "boxes"` or `LidarSensor`. */
    readonly object: string,
    readonly reason: StaleReason,
  ) {
    super(`${operation}: ${object} ${reason === 'destroyed'
      ? 'was destroyed'
      : 'was made on a GPU device that recover() has since replaced; create it again'}`);
  }
}

/**
 * The error `error` as seen by `operation` (the call the user made): a DeviceLostError or
 * StaleObjectError raised by an inner step is re-issued under the outer name; anything else is
 * returned as it is.
 */
export function asSeenBy(operation: string, error: unknown): unknown {
  if (error instanceof DeviceLostError && error.operation !== operation) {
    return new DeviceLostError(operation, error.reason, error.detail);
  }
  if (error instanceof StaleObjectError && error.operation !== operation) {
    return new StaleObjectError(operation, error.object, error.reason);
  }
  return error;
}

/** Why WebGPU could not be started (see {@link WebGpuUnavailableError}). */
export type UnavailableReason = 'no-webgpu' | 'no-adapter' | 'device-request-failed' | 'instance-lost';

/**
 * WebGPU could not be started here: no `navigator.gpu`, no adapter, a failed `requestDevice`, or
 * a WebGPU instance that failed while the kernels were being prepared (in headless Chromium,
 * typically a page that also has a WebGPU canvas, started without the Vulkan flags). The message
 * says what to do.
 *
 * @example
 * try { gpu = await ObbGpu.create() } catch (e) {
 *   if (e instanceof WebGpuUnavailableError) console.warn(e.message) // and show the page's fallback
 * }
 */
export class WebGpuUnavailableError extends Error {
  override readonly name = 'WebGpuUnavailableError';
  constructor(
    readonly reason: UnavailableReason,
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A request exceeds a device limit or a buffer capacity that cannot grow. */
export class CapacityError extends RangeError {
  override readonly name = 'CapacityError';
  constructor(
    message: string,
    readonly limit: string,
    readonly requested: number,
    readonly available: number,
  ) {
    super(message);
  }
}

/** A GPU validation or out-of-memory error caught by an error scope, named by operation. */
export class GpuError extends Error {
  override readonly name = 'GpuError';
  constructor(
    readonly operation: string,
    readonly gpuMessage: string,
    readonly filter: GPUErrorFilter,
  ) {
    super(`${operation}: ${filter} error: ${gpuMessage}`);
  }
}

/** Internal assumption check; a failure is a bug in webgpu-obb, not in the caller's input. */
export function invariant(condition: unknown, message: string): asserts condition {
  if (!condition) {
    throw new Error(`webgpu-obb invariant failed: ${message}`);
  }
}
