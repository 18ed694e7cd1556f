/**
 * The WGSL variant files of `npm run bench:variants` (bench/variants/*.json) still apply to the
 * shaders as they are: every edit's `from` occurs in its chunk, and every ray tuning names a knob
 * that exists. A refactor of the walk that leaves a file behind fails here, not in a bench run.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { rayKernelTuning } from '../../src/rays/RayQueries.ts';
import { CHUNKS } from '../../src/runtime/shaders.ts';
import type { Variant } from '../../bench/page/workloads/variants.ts';

const dir = new URL('../../bench/variants/', import.meta.url);
const files = readdirSync(dir).filter((f) => f.endsWith('.json'));

describe('bench variant files', () => {
  it('exist', () => {
    expect(files.length).toBeGreaterThanOrEqual(4);
  });

  it.each(files)('%s: every edit matches its chunk, every tuning knob exists', (file) => {
    const variants = JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as Record<string, Variant>;
    const knobs = Object.keys(rayKernelTuning(true, true));
    const chunks = CHUNKS as Record<string, { code: string }>;
    for (const [name, variant] of Object.entries(variants)) {
      const edits = Array.isArray(variant) ? variant : (variant as Exclude<Variant, readonly unknown[]>).edits;
      const tuning = Array.isArray(variant) ? {} : (variant as Exclude<Variant, readonly unknown[]>).rayTuning ?? {};
      for (const key of Object.keys(tuning)) {
        expect(knobs, `${file} ${name}: rayTuning.${key}`).toContain(key);
      }
      for (const e of edits) {
        expect(chunks[e.chunk], `${file} ${name}: chunk ${e.chunk}`).toBeDefined();
        expect(chunks[e.chunk]!.code.includes(e.from), `${file} ${name}: ${e.chunk} contains ${JSON.stringify(e.from.slice(0, 60))}`).toBe(true);
      }
    }
  });
});
