/**
 * The verification kit's commands (src/judge/ with files around it):
 *
 * - `judge SCENE.json RESULT.json`: any implementation's result file against the float64
 *   reference; `judge MANIFEST.json RESULTS_DIR`: every group of an exported suite, each result
 *   found by the manifest's `result` name in RESULTS_DIR. Exit 0 no mismatch, 1 a mismatch, 2 a
 *   result file that does not answer its scene (or is missing), bad usage or a bad scene.
 * - `cases DIR`: the library's random and adversarial suites as scene files and a manifest.
 *
 * Reports: `--junit FILE.xml`, `--html FILE.html` (also from `verify`, ./main.ts).
 */
import { mkdir, readFile, readdir } from 'node:fs/promises';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { describeScene, type Scene } from '../files/scene.ts';
import { caseFiles, isManifest, parseManifest } from '../judge/cases.ts';
import { htmlReport } from '../judge/html.ts';
import { formatSceneComparison, judgeScene, phaseProgress, unitRoundoffOf, type JudgeOptions, type SceneComparison } from '../judge/judge.ts';
import { junitReport, type JudgedGroup } from '../judge/junit.ts';
import { parseResultText, ResultError, type ParsedResult } from '../judge/result.ts';
import { UNIT_ROUNDOFF, type Precision } from '../compare/errorModel.ts';
import { CliError, EXIT, ioReason, oneLine, readScene, sceneDigest, withinReferenceCapacity, writeFileAtomic, type CliIo } from './common.ts';

export const KIT_USAGE = `  webgpu-obb judge SCENE.json RESULT.json [--precision f32|f16|f64 | --unit-roundoff U]
                 [--junit FILE.xml] [--html FILE.html] [--lenient] [--quiet]
  webgpu-obb judge MANIFEST.json RESULTS_DIR [the same options]
  webgpu-obb cases DIR [--suite NAME]... [--seed N] [--size quick|full] [--quiet]`;

export const KIT_COMMANDS = `  judge    Judge any implementation's result file (the result format below) against the
           float64 reference: every ray, pair and all-pairs entry classified agree /
           ambiguous / mismatch with the error model of its precision. Given a cases
           manifest and a folder of results, judges every group of the suite.
  cases    Write the library's random and adversarial suites as scene files with a
           manifest (what each group tests, its seed and counts), for another
           implementation to run and hand to judge.`;

export const KIT_OPTIONS = `  --precision f32|f16|f64
                      judge: the arithmetic of the implementation judged (default f32): the
                      error bounds scale with its unit roundoff (2^-24, 2^-11, 2^-53)
  --unit-roundoff U   judge: an explicit unit roundoff instead (e.g. 1e-6)
  --junit FILE.xml    judge, verify: also write a JUnit report (one test case per group)
  --html FILE.html    judge, verify: also write a self-contained HTML report drawing each
                      mismatch and the worst ambiguous cases in 3D
  --suite NAME        cases: only groups whose name starts with NAME (repeatable):
                      random, rays, pairs, all-pairs, rays/grazing-edges, …
  --seed N            cases: the suites' seed (default 20261201)
  --size quick|full   cases: quick (default, a few MB) or full (random groups 10-20x larger)`;

/** Writes the JUnit and HTML reports a judge or verify run asked for. */
export async function writeReports(groups: readonly JudgedGroup[], junit: string | undefined, html: string | undefined, title: string, progress: (m: string) => void): Promise<void> {
  if (junit !== undefined) {
    await writeFileAtomic(junit, junitReport(groups, title), `--junit ${junit}: cannot write the report`);
    progress(`wrote ${junit}`);
  }
  if (html !== undefined) {
    await writeFileAtomic(html, htmlReport(groups, { title }), `--html ${html}: cannot write the report`);
    progress(`wrote ${html}`);
  }
}

/** Fails before a long run when a report cannot be written (its folder missing). */
async function checkReportPath(flag: string, path: string | undefined): Promise<void> {
  if (path === undefined) {
    return;
  }
  const dir = dirname(resolve(path));
  const ok = await readdir(dir).then(() => true, () => false);
  if (!ok) {
    throw new CliError(EXIT.USAGE, `${flag} ${path}: the folder ${dir} does not exist`);
  }
}

