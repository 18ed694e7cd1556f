/**
 * What bench/run.ts passes to every workload in the page, and what comes back. Plain JSON both
 * ways (it crosses the DevTools protocol).
 */
import type { Row, RunBudget } from './measure.ts';

export interface BenchConfig {
  readonly full: boolean;
  /** How long each measurement runs. */
  readonly budget: RunBudget;
  /** Builds (upload, BVH, Rapier world): fewer runs, they are slow and allocate a lot. */
  readonly buildBudget: RunBudget;
  /**
   * Ray–box tests per timed run that a brute-force CPU implementation (reference, three) gets:
   * it runs the first `floor(cpuTestsPerRun / boxes)` rays (at least 1) of the workload, and its
   * rays/s are comparable because every ray of a scene costs it the same.
   */
  readonly cpuTestsPerRun: number;
  /** All-pairs: brute-force CPU implementations run only when n(n − 1)/2 is at most this. */
  readonly cpuPairsLimit: number;
  /** Only these implementations (all when undefined). */
  readonly implementations?: readonly string[];
}

/** A workload's rows, and printable notes (disagreements with the reference, skipped rows). */
export interface SuiteResult {
  rows: Row[];
  notes: string[];
}
