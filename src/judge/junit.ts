/**
 * A judged run as JUnit XML, the format CI systems read (GitHub Actions reporters, GitLab,
 * Jenkins): one `<testcase>` per judged group, failed by its mismatches (each with its reason and
 * detail), an `<error>` when the group's result file could not be judged (malformed, missing).
 *
 * Browser- and Node-safe.
 *
 * @example
 * import { writeFile } from 'node:fs/promises'; // in Node
 * await writeFile('judge.xml', junitReport([{ name: 'rays/grazing-edges', comparison }]));
 */
import { FACE_NONE, SAT_AXIS_NAMES } from '../constants.ts';
import type { CaseAnswer, CaseReport } from '../compare/compare.ts';
import type { SceneComparison } from './judge.ts';

/** One judged group: its comparison, or why it could not be judged. */
export interface JudgedGroup {
  readonly name: string;
  readonly comparison?: SceneComparison;
  /** A malformed or missing result file (exit 2 when alone). */
  readonly error?: string;
  readonly seconds?: number;
}

/** XML 1.0 text: the five entities, and characters XML cannot hold dropped. */
export function xmlEscape(s: string): string {
  return s
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
    .replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');
}

function reasons(r: Readonly<Record<string, number>>): string {
  return Object.entries(r).map(([k, v]) => `${k} ${v}`).join(', ');
}

/**
 * A comparator text in the judge's words: the judged code is "the implementation" (the
 * comparator, written to prove this library's own kernels, says "GPU").
 *
 * @example
 * judgeWording('t GPU 9.6 vs reference 9.5') // 't implementation 9.6 vs reference 9.5'
 */
export function judgeWording(s: string): string {
  return s.replace(/\bon the GPU\b/g, 'in the implementation').replace(/\bthe GPU\b/g, 'the implementation').replace(/\bGPU\b/g, 'implementation');
}

/**
 * A face id as text: `face 1 (−u)` (2·axis + 1 when the outward normal is −axis), `no face`.
 *
 * @example
 * faceName(2) // 'face 2 (+v)'
 */
export function faceName(face: number): string {
  return face === FACE_NONE ? 'no face' : face >= 0 && face <= 5 ? `face ${face} (${face & 1 ? '−' : '+'}${'uvw'[face >> 1]})` : `face ${face} (not a face id)`;
}

/**
 * An answer on one line, naming what was not reported: `box 3, t 9.5, face 0 (+u)`, `miss`,
 * `overlap, gap not reported, axis not reported`.
 *
 * @example
 * answerText({ kind: 'ray', box: -1 }) // 'miss'
 */
export function answerText(a: CaseAnswer, num: (x: number) => string = String): string {
  if (a.kind === 'ray') {
    if (a.box < 0) {
      return 'miss';
    }
    return [`box ${a.box}`, a.t === undefined ? 't not reported' : `t ${num(a.t)}`, a.face === undefined ? 'face not reported' : faceName(a.face),
      ...(a.inside ? ['inside'] : [])].join(', ');
  }
  return [a.overlap ? 'overlap' : 'separate', a.gap === undefined ? 'gap not reported' : `gap ${num(a.gap)}`,
    a.axis === undefined ? 'axis not reported' : `axis ${SAT_AXIS_NAMES[a.axis] ?? a.axis}`].join(', ');
}

/** A comparison's listed cases of one verdict, grouped by reason (most cases first). */
export function casesByReason(cases: readonly CaseReport[], verdict: CaseReport['verdict'], byReason: Readonly<Record<string, number>>): CaseReport[] {
  const listed = cases.filter((k) => k.verdict === verdict);
  const order = [...new Set(listed.map((k) => k.reason))].sort((x, y) => (byReason[y] ?? 0) - (byReason[x] ?? 0));
  return order.flatMap((r) => listed.filter((k) => k.reason === r));
}

/**
 * The JUnit XML of a judged run (`suite` names the whole run).
 *
 * @example
 * junitReport([{ name: 'random/rays', comparison }], 'my-kernel vs webgpu-obb')
 */
export function junitReport(groups: readonly JudgedGroup[], suite = 'webgpu-obb judge'): string {
  const failures = groups.filter((g) => g.comparison && !g.comparison.ok).length;
  const errors = groups.filter((g) => !g.comparison).length;
  const time = groups.reduce((s, g) => s + (g.seconds ?? 0), 0);
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="${xmlEscape(suite)}" tests="${groups.length}" failures="${failures}" errors="${errors}" time="${time.toFixed(3)}">`,
    `  <testsuite name="${xmlEscape(suite)}" tests="${groups.length}" failures="${failures}" errors="${errors}" skipped="0" time="${time.toFixed(3)}">`,
  ];
  for (const g of groups) {
    const slash = g.name.indexOf('/');
    const classname = slash > 0 ? g.name.slice(0, slash) : 'scene';
    lines.push(`    <testcase classname="${xmlEscape(classname)}" name="${xmlEscape(g.name)}" time="${(g.seconds ?? 0).toFixed(3)}">`);
    const c = g.comparison;
    if (!c) {
      lines.push(`      <error type="result-file" message="${xmlEscape(judgeWording(g.error ?? 'not judged'))}"/>`);
    } else {
      const summary = c.comparisons.map((x) =>
        `${x.family}: ${x.total} cases, ${x.agree} agree, ${x.ambiguous} ambiguous${x.ambiguous ? ` (${reasons(x.ambiguousByReason)})` : ''}, ${x.mismatch} mismatch${x.mismatch ? ` (${reasons(x.mismatchByReason)})` : ''}`);
      if (!c.ok) {
        const detail = c.comparisons.flatMap((x) => casesByReason(x.cases, 'mismatch', x.mismatchByReason).map((k) =>
          `${x.family} ${k.reason}: ${judgeWording(k.detail)}` +
          (k.answer ? `\n  implementation: ${answerText(k.answer)}` : '') + (k.expected ? `\n  reference: ${answerText(k.expected)}` : '') +
          `\n  input: ${JSON.stringify(k.input)}`));
        lines.push(`      <failure type="mismatch" message="${xmlEscape(`${c.mismatch} mismatch in ${c.total} cases (${c.comparisons.map((x) => reasons(x.mismatchByReason)).filter(Boolean).join(', ')})`)}">${xmlEscape(detail.join('\n'))}</failure>`);
      }
      lines.push(`      <system-out>${xmlEscape(summary.join('\n'))}</system-out>`);
    }
    lines.push('    </testcase>');
  }
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}
