/**
 * The judge's reports on hand-made cases (the comparator's `answer` and `expected` filled in by
 * hand): the HTML draws the implementation's answer beside the reference's, names what was not
 * reported, embeds each case's input as JSON, gives every reason a view when there are more cases
 * than the limit, and never calls the implementation "GPU"; the JUnit report lists the answers.
 */
import { describe, expect, it } from 'vitest';
import type { CaseReport, Comparison } from '../../src/compare/compare.ts';
import type { Vec3 } from '../../src/core/types.ts';
import { caseView, htmlReport, viewsOf, VIEW_COLOURS, type CaseView } from '../../src/judge/html.ts';
import { junitReport, type JudgedGroup } from '../../src/judge/junit.ts';

const I: [Vec3, Vec3, Vec3] = [[1, 0, 0], [0, 1, 0], [0, 0, 1]];
const box = (index: number, center: Vec3, h = 1): Record<string, unknown> => ({ index, center, halfExtents: [h, h, h], axes: I });

/** A ray along +x (not unit) at y 0.2, z 0.1, hitting box 0 (centre 0, half extent 1) at t 4 on its −u face. */
const rayInput = { ray: { index: 7, origin: [-5, 0.2, 0.1], direction: [2, 0, 0], maxDistance: null }, boxes: [box(0, [0, 0, 0]), box(1, [0, 0, 6])], solid: true };
/** Two unit boxes 3 apart along x: separated by 1 on A0. */
const pairInput = { a: box(0, [0, 0, 0]), b: box(1, [3, 0, 0]) };

function rayCase(over: Partial<CaseReport>): CaseReport {
  return { index: 7, verdict: 'mismatch', reason: 't-error', detail: 'ray 7: box 0: t GPU 4.5 vs reference 4', input: rayInput, ...over };
}
function pairCase(over: Partial<CaseReport>): CaseReport {
  return { index: 2, verdict: 'mismatch', reason: 'gap-error', detail: 'pair 2 (0, 1): GPU gap 0.5 on A1, reference 1 on A0', input: pairInput, ...over };
}

function comparison(family: string, cases: readonly CaseReport[]): Comparison {
  const byReason = (v: string): Record<string, number> => {
    const out: Record<string, number> = {};
    for (const k of cases.filter((c) => c.verdict === v)) {
      out[k.reason] = (out[k.reason] ?? 0) + 1;
    }
    return out;
  };
  const mismatch = cases.filter((c) => c.verdict === 'mismatch').length;
  const ambiguous = cases.filter((c) => c.verdict === 'ambiguous').length;
  return { family, total: 1000, agree: 1000 - mismatch - ambiguous, ambiguous, mismatch, ambiguousByReason: byReason('ambiguous'), mismatchByReason: byReason('mismatch'), cases, worstRatio: 0.5, ok: mismatch === 0 };
}

function group(name: string, ...comparisons: Comparison[]): JudgedGroup {
  const mismatch = comparisons.reduce((s, c) => s + c.mismatch, 0);
  return {
    name,
    comparison: { comparisons, total: comparisons.reduce((s, c) => s + c.total, 0), mismatch, ambiguous: comparisons.reduce((s, c) => s + c.ambiguous, 0), ok: mismatch === 0, unitRoundoff: 2 ** -24 },
  };
}

const near = (a: Vec3, b: readonly number[]): boolean => a.every((x, k) => Math.abs(x - b[k]!) < 1e-12);
const linesOf = (v: CaseView, colour: string): (readonly [Vec3, Vec3, string])[] => v.lines.filter((l) => l[2] === colour);
const pointsOf = (v: CaseView, colour: string): Vec3[] => v.points.filter((p) => p[1] === colour).map((p) => p[0]);
/** The unit direction of a segment. */
const along = (l: readonly [Vec3, Vec3, string]): Vec3 => {
  const d: Vec3 = [l[1][0] - l[0][0], l[1][1] - l[0][1], l[1][2] - l[0][2]];
  const n = Math.hypot(...d);
  return [d[0] / n, d[1] / n, d[2] / n];
};

