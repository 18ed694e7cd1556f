/**
 * The verification kit on this library's own GPU results (Dawn in Node): every exported quick
 * suite run through `runSceneGpu` (the code path of `webgpu-obb run`), its result file written
 * as the command writes it, then judged from the text like any other implementation's: no
 * mismatch in any group; ambiguities only in the groups built to be fragile, and none in the
 * groups built to be exact (every decision there is computed exactly by float32, so the GPU must
 * make it by the closed-set semantics and the tie rule). Then one t of the GPU's file moved by
 * 1% is found.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObbGpu } from '../../src/index.ts';
import { caseFiles, judgeScene, parseResultText, parseSceneText } from '../../src/judge/index.ts';
import { formatResult } from '../../src/cli/main.ts';
import { runSceneGpu } from '../../src/cli/run.ts';
import type { SceneResult } from '../../src/files/results.ts';
import { openNodeGpu } from './shared.ts';

let gpu: ObbGpu;
beforeAll(async () => {
  gpu = await openNodeGpu();
});
afterAll(() => {
  gpu?.destroy();
});

describe('judge on the library\'s own GPU result files', () => {
  it('every quick suite: no mismatch; ambiguous only where the group is made to be fragile', async () => {
    const { manifest, files } = caseFiles({ seed: 20261201 });
    const fragileGroups = /grazing|face-plane|on-surface|touching|near-parallel|identical-orientation|flat-boxes|lidar\/edges/;
    expect(manifest.suites.filter((s) => s.exact).length).toBeGreaterThanOrEqual(8);
    let total = 0, ambiguous = 0;
    let sample: { scene: string; result: string } | undefined;
    for (const s of manifest.suites) {
      const sceneText = files.find((f) => f.name === s.scene)!.text;
      const scene = parseSceneText(sceneText);
      const { result } = await runSceneGpu(scene, gpu);
      const text = formatResult(result);
      const v = judgeScene(scene, parseResultText(text, scene));
      console.log(`${s.name}: ${v.total} cases, ${v.mismatch} mismatch, ${v.ambiguous} ambiguous`);
      expect(v.mismatch, s.name).toBe(0);
      if (s.exact || !fragileGroups.test(s.name)) {
        expect(v.ambiguous, s.name).toBe(0);
      }
      total += v.total;
      ambiguous += v.ambiguous;
      if (s.name === 'random/rays') {
        sample = { scene: sceneText, result: text };
      }
    }
    console.log(`GPU (${gpu.adapterName}): ${total} cases over ${manifest.suites.length} groups, 0 mismatch, ${ambiguous} ambiguous`);
    // The same file with one t moved by 1%: found.
    const scene = parseSceneText(sample!.scene);
    const bad = JSON.parse(sample!.result) as SceneResult;
    const k = bad.rays!.findIndex((e) => e.hit && !e.inside && e.t > 5);
    (bad.rays![k] as { t: number }).t *= 1.01;
    const v = judgeScene(scene, bad);
    expect(v.mismatch).toBe(1);
    expect(v.comparisons[0]!.mismatchByReason).toEqual({ 't-error': 1 });
  }, 600_000);
});