interface KitArgs {
  readonly positionals: string[];
  readonly values: Record<string, string | boolean | string[] | undefined>;
}

function parseKit(argv: readonly string[]): KitArgs {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv], allowPositionals: true, strict: true,
      options: {
        precision: { type: 'string' }, 'unit-roundoff': { type: 'string' },
        junit: { type: 'string' }, html: { type: 'string' }, lenient: { type: 'boolean' },
        suite: { type: 'string', multiple: true }, seed: { type: 'string' }, size: { type: 'string' },
        quiet: { type: 'boolean', short: 'q' },
      },
    });
    return { positionals, values };
  } catch (error) {
    const first = oneLine(error).split(/\.\s/)[0] ?? '';
    throw new CliError(EXIT.USAGE, `${first.replace(/^Unknown/, 'unknown')} (see webgpu-obb --help)`);
  }
}

function only(command: string, values: KitArgs['values'], allowed: readonly string[]): void {
  for (const [k, v] of Object.entries(values)) {
    if (v !== undefined && !allowed.includes(k)) {
      throw new CliError(EXIT.USAGE, `--${k} is not an option of ${command} (see webgpu-obb --help)`);
    }
  }
}

function judgeOptions(values: KitArgs['values']): Pick<JudgeOptions, 'precision' | 'unitRoundoff'> {
  const p = values['precision'];
  const u = values['unit-roundoff'];
  if (p !== undefined && u !== undefined) {
    throw new CliError(EXIT.USAGE, 'give --precision or --unit-roundoff, not both');
  }
  if (p !== undefined && !(typeof p === 'string' && p in UNIT_ROUNDOFF)) {
    throw new CliError(EXIT.USAGE, `--precision must be f32, f16 or f64 (got '${String(p)}')`);
  }
  const out = { ...(p === undefined ? {} : { precision: p as Precision }), ...(u === undefined ? {} : { unitRoundoff: Number(u) }) };
  try {
    unitRoundoffOf(out);
  } catch (error) {
    throw new CliError(EXIT.USAGE, `--unit-roundoff ${String(u)}: ${oneLine(error)}`);
  }
  return out;
}

async function readJson(file: string, what: string): Promise<{ text: string; json: unknown }> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    throw new CliError(EXIT.USAGE, `${file}: cannot read the ${what} (${ioReason(error)})`);
  }
  try {
    return { text, json: JSON.parse(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text) };
  } catch (error) {
    throw new CliError(EXIT.USAGE, `${file}: the ${what} is not valid JSON (${oneLine(error)})`);
  }
}

/** `mismatch (missing-hit 144, face 2)`: a count with its reasons, over every comparison of a scene. */
function counted(cmp: SceneComparison, verdict: 'mismatch' | 'ambiguous'): string {
  const by = new Map<string, number>();
  for (const c of cmp.comparisons) {
    for (const [k, n] of Object.entries(verdict === 'mismatch' ? c.mismatchByReason : c.ambiguousByReason)) {
      by.set(k, (by.get(k) ?? 0) + n);
    }
  }
  const reasons = [...by].sort((a, b) => b[1] - a[1]).map(([k, n]) => `${k} ${n}`).join(', ');
  return `${cmp[verdict]} ${verdict}${reasons ? ` (${reasons})` : ''}`;
}

/**
 * A result file parsed against its scene, or the one line saying why it does not answer it: a
 * result that names another scene (`"scene"`, the SHA-256 of the scene file) is one of those.
 */
async function readResult(file: string, scene: Scene, sceneText: string, lenient: boolean, warn: (m: string) => void): Promise<ParsedResult | string> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    return `${file}: cannot read the result (${ioReason(error)})`;
  }
  try {
    const parsed = parseResultText(text, scene);
    const digest = sceneDigest(sceneText);
    if (parsed.scene !== undefined && parsed.scene !== digest) {
      return `${file}: result is for another scene (its "scene" is ${parsed.scene}; this scene file is ${digest})`;
    }
    if (parsed.unknownFields.length > 0) {
      const fields = parsed.unknownFields.join(', ');
      if (!lenient) {
        return `${file}: unknown field(s) ${fields} (a result has backend, adapter, rays, pairs, allPairs; --lenient ignores the rest)`;
      }
      warn(`webgpu-obb: warning: ${file}: ignoring unknown field(s) ${fields}\n`);
    }
    return parsed;
  } catch (error) {
    if (error instanceof ResultError) {
      return `${file}: ${oneLine(error)}`;
    }
    throw error;
  }
}

