/**
 * Entry of the GPU test page: loads every suite module and publishes them on `window.__suites`,
 * keyed by file basename (`./suites/adapter.ts` → `adapter`), then sets `window.__ready`. A suite
 * that fails to load fails the whole page, and the harness reports the page error instead of
 * timing out silently.
 *
 * The suites are listed here, not globbed, so that their type is the page's API: the harness
 * (test/gpu/harness.ts) types `gpu.call(suite, fn, ...args)` by {@link TestPageApi}, and a
 * renamed suite function fails `tsc` at every call that names it.
 */
import * as adapter from './suites/adapter.ts';
import * as bvh from './suites/bvh.ts';
import * as bvhQueries from './suites/bvhQueries.ts';
import * as frustumExact from './suites/frustumExact.ts';
import * as fuzz from './suites/fuzz.ts';
import * as gpuSourced from './suites/gpuSourced.ts';
import * as host from './suites/host.ts';
import * as hostFields from './suites/hostFields.ts';
import * as lidarReturns from './suites/lidarReturns.ts';
import * as pairs from './suites/pairs.ts';
import * as rays from './suites/rays.ts';
import * as reliability from './suites/reliability.ts';
import * as three from './suites/three.ts';
import * as threeMarquee from './suites/threeMarquee.ts';

const suites = { adapter, bvh, bvhQueries, frustumExact, fuzz, gpuSourced, host, hostFields, lidarReturns, pairs, rays, reliability, three, threeMarquee };

/** The test page's API: its suite modules by name. */
export type TestPageApi = typeof suites;

// A suite file left out of the list above would never run: refuse to start instead.
const unlisted = Object.keys(import.meta.glob('./suites/*.ts'))
  .map((path) => path.replace(/^.*\//, '').replace(/\.ts$/, ''))
  .filter((name) => !(name in suites));
if (unlisted.length > 0) {
  throw new Error(`test/gpu/page/main.ts: suites not listed: ${unlisted.join(', ')}`);
}

window.__suites = suites;
window.__ready = true;
