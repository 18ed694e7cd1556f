/**
 * `webgpu-obb/judge`: the verification kit. Judge any implementation's result file against the
 * float64 reference (judgeScene), export the library's random and adversarial suites as scene
 * files (caseFiles), and report the verdicts as JUnit XML for CI (junitReport) or as a
 * self-contained HTML page that draws each failing case (htmlReport). The `webgpu-obb judge` and
 * `webgpu-obb cases` commands are these functions with files around them.
 *
 * @example
 * import { parseSceneText, judgeScene, formatSceneComparison } from 'webgpu-obb/judge';
 * const scene = parseSceneText(sceneText);
 * const verdict = judgeScene(scene, JSON.parse(resultText), { precision: 'f32' });
 * console.log(formatSceneComparison('scene.json', scene, 'my-kernel', verdict, { label: 'implementation', who: 'my-kernel' }));
 */
export { judgeScene, compareAnswers, formatSceneComparison, runReference, unitRoundoffOf, type JudgeOptions, type SceneComparison, type ReferenceResults, type ProgressFn } from './judge.ts';
export { parseResult, parseResultText, faceOfNormal, ResultError, type ParsedResult } from './result.ts';
export { caseFiles, parseManifest, isManifest, type CaseManifest, type CaseOptions, type CaseSuite } from './cases.ts';
export { junitReport, xmlEscape, type JudgedGroup } from './junit.ts';
export { htmlReport, viewsOf, caseView, type CaseView, type HtmlReportOptions } from './html.ts';
export { parseScene, parseSceneText, describeScene, SceneError, type Scene } from '../files/scene.ts';
export { sceneResultFromCpu, shortestFloat32, type SceneResult, type RayResult, type PairResult } from '../files/results.ts';
export { UNIT_ROUNDOFF, type Precision } from '../compare/errorModel.ts';