async function judge(args: KitArgs, io: CliIo): Promise<number> {
  const { positionals: [, first, second, ...extra], values } = args;
  only('judge', values, ['precision', 'unit-roundoff', 'junit', 'html', 'lenient', 'quiet']);
  if (first === undefined || second === undefined) {
    throw new CliError(EXIT.USAGE, 'judge needs a scene and a result: webgpu-obb judge SCENE.json RESULT.json (or MANIFEST.json RESULTS_DIR)');
  }
  if (extra.length > 0) {
    throw new CliError(EXIT.USAGE, `unexpected argument '${extra[0] ?? ''}'`);
  }
  const options = judgeOptions(values);
  const junit = values['junit'] as string | undefined;
  const html = values['html'] as string | undefined;
  await checkReportPath('--junit', junit);
  await checkReportPath('--html', html);
  const lenient = values['lenient'] === true;
  const progress = values['quiet'] ? (): void => {} : (m: string): void => io.err(`${m}\n`);
  const { json } = await readJson(first, 'scene or manifest');
  const groups: JudgedGroup[] = [];
  let title: string;
  if (isManifest(json)) {
    let manifest;
    try {
      manifest = parseManifest(json);
    } catch (error) {
      throw new CliError(EXIT.USAGE, `${first}: ${oneLine(error)}`);
    }
    const base = dirname(resolve(first));
    title = `judge of ${second} (${manifest.suites.length} groups, seed ${manifest.seed}, ${manifest.size})`;
    for (const suite of manifest.suites) {
      const t0 = performance.now();
      const { scene, text } = await readScene(join(base, suite.scene));
      const parsed = await readResult(join(second, suite.result), scene, text, lenient, io.err);
      if (typeof parsed === 'string') {
        progress(`${suite.name}: NOT JUDGED: ${parsed}`);
        groups.push({ name: suite.name, error: parsed, seconds: (performance.now() - t0) / 1000 });
        continue;
      }
      // One summary line per group; of its phases only the long ones' counts and ETA.
      const periodic = (m: string, isPeriodic?: boolean): void => {
        if (isPeriodic) {
          progress(`${suite.name}: ${m}`);
        }
      };
      const comparison = withinReferenceCapacity(join(base, suite.scene), () => judgeScene(scene, parsed, { ...options, onProgress: periodic }));
      groups.push({ name: suite.name, comparison, seconds: (performance.now() - t0) / 1000 });
      progress(`${suite.name}: ${comparison.ok ? 'ok' : 'FAIL'}, ${counted(comparison, 'mismatch')}, ${counted(comparison, 'ambiguous')} in ${comparison.total} cases`);
    }
    const judged = groups.filter((g) => g.comparison);
    const mismatch = judged.reduce((s, g) => s + g.comparison!.mismatch, 0);
    const ambiguous = judged.reduce((s, g) => s + g.comparison!.ambiguous, 0);
    const total = judged.reduce((s, g) => s + g.comparison!.total, 0);
    const errors = groups.length - judged.length;
    io.out(`${groups.map((g) => g.comparison ? `${g.comparison.ok ? 'ok  ' : 'FAIL'} ${g.name}: ${counted(g.comparison, 'mismatch')}, ${counted(g.comparison, 'ambiguous')} in ${g.comparison.total} cases` : `ERR  ${g.name}: ${g.error ?? ''}`).join('\n')}\n` +
      `${mismatch === 0 && errors === 0 ? 'OK' : 'FAIL'}: ${mismatch} mismatch, ${ambiguous} ambiguous in ${total} cases over ${judged.length} groups${errors ? `; ${errors} group(s) not judged (missing or malformed result)` : ''}\n`);
    await writeReports(groups, junit, html, title, progress);
    return errors > 0 ? EXIT.USAGE : mismatch > 0 ? EXIT.FAILED : EXIT.OK;
  }
  const { scene, text: sceneText } = await readScene(first);
  progress(`scene: ${first} (${describeScene(scene)})`);
  const parsed = await readResult(second, scene, sceneText, lenient, io.err);
  if (typeof parsed === 'string') {
    await writeReports([{ name: first, error: parsed }], junit, html, `judge of ${second}`, progress);
    throw new CliError(EXIT.USAGE, parsed);
  }
  const t0 = performance.now();
  const comparison = withinReferenceCapacity(first, () => judgeScene(scene, parsed, { ...options, onProgress: progress }));
  const who = parsed.adapter || parsed.backend || second;
  io.out(`${formatSceneComparison(first, scene, who, comparison, { label: 'implementation', who: 'the implementation' })}\n`);
  title = `judge of ${second}`;
  await writeReports([{ name: first, comparison, seconds: (performance.now() - t0) / 1000 }], junit, html, title, progress);
  return comparison.ok ? EXIT.OK : EXIT.FAILED;
}

