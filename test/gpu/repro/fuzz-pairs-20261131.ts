/**
 * Found by the fuzzer (`npm run fuzz`, property `pairs`, seed 20261131, 2026-11-30, shrunk in 8
 * steps) when `allPairs({ accel: 'grid' })` joined the property: a face-only list missed pair
 * (3, 28), which the six face axes call overlapping (gap −0.0045 on A0) although the two boxes'
 * AABBs are disjoint along y. Face-only "overlaps" need not have overlapping AABBs, so no AABB
 * broad phase may cull them: fixed in PairQueries.pairList (face-only lists go by brute force on
 * the GPU, grid and BVH alike) and in allPairsSweep (face-only is allPairs itself). The same
 * change grows the broad phases' AABBs by the SAT tolerance (broadPhaseAabb in shaders/pairs/common.wgsl).
 */
import type { Repro } from '../page/suites/fuzz.ts';

export const repro: Repro = {
  property: 'pairs',
  title: 'fuzz pairs seed 20261131: a face-only pair with disjoint AABBs (grid)',
  spec: {"offset":[0,0,0],"scale":1,"boxes":[],"bulkBoxes":29,"bulkSeed":11,"pairs":[],"bulkPairs":0,"faceOnly":true,"capacity":null,"split":0},
};