describe('views of a ray case', () => {
  it('the implementation\'s hit point and face normal beside the reference\'s, in their own colours', () => {
    const v = caseView('g', 'closestHit', rayCase({
      answer: { kind: 'ray', box: 0, t: 4.5, face: 0, inside: false },
      expected: { kind: 'ray', box: 0, t: 4, face: 1, inside: false },
    }));
    // origin + t · unit direction, the direction normalised from (2, 0, 0).
    expect(pointsOf(v, VIEW_COLOURS.implementation)).toEqual([[-0.5, 0.2, 0.1]]);
    expect(pointsOf(v, VIEW_COLOURS.reference)).toEqual([[-1, 0.2, 0.1]]);
    // Each normal an arrow (shaft and two head strokes) standing on its point, along its face's normal.
    const impl = linesOf(v, VIEW_COLOURS.implementation);
    const ref = linesOf(v, VIEW_COLOURS.reference);
    expect(impl).toHaveLength(3);
    expect(ref).toHaveLength(3);
    expect(near(impl[0]![0], [-0.5, 0.2, 0.1]) && near(along(impl[0]!), [1, 0, 0])).toBe(true);
    expect(near(ref[0]![0], [-1, 0.2, 0.1]) && near(along(ref[0]!), [-1, 0, 0])).toBe(true);
    expect(v.notes).toEqual(['reference: box 0, t 4, face 1 (−u)', 'implementation: box 0, t 4.5, face 0 (+u)']);
    expect(v.detail).toBe('ray 7: box 0: t implementation 4.5 vs reference 4');
    expect(v.boxes.map((b) => [b.index, b.colour])).toEqual([[0, VIEW_COLOURS.boxA], [1, VIEW_COLOURS.boxOther]]);
  });

  it('with no expected answer, the reference\'s hit and normal come from rayObb', () => {
    const v = caseView('g', 'closestHit', rayCase({ answer: { kind: 'ray', box: 1, t: 6, face: 5 } }));
    expect(pointsOf(v, VIEW_COLOURS.reference)).toEqual([[-1, 0.2, 0.1]]);
    expect(near(along(linesOf(v, VIEW_COLOURS.reference)[0]!), [-1, 0, 0])).toBe(true);
    expect(pointsOf(v, VIEW_COLOURS.implementation)).toEqual([[1, 0.2, 0.1]]);
    // Face 5 is −w of box 1.
    expect(near(along(linesOf(v, VIEW_COLOURS.implementation)[0]!), [0, 0, -1])).toBe(true);
    expect(v.boxes.map((b) => [b.index, b.colour])).toEqual([[0, VIEW_COLOURS.boxOther], [1, VIEW_COLOURS.boxB]]);
  });

  it('a miss is a miss in the caption; what was not reported is not drawn and is named', () => {
    const miss = caseView('g', 'closestHit', rayCase({ reason: 'wrong-box', answer: { kind: 'ray', box: -1 }, expected: { kind: 'ray', box: 0, t: 4, face: 1, inside: false } }));
    expect(miss.notes).toContain('implementation: miss');
    expect(pointsOf(miss, VIEW_COLOURS.implementation)).toEqual([]);
    expect(linesOf(miss, VIEW_COLOURS.implementation)).toEqual([]);

    const partial = caseView('g', 'closestHit', rayCase({ answer: { kind: 'ray', box: 0 }, expected: { kind: 'ray', box: 0, t: 4, face: 1, inside: false } }));
    expect(partial.notes).toContain('implementation: box 0, t not reported, face not reported');
    expect(pointsOf(partial, VIEW_COLOURS.implementation)).toEqual([]);
    expect(linesOf(partial, VIEW_COLOURS.implementation)).toEqual([]);

    // A face with no t: its normal stands on the centre of that face.
    const faceOnly = caseView('g', 'closestHit', rayCase({ answer: { kind: 'ray', box: 0, face: 3 } }));
    expect(faceOnly.notes).toContain('implementation: box 0, t not reported, face 3 (−v)');
    const l = linesOf(faceOnly, VIEW_COLOURS.implementation);
    expect(near(l[0]![0], [0, -1, 0]) && near(along(l[0]!), [0, -1, 0])).toBe(true);
  });
});

