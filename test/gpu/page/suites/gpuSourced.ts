/**
 * Suite `gpuSourced`: boxes that live on the GPU, in the browser: the scenarios of
 * test/fixtures/gpuSourced.ts (the ones test/node/gpuSourced.test.ts runs on Dawn) on the page's
 * ObbGpu, each inside the page's validation error scope.
 */
import {
  adversarialSource, deriveScenario, frameScenario, queryScenario, randomSource, type DeriveResult, type FrameResult, type Layout, type QueryResult,
} from '../../../fixtures/gpuSourced.ts';
import { scoped } from '../shared.ts';

/** A random source of `layout` (translations within `spread` of an origin 1e6 out), derived and judged. */
export async function random(seed: number, count: number, layout: Layout, perInstance: boolean, spread: number): Promise<DeriveResult & { adapter: string }> {
  return scoped(async (gpu) => deriveScenario(gpu, randomSource(seed, count, layout, { centre: [1e6, -1e6, 5e5], origin: [1e6, -1e6, 5e5], spread, perInstance, padWords: 2, offsetWords: 70 })));
}

/** The adversarial cases of `layout`, `repeat` more times over, derived and judged. */
export async function adversarial(layout: Layout, perInstance: boolean, repeat: number): Promise<DeriveResult & { adapter: string }> {
  return scoped(async (gpu) => deriveScenario(gpu, adversarialSource(layout, perInstance, repeat)));
}

/** Every query family over a sourced set with bad boxes among good ones. */
export async function queries(seed: number, count: number, layout: 'mat4x4f' | 'mat3x4f'): Promise<QueryResult & { adapter: string }> {
  return scoped(async (gpu) => queryScenario(gpu, seed, count, layout));
}

/** The frame loop, with every writeBuffer and mapAsync counted during its frames. */
export async function frames(count: number, frameCount: number, tree: boolean): Promise<FrameResult & { adapter: string }> {
  return scoped(async (gpu) => frameScenario(gpu, count, frameCount, tree));
}