async function cases(args: KitArgs, io: CliIo, version: string): Promise<number> {
  const { positionals: [, dir, ...extra], values } = args;
  only('cases', values, ['suite', 'seed', 'size', 'quiet']);
  if (dir === undefined) {
    throw new CliError(EXIT.USAGE, 'cases needs a folder: webgpu-obb cases DIR');
  }
  if (extra.length > 0) {
    throw new CliError(EXIT.USAGE, `unexpected argument '${extra[0] ?? ''}'`);
  }
  const progress = values['quiet'] ? (): void => {} : (m: string): void => io.err(`${m}\n`);
  const seedText = values['seed'] as string | undefined;
  const seed = seedText === undefined ? undefined : Number(seedText);
  const size = values['size'] as string | undefined;
  let built;
  if (size === 'full') {
    // One synchronous call of a second or more, with nothing to count: say what it is doing.
    progress('cases: building the full suites (random groups 10-20x larger)…');
  }
  try {
    built = caseFiles({
      ...(seed === undefined ? {} : { seed }), ...(size === undefined ? {} : { size: size as 'quick' | 'full' }),
      ...(values['suite'] ? { suites: values['suite'] as string[] } : {}), generator: `webgpu-obb ${version}`,
    });
  } catch (error) {
    throw new CliError(EXIT.USAGE, oneLine(error).replace(/^seed/, '--seed').replace(/^size/, '--size'));
  }
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    throw new CliError(EXIT.USAGE, `${dir}: cannot make the folder (${ioReason(error)})`);
  }
  let bytes = 0;
  // Scene files first, the manifest last: a folder with a manifest has all its scenes.
  const [manifest, ...scenes] = built.files;
  const ordered = [...scenes, manifest!];
  const tick = phaseProgress(progress, `cases: writing ${dir}`, 'files', 'bytes');
  for (const [k, f] of ordered.entries()) {
    tick?.(k, ordered.length, bytes);
    await writeFileAtomic(join(dir, f.name), f.text, `${join(dir, f.name)}: cannot write`);
    bytes += f.text.length;
  }
  for (const s of built.manifest.suites) {
    progress(`${s.name}: ${s.boxes} boxes${s.rays !== undefined ? `, ${s.rays} rays` : ''}${s.pairs !== undefined ? `, ${s.pairs} pairs` : ''}${s.allPairs ? ', all pairs' : ''}`);
  }
  io.out(`wrote ${built.manifest.suites.length} scene files and manifest.json to ${dir} (${(bytes / 1e6).toFixed(1)} MB, seed ${built.manifest.seed}, ${built.manifest.size})` +
    `${built.manifest.notExported.length ? `; not exported (the scene format cannot say them): ${built.manifest.notExported.map((x) => x.name).join(', ')}` : ''}\n` +
    `next: run each scene with your implementation, write NAME.result.json files (the result format) into a folder, then: webgpu-obb judge ${join(dir, 'manifest.json')} RESULTS_DIR\n`);
  return EXIT.OK;
}

/** Runs `judge` or `cases` (argv without node and the script); returns the exit code. */
export async function runKit(argv: readonly string[], io: CliIo, version: string): Promise<number> {
  const args = parseKit(argv);
  return args.positionals[0] === 'judge' ? judge(args, io) : cases(args, io, version);
}