describe('views of a pair case', () => {
  it('the implementation\'s axis beside the reference\'s, with its gap and overlap in the caption', () => {
    const v = caseView('g', 'obbPairs', pairCase({
      answer: { kind: 'pair', overlap: false, gap: 0.5, axis: 1 },
      expected: { kind: 'pair', overlap: false, gap: 1, axis: 0 },
    }));
    expect(v.notes).toEqual(['reference: separate, gap 1 on A0', 'implementation: separate, gap 0.5, on A1 (separation along it -2)']);
    expect(near(along(linesOf(v, VIEW_COLOURS.ray)[0]!), [1, 0, 0])).toBe(true);
    const impl = linesOf(v, VIEW_COLOURS.implementation);
    expect(impl).toHaveLength(1);
    expect(Math.abs(along(impl[0]!)[1])).toBeCloseTo(1, 12);
    expect(pointsOf(v, VIEW_COLOURS.implementation)).toHaveLength(1);
  });

  it('a decision-only answer: overlap named, gap and axis not reported, nothing of it drawn', () => {
    const v = caseView('g', 'allPairs', pairCase({ reason: 'missing', answer: { kind: 'pair', overlap: true } }));
    expect(v.notes).toEqual(['reference: separate, gap 1 on A0', 'implementation: overlap, gap not reported, axis not reported']);
    expect(linesOf(v, VIEW_COLOURS.implementation)).toEqual([]);
  });
});

describe('which cases a report draws', () => {
  // 30 mismatches of one reason listed first by index, then two rarer reasons; ambiguous likewise.
  const many: CaseReport[] = [
    ...Array.from({ length: 30 }, (_, k) => rayCase({ index: k, reason: 'wrong-box' })),
    rayCase({ index: 40, reason: 'face' }), rayCase({ index: 41, reason: 'face' }), rayCase({ index: 50, reason: 't-error' }),
    ...Array.from({ length: 10 }, (_, k) => rayCase({ index: 60 + k, verdict: 'ambiguous', reason: 'grazing' })),
    rayCase({ index: 80, verdict: 'ambiguous', reason: 'closest-tie' }),
  ];
  const g = group('many', comparison('closestHit', many));

  it('every reason gets a view before any gets a second, mismatches first, most cases first', () => {
    const views = viewsOf(g);
    expect(views.map((v) => `${v.verdict} ${v.reason}`)).toEqual([
      ...Array<string>(9).fill('mismatch wrong-box'), 'mismatch face', 'mismatch face', 'mismatch t-error',
      ...Array<string>(3).fill('ambiguous grazing'), 'ambiguous closest-tie',
    ]);
    // Fewer views than reasons: the reasons with most cases.
    expect(viewsOf(g, { mismatchViews: 2, ambiguousViews: 0 }).map((v) => v.reason)).toEqual(['wrong-box', 'face']);
    // The page says per reason how many cases there are and how many are drawn.
    const html = htmlReport([g]);
    expect(html).toContain('wrong-box</span>: 30 cases, 9 drawn');
    expect(html).toContain('t-error</span>: 1 case</h3>');
    expect(html.match(/<canvas [^>]*data-view=/g)).toHaveLength(16);
  });

  it('cases with nothing to draw take no view', () => {
    const lidar = rayCase({ index: 3, reason: 'returns', input: { box: 3, channel: 1 } });
    expect(viewsOf(group('l', comparison('lidar', [lidar, rayCase({ index: 4 })])))).toHaveLength(1);
  });
});

