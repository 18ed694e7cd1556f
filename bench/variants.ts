/**
 * `npm run bench:variants -- FILE [--n N] [--rounds R] [--json OUT]`: times WGSL variants of the
 * tree walk against each other in headless Chromium (bench/page/workloads/variants.ts): the
 * picking-1024 closest-hit kernel over the picking scene of N boxes (default 100,000), R
 * interleaved rounds (default 25), GPU time from timestamp queries.
 *
 * FILE maps a variant's name to its edits of the shader chunks, `[{ "chunk", "from", "to" }]`
 * (every occurrence of `from` in CHUNKS[chunk] replaced), or to `{ "rayTuning": {…}, "edits": […] }`
 * when its ObbGpu takes a ray tuning besides (`{ "subgroupWalk": false }`: bvhClosestHit where
 * the adapter would walk with bvhClosestHitSubgroup); the first variant is the baseline
 * (usually `[]`, the shipped code). bench/variants/walk-costs.json asks where the walk's time
 * goes: each variant does one part of a step twice without changing what the walk finds.
 *
 * Prints one line per variant (median, min–max, and the rays whose box differs from the
 * baseline's) and writes them as JSON (default bench/out/variants.json).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openGpuPage } from '../test/gpu/harness.ts';
import type { BenchPageApi } from './page/main.ts';
import type { Variant } from './page/workloads/variants.ts';

function option(args: string[], name: string): string | undefined {
  const k = args.indexOf(name);
  return k >= 0 ? args[k + 1] : undefined;
}

export async function main(args: string[]): Promise<void> {
  const file = args[0];
  if (!file || file.startsWith('--')) {
    throw new Error('usage: npm run bench:variants -- FILE [--n N] [--rounds R] [--json OUT]');
  }
  const n = Number(option(args, '--n') ?? 100_000);
  const rounds = Number(option(args, '--rounds') ?? 25);
  if (!(Number.isInteger(n) && n >= 2) || !(Number.isInteger(rounds) && rounds >= 1)) {
    throw new Error(`--n must be an integer ≥ 2 and --rounds ≥ 1 (got ${n}, ${rounds})`);
  }
  const variants = JSON.parse(readFileSync(file, 'utf8')) as Record<string, Variant>;
  const out = resolve(option(args, '--json') ?? fileURLToPath(new URL('./out/variants.json', import.meta.url)));
  const page = await openGpuPage<BenchPageApi>({ root: fileURLToPath(new URL('./page/', import.meta.url)), protocolTimeout: 3600 * 1000 });
  try {
    const env = await page.call('env', 'environment');
    const timings = await page.call('variants', 'walk', n, variants, rounds);
    console.log(`adapter: ${env.adapter.name}; ${env.userAgent}`);
    for (const t of timings) {
      console.log(`${t.name.padEnd(16)} ${t.median_ms.toFixed(2)} ms (${t.min_ms.toFixed(2)}–${t.max_ms.toFixed(2)}, ${t.runs} runs); rays differing from ${timings[0]!.name}: ${t.differing}`);
    }
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, `${JSON.stringify({ date: new Date().toISOString(), command: `npm run bench:variants -- ${args.join(' ')}`, n, rounds, file, adapter: env.adapter.name, fallbackAdapter: env.adapter.isFallbackAdapter, browser: env.userAgent, timings }, null, 2)}\n`);
    console.log(`wrote ${out}`);
  } finally {
    await page.close();
  }
}
