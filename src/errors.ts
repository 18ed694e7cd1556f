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

/** The GPU device was lost (destroyed, driver reset, …); the query cannot complete. */
export class DeviceLostError extends Error {
  override readonly name = 'DeviceLostError';
  constructor(
    message: string,
    readonly reason: string = 'unknown',
  ) {
    super(message);
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
