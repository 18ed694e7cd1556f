/**
 * The published SAT regression case (../shared/fixtures/seed-sat-case.json): two boxes that
 * overlap on all six face normals but are separated along the edge-cross axis A1xB2. The face
 * axes alone must report contact, the full 15-axis test separation, and an independent
 * corner-projection oracle must agree with the reported gap.
 */
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SAT_AXIS_NAMES } from '../../../src/constants.ts';
import { toObb } from '../../../src/core/canonical.ts';
import type { BoxInput, Obb } from '../../../src/core/types.ts';
import { cornerProjectionGap } from '../../../src/reference/cornerOracle.ts';
import { obbObbSat, satAxis } from '../../../src/reference/query/obbObbSat.ts';

interface SatFixture {
  readonly boxes: readonly BoxInput[];
  readonly pairs: readonly (readonly [number, number])[];
  readonly expected: {
    readonly fullSat: { readonly overlap: boolean; readonly axis: string; readonly gap: number; readonly gapTolerance: number };
    readonly faceAxesOnly: { readonly overlap: boolean; readonly largestGap: number; readonly gapTolerance: number };
    readonly cornerProjectionGapOnA1xB2: number;
  };
}

const fixtureUrl = new URL('../../fixtures/seed-sat-case.json', import.meta.url);
const fixturePath = fileURLToPath(fixtureUrl);

function load(): { fixture: SatFixture; a: Obb; b: Obb } {
  const fixture = JSON.parse(readFileSync(fixturePath, 'utf8')) as SatFixture;
  const [ia, ib] = [0, 1].map((i) => {
    const input = fixture.boxes[i];
    if (input === undefined) {
      throw new Error(`fixture has no box ${i}`);
    }
    return toObb(input, i);
  }) as [Obb, Obb];
  return { fixture, a: ia, b: ib };
}

/** 'AixBj' of the (a, b) order is 'AjxBi' of the (b, a) order; face axes swap A <-> B. */
function swappedAxisName(name: string): string {
  const m = /^A(\d)xB(\d)$/.exec(name);
  if (m) {
    return `A${m[2]}xB${m[1]}`;
  }
  return name.startsWith('A') ? `B${name.slice(1)}` : `A${name.slice(1)}`;
}

describe('published SAT case (seed-sat-case.json)', () => {
  it('the fixture file exists where the test looks for it', () => {
    expect(existsSync(fixturePath), fixturePath).toBe(true);
  });

  it('face axes alone report overlap, with largest gap ≈ -0.0076245', () => {
    const { fixture, a, b } = load();
    const e = fixture.expected.faceAxesOnly;
    const r = obbObbSat(a, b, { faceOnly: true });
    expect(r.overlap).toBe(true);
    expect(e.overlap).toBe(true);
    expect(r.gap).toBeLessThan(0);
    expect(Math.abs(r.gap - -0.0076245)).toBeLessThanOrEqual(2e-6);
    expect(Math.abs(r.gap - e.largestGap)).toBeLessThanOrEqual(e.gapTolerance);
    // The face-only answer comes from a face axis.
    expect(r.axis).toBeLessThan(6);
  });

  it('the full test reports separation on A1xB2 with gap ≈ 0.1467145', () => {
    const { fixture, a, b } = load();
    const e = fixture.expected.fullSat;
    const r = obbObbSat(a, b);
    expect(r.overlap).toBe(false);
    expect(r.overlap).toBe(e.overlap);
    expect(r.axis).toBe(11);
    expect(r.axisName).toBe('A1xB2');
    expect(r.axisName).toBe(e.axis);
    expect(SAT_AXIS_NAMES[r.axis]).toBe(r.axisName);
    expect(Math.abs(r.gap - 0.1467145)).toBeLessThanOrEqual(2e-6);
    expect(Math.abs(r.gap - e.gap)).toBeLessThanOrEqual(e.gapTolerance);
  });

  it('the corner-projection oracle on satAxis(a, b, 11) agrees with the gap within 1e-6', () => {
    const { fixture, a, b } = load();
    const r = obbObbSat(a, b);
    const oracle = cornerProjectionGap(a, b, satAxis(a, b, 11));
    expect(Math.abs(oracle - r.gap)).toBeLessThanOrEqual(1e-6);
    expect(Math.abs(oracle - fixture.expected.cornerProjectionGapOnA1xB2)).toBeLessThanOrEqual(2e-6);
    // The oracle also sees the face axes overlap (it is independent of the support-radius code).
    for (let id = 0; id < 6; id++) {
      expect(cornerProjectionGap(a, b, satAxis(a, b, id)), `axis ${SAT_AXIS_NAMES[id]}`).toBeLessThan(0);
    }
  });

  it('swapping A and B keeps the decision and the gap, and maps A1xB2 to A2xB1', () => {
    const { a, b } = load();
    const ab = obbObbSat(a, b);
    const ba = obbObbSat(b, a);
    expect(ba.overlap).toBe(ab.overlap);
    expect(ba.axis).toBe(6 + 3 * 2 + 1);
    expect(ba.axisName).toBe('A2xB1');
    expect(ba.axisName).toBe(swappedAxisName(ab.axisName));
    expect(Math.abs(ba.gap - ab.gap)).toBeLessThanOrEqual(1e-12);
    const fab = obbObbSat(a, b, { faceOnly: true });
    const fba = obbObbSat(b, a, { faceOnly: true });
    expect(fba.overlap).toBe(fab.overlap);
    expect(fba.axisName).toBe(swappedAxisName(fab.axisName));
    expect(Math.abs(fba.gap - fab.gap)).toBeLessThanOrEqual(1e-12);
  });

  it('the fixture pairs (0, 1) and (1, 0) give the same boolean', () => {
    const { fixture, a, b } = load();
    const boxes = [a, b];
    const results = fixture.pairs.map(([i, j]) => obbObbSat(boxes[i] as Obb, boxes[j] as Obb));
    expect(results).toHaveLength(2);
    expect(results.every((r) => r.overlap === false)).toBe(true);
  });
});
