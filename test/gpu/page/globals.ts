/**
 * The contract between the GPU test page and the Node-side harness (test/gpu/harness.ts).
 *
 * Every module in test/gpu/page/suites/ is a suite, keyed by its file name without `.ts`; each of
 * its exported async functions can be called from a test with `gpu.call(suite, fn, ...args)`.
 * Arguments and results cross the DevTools protocol as JSON: return summaries and failing cases,
 * not megabytes of data.
 */

/** A function a suite exports; it runs in the page and returns JSON-serialisable data. */
export type SuiteFunction = (...args: never[]) => unknown;

/** A suite module: its exports by name. */
export type Suite = Readonly<Record<string, unknown>>;

/**
 * A page's API as the harness calls it: suite modules by name (`typeof` the page's `suites`
 * object, test/gpu/page/main.ts's `TestPageApi`), so a renamed or retyped page function fails
 * `tsc` at every `gpu.call` that names it.
 */
export type PageApi = object;

/** The names of a suite module's exported functions. */
export type SuiteFunctionName<M> = { [K in keyof M]: M[K] extends SuiteFunction ? K : never }[keyof M] & string;

/** The arguments of suite function `F` of module `M`. */
export type SuiteArgs<M, F extends keyof M> = M[F] extends (...args: infer A) => unknown ? A : never;

/** What suite function `F` of module `M` answers, as it arrives in Node. */
export type SuiteResult<M, F extends keyof M> = M[F] extends (...args: never[]) => infer R ? Jsonified<Awaited<R>> : never;

/**
 * A value after the trip through the DevTools protocol (`returnByValue`, JSON-like): functions,
 * symbols and `undefined` properties are dropped (so a property that may be `undefined` may be
 * absent), and a typed array arrives as an object of its elements by index.
 */
export type Jsonified<T> = T extends string | number | boolean | null
  ? T
  : T extends undefined | symbol | bigint | SuiteFunction
    ? never
    : T extends ArrayBufferView
      ? Record<number, number>
      : T extends readonly unknown[]
        ? { [K in keyof T]: Jsonified<T[K]> }
        : JsonObject<T>;

/** {@link Jsonified} of an object: a property that may be `undefined` becomes optional. */
type JsonObject<T> = {
  [K in keyof T as undefined extends T[K] ? never : K]: Jsonified<T[K]>;
} & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Jsonified<T[K]>;
};

declare global {
  interface Window {
    /** Suite modules by file basename, set by main.ts before `__ready`. */
    __suites?: Readonly<Record<string, Suite>>;
    /** True once every suite module has loaded. */
    __ready?: boolean;
  }
}
