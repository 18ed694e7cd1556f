/**
 * Entry of the GPU test page: loads every suite module eagerly and publishes them on
 * `window.__suites`, keyed by file basename (`./suites/adapter.ts` → `adapter`), then sets
 * `window.__ready`. A suite that fails to load fails the whole page, and the harness reports the
 * page error instead of timing out silently.
 */
import type { Suite } from './globals.ts';

const modules = import.meta.glob<Suite>('./suites/*.ts', { eager: true });

const suites: Record<string, Suite> = {};
for (const [path, module] of Object.entries(modules)) {
  const name = path.replace(/^.*\//, '').replace(/\.ts$/, '');
  suites[name] = module;
}

window.__suites = suites;
window.__ready = true;
