/**
 * The lifetime of one GPU object of the library (a box set, a tree, a LiDAR sensor, a frustum
 * culler): destroyed once, hooks run when it is (its owner frees what it keeps for the object),
 * and the device generation it was made on, so that using it after `destroy()`, or after a
 * `recover()` it does not survive, is a one-line StaleObjectError instead of a driver message
 * about destroyed buffers.
 *
 * Who owns what (the one place this is written down):
 * - `ObbGpu` owns its `GpuContext` (and the device, when it requested it), the `BufferPool`, the
 *   query modules' caches (freed by `ObbGpu.trim()`), and every set, sensor and culler made
 *   through it until that object's own `destroy()`; then it holds it by nothing.
 * - A set's tree belongs to the set's entry in `ObbGpu`: freed when the set is destroyed, and
 *   replaced (the old one freed) when the set outgrows it or the device is replaced.
 * - Each object frees exactly the buffers it created (a sensor its range, box, point and table
 *   buffers and its raster lists; a tree its nodes and sort buffers; a set its boxes and masks).
 * - Buffers handed to the caller (`closestHitBuffers`) belong to the caller.
 * - Buffers the caller hands in belong to the caller: a GPU-sourced set (`GpuSourcedBoxSet`) reads
 *   its source (and per-instance local boxes) through bind groups and staging copies, and never
 *   maps, writes or destroys them; its own buffers (records, masks, flags, status, parameters)
 *   are its to free. It does not survive `recover()` (its source died with the old device).
 * - `GpuContext.destroy()` frees every buffer still alive, whoever made it.
 * - `GpuContext` also keeps one 4-byte loss sentinel per device (how it sees a `device.destroy()`
 *   at once; not counted in `liveBuffers`), freed by its `destroy()` or when `recover()` replaces
 *   the device.
 * - Work in flight owns nothing it has not applied: a set's host copy and a tree's bookkeeping
 *   change only once an operation's GPU work was submitted on a live device (src/runtime/context.ts,
 *   "The rule for work in flight at a loss"); one the loss overtakes changes neither.
 */
import { StaleObjectError, ValidationError } from '../errors.ts';
import type { GpuContext } from './context.ts';

/** Whether one GPU object of the library is still usable: destroyed once, hooks, device generation. */
export class Lifetime {
  private readonly hooks = new Set<() => void>();
  private ended = false;
  /** The context's device generation when the object was made (GpuContext.epoch). */
  private readonly epoch: object;

  /**
   * @param what how errors name the object, e.g. `BoxSet "boxes"`.
   * @param survivesRecovery true for objects that rebuild themselves on a new device (box sets).
   */
  constructor(private readonly ctx: GpuContext, readonly what: string, private readonly survivesRecovery: boolean) {
    this.epoch = ctx.epoch;
  }

  /** Whether the object was destroyed. */
  get destroyed(): boolean {
    return this.ended;
  }

  /** Runs `hook` once, when the object is destroyed. Returns a function that unregisters it. */
  onDestroy(hook: () => void): () => void {
    this.hooks.add(hook);
    return () => {
      this.hooks.delete(hook);
    };
  }

  /** Marks the object destroyed and runs the hooks; false when it already was. */
  end(): boolean {
    if (this.ended) {
      return false;
    }
    this.ended = true;
    const hooks = [...this.hooks];
    this.hooks.clear();
    for (const hook of hooks) {
      hook();
    }
    return true;
  }

  /**
   * Throws StaleObjectError when the object was destroyed or, for an object that does not survive
   * a recovery, made on a device that has since been replaced; DeviceLostError when the context
   * is gone.
   */
  assertUsable(operation: string): void {
    if (this.ended) {
      throw new StaleObjectError(operation, this.what, 'destroyed');
    }
    this.ctx.assertAlive(operation);
    if (!this.survivesRecovery && this.epoch !== this.ctx.epoch) {
      throw new StaleObjectError(operation, this.what, 'device-replaced');
    }
  }
}

/** An object of this library bound to one context (a box set, a sensor, a culler, a tree). */
export interface ContextBound {
  readonly ctx: unknown;
  /** Throws StaleObjectError (or DeviceLostError) when the object cannot be used for `operation`. */
  assertUsable(operation: string): void;
}

/**
 * Checks that `value` is a usable object of kind `kind` (by `isKind`) made on context `ctx`:
 * ValidationError naming `field` for something else or an object of another context (its
 * buffers cannot be bound here), StaleObjectError for a destroyed or stale one, named after
 * `operation`.
 */
export function checkBound(
  ctx: object, value: unknown, field: string, kind: string, isKind: (v: object) => boolean, operation: string,
): asserts value is ContextBound {
  if (typeof value !== 'object' || value === null || !isKind(value)) {
    throw new ValidationError('argument', undefined, field, `must be a ${kind} (got ${value === null ? 'null' : typeof value})`);
  }
  if ((value as ContextBound).ctx !== ctx) {
    throw new ValidationError('argument', undefined, field, `belongs to another GPU context (create the ${kind} with this ObbGpu)`);
  }
  (value as ContextBound).assertUsable(operation);
}
