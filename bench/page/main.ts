/**
 * Entry of the benchmark page: publishes every workload module on `window.__suites` (the same
 * contract as the GPU test page, so bench/run.ts drives it with the test harness). The workloads
 * are listed, not globbed, so that their type is the page's API ({@link BenchPageApi}): bench/run.ts
 * and bench/variants.ts call them through `openGpuPage<BenchPageApi>`, and a renamed workload
 * function fails `tsc` there.
 */
import * as bvh from './workloads/bvh.ts';
import * as env from './workloads/env.ts';
import * as gpuSourced from './workloads/gpuSourced.ts';
import * as lidarSim from './workloads/lidarSim.ts';
import * as pairs from './workloads/pairs.ts';
import * as rays from './workloads/rays.ts';
import * as three from './workloads/three.ts';
import * as transfer from './workloads/transfer.ts';
import * as variants from './workloads/variants.ts';

const suites = { bvh, env, gpuSourced, lidarSim, pairs, rays, three, transfer, variants };

/** The benchmark page's API: its workload modules by name. */
export type BenchPageApi = typeof suites;

// A workload file left out of the list above would never run: refuse to start instead.
const unlisted = Object.keys(import.meta.glob('./workloads/*.ts'))
  .map((path) => path.replace(/^.*\//, '').replace(/\.ts$/, ''))
  .filter((name) => !(name in suites));
if (unlisted.length > 0) {
  throw new Error(`bench/page/main.ts: workloads not listed: ${unlisted.join(', ')}`);
}

(window as unknown as { __suites: unknown }).__suites = suites;
(window as unknown as { __ready: boolean }).__ready = true;
