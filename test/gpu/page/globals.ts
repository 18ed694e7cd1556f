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

declare global {
  interface Window {
    /** Suite modules by file basename, set by main.ts before `__ready`. */
    __suites?: Readonly<Record<string, Suite>>;
    /** True once every suite module has loaded. */
    __ready?: boolean;
  }
}
