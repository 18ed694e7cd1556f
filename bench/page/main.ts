/**
 * Entry of the benchmark page: publishes every workload module on `window.__suites` (the same
 * contract as the GPU test page, so bench/run.ts drives it with the test harness).
 */
const modules = import.meta.glob<Record<string, unknown>>('./workloads/*.ts', { eager: true });
const suites: Record<string, Record<string, unknown>> = {};
for (const [path, module] of Object.entries(modules)) {
  suites[path.replace(/^.*\//, '').replace(/\.ts$/, '')] = module;
}
(window as unknown as { __suites: unknown }).__suites = suites;
(window as unknown as { __ready: boolean }).__ready = true;
