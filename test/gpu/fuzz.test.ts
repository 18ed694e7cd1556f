/**
 * Property-based fuzzing of the GPU against the float64 reference (test/gpu/page/suites/fuzz.ts):
 * a small slice in `npm test` (fixed seeds, in the test names), the nightly size in
 * `npm run fuzz` (FUZZ=nightly: over a million cases, a fresh seed unless FUZZ_SEED is set;
 * FUZZ_ONLY=rays|pairs|updates|lidar runs one property). A counterexample is shrunk by fast-check, written to test/gpu/repro/ as a test that
 * replays it, and fails the run.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openGpuPage, type GpuPage } from './harness.ts';
import type { FuzzReport, FuzzSize, PropertyName, Repro } from './page/suites/fuzz.ts';
import type { Jsonified } from './page/globals.ts';

const nightly = process.env['FUZZ'] === 'nightly';
const only = process.env['FUZZ_ONLY'];
const baseSeed = nightly ? Number(process.env['FUZZ_SEED'] ?? Date.now() % 2 ** 31) : 20261130;

interface Plan { property: PropertyName; runs: number; size: FuzzSize }

// npm test: a slice of a few seconds per property. npm run fuzz: well over 1,000,000 cases
// (rays alone: 300 runs × about 4,000 rays × 3 queries), batched so that SwiftShader copes;
// about four minutes on two cores.
const plans: Plan[] = nightly
  ? [
    { property: 'rays', runs: 300, size: { maxBoxes: 32, bulkBoxes: 64, maxRays: 200, bulkRays: 8000, bulkPairs: 0 } },
    { property: 'pairs', runs: 200, size: { maxBoxes: 32, bulkBoxes: 300, maxRays: 200, bulkRays: 0, bulkPairs: 20_000 } },
    { property: 'updates', runs: 200, size: { maxBoxes: 0, bulkBoxes: 0, maxRays: 0, bulkRays: 2000, bulkPairs: 0 } },
    { property: 'lidar', runs: 1000, size: { maxBoxes: 32, bulkBoxes: 300, maxRays: 0, bulkRays: 0, bulkPairs: 0 } },
  ]
  : [
    { property: 'rays', runs: 16, size: { maxBoxes: 12, bulkBoxes: 40, maxRays: 40, bulkRays: 1500, bulkPairs: 0 } },
    { property: 'pairs', runs: 10, size: { maxBoxes: 12, bulkBoxes: 60, maxRays: 40, bulkRays: 0, bulkPairs: 1500 } },
    { property: 'updates', runs: 8, size: { maxBoxes: 0, bulkBoxes: 0, maxRays: 0, bulkRays: 300, bulkPairs: 0 } },
    { property: 'lidar', runs: 12, size: { maxBoxes: 12, bulkBoxes: 60, maxRays: 0, bulkRays: 0, bulkPairs: 0 } },
  ];

const reproDir = fileURLToPath(new URL('./repro/', import.meta.url));

/**
 * Writes a counterexample to test/gpu/repro/ (one file per bug, the case inline); the describe
 * block below replays every file there. Returns its path.
 */
function writeRepro(r: Jsonified<FuzzReport>): string {
  mkdirSync(reproDir, { recursive: true });
  const file = `${reproDir}fuzz-${r.property}-${r.seed}.ts`;
  const summary = r.error.split('\n')[0]?.replace(/\*\//g, '* /').slice(0, 300) ?? '';
  const bad = r.firstBadCase ? `\n * First bad case the comparator kept:\n * ${JSON.stringify(r.firstBadCase).replace(/\*\//g, '* /')}\n *` : '';
  writeFileSync(file, `/**
 * Found by the fuzzer (\`npm run fuzz\`, property \`${r.property}\`, seed ${r.seed}, ${new Date().toISOString().slice(0, 10)},
 * shrunk in ${r.numShrinks} steps): ${summary}
 *${bad}
 * TODO(#6): say what the bug was and where it was fixed. test/gpu/fuzz.test.ts replays the case.
 */
import type { Repro } from '../page/suites/fuzz.ts';

export const repro: Repro = {
  property: '${r.property}',
  title: 'fuzz ${r.property} seed ${r.seed}',
  spec: ${JSON.stringify(r.counterexample)},
};
`);
  return file;
}

const repros = Object.entries(import.meta.glob<{ repro: Repro }>('./repro/*.ts', { eager: true }));

let gpu: GpuPage;
beforeAll(async () => {
  gpu = await openGpuPage();
});
afterAll(async () => {
  await gpu?.close();
});

describe('repro: every counterexample found so far (test/gpu/repro/)', () => {
  it.each(repros.map(([file, m]) => [m.repro.title, file, m.repro] as const))('%s (%s)', async (_title, _file, repro) => {
    // Throws on a mismatch or an error; resolves with the number of cases compared.
    const r = await gpu.call('fuzz', 'replay', repro.property, repro.spec);
    expect(r.cases).toBeGreaterThanOrEqual(0);
  });
});

describe(nightly ? 'fuzz (nightly size)' : 'fuzz (slice)', () => {
  let total = 0;
  plans.forEach((plan, k) => {
    const seed = baseSeed + k;
    if (only && only !== plan.property) {
      return;
    }
    it(`${plan.property}: ${plan.runs} runs (seed ${seed})`, async () => {
      const r = await gpu.call('fuzz', 'property', plan.property, seed, plan.runs, plan.size);
      total += r.cases;
      console.log(`fuzz ${plan.property} seed ${seed}: ${r.runs} runs, ${r.cases.toLocaleString('en')} cases ` +
        `(${r.ambiguous} ambiguous) in ${(r.ms / 1000).toFixed(1)} s${r.failed ? `; FAILED after ${r.numShrinks} shrinks` : ''}`);
      if (r.failed) {
        const file = writeRepro(r);
        expect.fail(`${r.error}\ncounterexample written to ${file}`);
      }
      expect(r.runs).toBe(plan.runs);
      expect(r.cases).toBeGreaterThan(0);
    }, nightly ? 3_600_000 : 300_000);
  });

  it('checked the planned number of cases, and the page logged no errors', () => {
    console.log(`fuzz total: ${total.toLocaleString('en')} cases`);
    if (nightly && !only) {
      expect(total).toBeGreaterThanOrEqual(1_000_000);
    }
    expect(gpu.consoleErrors).toEqual([]);
  });
});