describe('the HTML page', () => {
  const cases = [
    rayCase({ answer: { kind: 'ray', box: 0, t: 4.5, face: 0, inside: false }, expected: { kind: 'ray', box: 0, t: 4, face: 1, inside: false } }),
    rayCase({ index: 9, reason: 'wrong-box', detail: 'ray 9: box 5 on the GPU only </script><b>', input: { ...rayInput, note: '</script><img src=x>' }, answer: { kind: 'ray', box: -1 } }),
  ];
  const groups: JudgedGroup[] = [
    group('rays', comparison('closestHit', cases)),
    group('pairs', comparison('obbPairs', [pairCase({ answer: { kind: 'pair', overlap: false, gap: 0.5, axis: 1 } })])),
    { name: 'broken', error: 'broken.result.json: the GPU wrote nothing' },
  ];
  const html = htmlReport(groups, { title: 'report test' });

  it('embeds the views with the implementation\'s answers, and a legend', () => {
    const json = /<script id="views" type="application\/json">([^]*?)<\/script>/.exec(html)![1]!;
    const views = JSON.parse(json) as CaseView[];
    expect(views).toHaveLength(3);
    expect(pointsOf(views[0]!, VIEW_COLOURS.implementation)).toEqual([[-0.5, 0.2, 0.1]]);
    expect(linesOf(views[2]!, VIEW_COLOURS.implementation)).toHaveLength(1);
    expect(html).toContain('implementation: box 0, t 4.5, face 0 (+u)');
    expect(html).toContain('implementation: miss');
    expect(html).toMatch(/class="legend">.*#e040fb.*the implementation&apos;s hit, face normal or axis/);
  });

  it('each view has its case\'s input as JSON under it, escaped, and parsing back to the input', () => {
    const inputs = [...html.matchAll(/<details><summary>input of case (\d+) \(JSON\)<\/summary><pre data-input="(\d+)">([^<]*)<\/pre><\/details>/g)];
    expect(inputs.map((m) => [m[1], m[2]])).toEqual([['7', '0'], ['9', '1'], ['2', '2']]);
    const unescape = (s: string): string => s.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&apos;/g, '\'').replace(/&amp;/g, '&');
    expect(JSON.parse(unescape(inputs[0]![3]!))).toEqual(rayInput);
    expect(JSON.parse(unescape(inputs[1]![3]!))).toEqual({ ...rayInput, note: '</script><img src=x>' });
    expect(JSON.parse(unescape(inputs[2]![3]!))).toEqual(pairInput);
    // Lists of numbers on one line, for a repro scene.
    expect(inputs[0]![3]).toContain('&quot;origin&quot;: [-5, 0.2, 0.1]');
    // Nothing a case carries can end a script element or open a tag.
    expect(html).not.toContain('<img');
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html).not.toMatch(/<script[^>]+src=|<link[^>]+href=|https?:\/\//);
  });

  it('never calls the implementation "GPU", here or in the JUnit report', () => {
    expect(html).not.toMatch(/\bGPU\b/);
    expect(html).toContain('ray 9: box 5 in the implementation only');
    expect(html).toContain('not judged: broken.result.json: the implementation wrote nothing');
    const xml = junitReport(groups, 'report test');
    expect(xml).not.toMatch(/\bGPU\b/);
  });
});

describe('the JUnit report', () => {
  it('lists failing cases by reason (most first) with the implementation\'s and the reference\'s answers', () => {
    const cases = [
      rayCase({ index: 1, reason: 't-error', answer: { kind: 'ray', box: 0, t: 4.5, face: 1 }, expected: { kind: 'ray', box: 0, t: 4, face: 1, inside: false } }),
      rayCase({ index: 2, reason: 'face', detail: 'ray 2: face', answer: { kind: 'ray', box: 0, t: 4 }, expected: { kind: 'ray', box: 0, t: 4, face: 1, inside: false } }),
      rayCase({ index: 3, reason: 'face', detail: 'ray 3: face' }),
    ];
    const xml = junitReport([group('rays', comparison('closestHit', cases))]);
    const failure = /<failure [^>]*>([^]*?)<\/failure>/.exec(xml)![1]!;
    expect(failure.split('\n').filter((l) => !l.startsWith(' '))).toEqual([
      'closestHit face: ray 2: face', 'closestHit face: ray 3: face', 'closestHit t-error: ray 7: box 0: t implementation 4.5 vs reference 4',
    ]);
    expect(failure).toContain('\n  implementation: box 0, t 4, face not reported\n  reference: box 0, t 4, face 1 (−u)\n');
    expect(failure).toContain('\n  implementation: box 0, t 4.5, face 1 (−u)\n');
  });
});
