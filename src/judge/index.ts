/**
 * `webgpu-obb/judge`: the verification kit. Judge any implementation's result file against the
 * float64 reference (judgeScene), export the library's random and adversarial suites as scene
 * files (caseFiles), and report the verdicts as JUnit XML for CI (junitReport) or as a
 * self-contained HTML page that draws each failing case (htmlReport). The `webgpu-obb judge` and
 * `webgpu-obb cases` commands are these functions with files around them. Underneath them, for
 * proving results in code: the comparator (compareClosestHits, comparePairs, compareLidarSweep,
 * compareDerivedBoxes, …, formatComparison), its error model (rayDistanceBound, satGapBound, UNIT_ROUNDOFF, …) and
 * the seeded and adversarial scene generators (mulberry32, randomBoxes, randomRays,
 * adversarialRayGroups, …).
 *
 * @example
 * import { parseSceneText, judgeScene, formatSceneComparison } from 'webgpu-obb/judge';
 * const scene = parseSceneText(sceneText);
 * const verdict = judgeScene(scene, JSON.parse(resultText), { precision: 'f32' });
 * console.log(formatSceneComparison('scene.json', scene, 'my-kernel', verdict, { label: 'implementation', who: 'my-kernel' }));
 *
 * @example
 * import { ObbGpu } from 'webgpu-obb';
 * import { compareClosestHits, formatComparison, mulberry32, randomBoxes, randomRays } from 'webgpu-obb/judge';
 * const rnd = mulberry32(1);
 * const boxes = randomBoxes(10_000, rnd);
 * const rays = randomRays(100_000, boxes, rnd);
 * const gpu = await ObbGpu.create();
 * const set = gpu.createBoxSet(boxes);
 * const cmp = compareClosestHits({ boxes: set.boxes, rays, origin: set.origin }, await gpu.closestHit(set, rays));
 * console.log(formatComparison(cmp)); // closestHit: 100000 cases — … agree, … ambiguous, 0 mismatch; …
 */
export { judgeScene, compareAnswers, formatSceneComparison, runReference, unitRoundoffOf, type JudgeOptions, type SceneComparison, type ReferenceResults, type ProgressFn } from './judge.ts';
export { parseResult, parseResultText, faceOfNormal, ResultError, type ParsedResult } from './result.ts';
export { caseFiles, parseManifest, isManifest, type CaseManifest, type CaseOptions, type CaseSuite } from './cases.ts';
export { junitReport, xmlEscape, type JudgedGroup } from './junit.ts';
export { htmlReport, viewsOf, caseView, type CaseView, type HtmlReportOptions } from './html.ts';
export { parseScene, parseSceneText, describeScene, SceneError, type Scene, type SceneMaterials } from '../files/scene.ts';
export { sceneResultFromCpu, shortestFloat32, type SceneResult, type RayResult, type PairResult, type LidarRaw } from '../files/results.ts';

// The comparator and its error model.
export {
  compareClosestHits, compareAnyHits, compareAllHits, comparePairs, comparePairLists, compareFrustum, formatComparison,
  type Comparison, type CaseReport, type CaseAnswer, type Verdict, type CompareOptions, type RayCompareInput, type PairCompareInput,
  type PairListCompareInput, type FrustumCompareInput,
} from '../compare/compare.ts';
export { compareLidarSweep, compareReturnsPerBox, type LidarCompareInput, type LidarComparison, type SweepImages } from '../compare/lidar.ts';
export { UNIT_ROUNDOFF, F32_UNIT_ROUNDOFF, rayDistanceBound, positionBound, satGapBound, edgeSkipBand, type Precision } from '../compare/errorModel.ts';
export {
  compareDerivedBoxes, deriveBoxes, badBoxes, flagReasons, derivedCenterBound, derivedHalfBound, derivedAxisBound, derivedDecisionBand,
  K_DERIVE_CENTER, K_DERIVE_HALF, K_DERIVE_AXIS, K_DERIVE_DECISION, DERIVE_RECORD_WORDS, LOCAL_BOX_WORDS,
  type DeriveInput, type DeriveLayout, type DerivedBoxes, type DerivedRecords, type BadBox,
} from '../compare/derive.ts';

// Scenes: seeded generators and the adversarial groups.
export {
  mulberry32, randomBoxes, randomRays, publishedSatPairs, writeQuaternionAxes, writeRandomRotation, writeYawPitchRoll,
  type Rng, type RandomBoxOptions, type RandomRayOptions,
} from '../scenes/generate.ts';
export { adversarialRayGroups, adversarialPairGroups, withMaxDistance, type RayCaseGroup, type PairCaseGroup } from '../scenes/adversarial.ts';
