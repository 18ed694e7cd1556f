/**
 * Work in flight at a device loss (issue #33), on Dawn: every async operation of the public API
 * (BoxSet update / updateIndices / setMasks / setMasksAt / rebase / set, buildBvh, bvhOf, every
 * query, LiDAR sweeps, a frustum cull, readbacks) issued behind a sweep and an all-pairs (or ahead
 * of them, on an idle queue), then the device destroyed (`device.destroy()`, or the context's
 * `destroy()`) at one of nine moments: in the issuing turn, in the next task, in the task after
 * the 1st, 2nd, 4th, 8th or 16th submission after that turn, or once the work ahead settled
 * (LOSS_PLAN). Every operation still pending at the loss must reject with DeviceLostError; none
 * may change the set's host copy (its float64 boxes, count, versions, masks, origin) or its
 * tree's bookkeeping after the loss; after `recover()` the set answers for that host copy. The
 * trial itself is shared with the browser suite (test/gpu/page/suites/reliability.ts,
 * `lossTrial`), which test/gpu/reliability.test.ts runs in Chromium.
 *
 * Before the fix, here: 3 of the 16 `device.destroy()` trials failed (a `BoxSet.update` issued in
 * the turn of the loss resolved and replaced the host copy; a `bvhOf` pending at the loss resolved
 * twice, marking the tree current for the set's next version); in Chromium 5 of 16 and 2 of 8
 * (`buildBvh`, `bvhOf`, `closestHitBuffers` and that update).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ObbGpu } from '../../src/index.ts';
import { CTX_LOSS_TRIALS, LOSS_PLAN, lossTally, lossTrial, lossViolations, type LossKind, type LossTrialReport } from '../gpu/page/suites/reliability.ts';
import { openNodeGpu } from './shared.ts';

function check(kind: LossKind, reports: readonly LossTrialReport[]): void {
  const counts = lossTally(reports);
  console.log(reports.map((r) => `trial ${r.trial} ${r.moment} (work ${r.ahead ? 'ahead' : 'behind'}): loss after ${r.submissionsAtLoss - r.submissionsAtIssue} of ${r.submissions - r.submissionsAtIssue} submissions after the issuing turn, ${Object.keys(r.pending).length} of ${r.issued.length} operations pending`).join('\n'));
  console.log(`${kind}: ${reports.length} trials; per operation, DeviceLostError / pending at the loss:\n` +
    [...counts].map(([name, c]) => `  ${name}: ${c.lost}/${c.pending}`).join('\n'));
  // Every operation was pending at the loss in some trial (those of the 'sync' moment at least).
  for (const [name, c] of counts) {
    expect(c.pending, `${name} was never pending at a loss`).toBeGreaterThan(0);
  }
  expect(reports.flatMap(lossViolations)).toEqual([]);
}

describe('work in flight at a device loss rejects with DeviceLostError and changes nothing (issue #33)', () => {
  let gpu: ObbGpu;
  beforeAll(async () => {
    gpu = await openNodeGpu();
  });
  afterAll(() => {
    gpu?.destroy();
  });

  it(`device.destroy(): ${LOSS_PLAN.length} trials (seeds 3300–${3300 + LOSS_PLAN.length - 1}), each followed by recover()`, async () => {
    const reports: LossTrialReport[] = [];
    for (let trial = 0; trial < LOSS_PLAN.length; trial++) {
      reports.push(await lossTrial(gpu, trial, 'device.destroy'));
    }
    check('device.destroy', reports);
  });

  it(`the context's destroy(): ${CTX_LOSS_TRIALS.length} trials (seeds 3300 + ${CTX_LOSS_TRIALS.join(', ')}), a fresh ObbGpu each`, async () => {
    const reports: LossTrialReport[] = [];
    for (const trial of CTX_LOSS_TRIALS) {
      const own = await openNodeGpu();
      try {
        reports.push(await lossTrial(own, trial, 'ctx.destroy'));
      } finally {
        own.destroy();
      }
    }
    check('ctx.destroy', reports);
  });
});
