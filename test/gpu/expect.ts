/** Assertions shared by the GPU test files. */
import { expect } from 'vitest';
import type { ComparisonSummary } from './page/shared.ts';

/**
 * A comparison with zero mismatches, every case accounted for, and at most
 * `maxAmbiguousFraction` ambiguous (random suites: 1e-3; adversarial suites are ambiguous by
 * design and pass 1). Prints the report so ambiguous counts are always visible.
 */
export function expectClean(s: ComparisonSummary, maxAmbiguousFraction = 1): void {
  console.log(s.report);
  expect(s.mismatch, s.report).toBe(0);
  expect(s.agree + s.ambiguous).toBe(s.total);
  expect(s.ambiguous / Math.max(1, s.total)).toBeLessThanOrEqual(maxAmbiguousFraction);
}
