/**
 * Reliability and precision (issue #6), in headless Chromium: bad input on every GPU entry point
 * is refused before anything reaches the GPU; limits give a CapacityError, never a truncated
 * list; a lost device fails in-flight and later work with DeviceLostError and `recover()` brings
 * the same BoxSets back from their host copies; WebGPU validation errors are thrown as GpuError
 * naming the operation; hit distances far from the world origin stay within 1e-4 relative.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectClean } from './expect.ts';
import { openGpuPage, type GpuPage } from './harness.ts';
import { CTX_LOSS_TRIALS, LOSS_PLAN, lossTally, lossViolations, type LossKind, type LossTrialReport } from './page/suites/reliability.ts';

let gpu: GpuPage;
beforeAll(async () => {
  gpu = await openGpuPage();
});
afterAll(async () => {
  await gpu?.close();
});

describe('bad input', () => {
  // case → [kind, index, field] the ValidationError must name.
  const expected: Record<string, [string, number | undefined | 'any', string | RegExp]> = {
    'createBoxSet: NaN centre': ['box', 2, 'center[1]'],
    'createBoxSet: Infinity half extent': ['box', 0, 'halfExtents[1]'],
    'createBoxSet: negative half extent': ['box', 1, 'halfExtents[2]'],
    'createBoxSet: non-orthonormal axes': ['box', 0, /^axes/],
    'createBoxSet: zero quaternion': ['box', 0, 'rotation'],
    'createBoxSet: not an array': ['argument', undefined, 'boxes'],
    'createBoxSet: BoxArray count mismatch': ['argument', undefined, 'data'],
    'createBoxSet: masks length': ['argument', undefined, 'masks'],
    'createBoxSet: masks type': ['argument', undefined, 'masks'],
    'createBoxSet: capacity': ['argument', undefined, 'capacity'],
    'createBoxSet: origin': ['argument', undefined, 'origin'],
    'createBoxSet: huge coordinate': ['box', 1, 'center[2]'],
    'set: NaN': ['box', 1, 'center[1]'],
    'update: first out of range': ['argument', undefined, 'first'],
    'update: negative first': ['argument', undefined, 'first'],
    'update: bad box': ['box', 1, 'halfExtents[0]'],
    'setMasks: past the end': ['argument', undefined, 'masks'],
    'setMasks: type': ['argument', undefined, 'masks'],
    'rebase: origin': ['argument', undefined, 'origin'],
    'rebase: too far': ['box', 'any', 'center[2]'],
    'closestHit: zero direction': ['ray', 1, 'direction'],
    'closestHit: NaN origin': ['ray', 0, 'origin[2]'],
    'closestHit: negative maxDistance': ['ray', 0, 'maxDistance'],
    'closestHit: RayArray length': ['argument', undefined, 'data'],
    'closestHit: rayMasks length': ['argument', undefined, 'rayMasks'],
    'closestHit: rayMasks type': ['argument', undefined, 'rayMasks'],
    'closestHit: exclude out of range': ['ray', 7, 'exclude'],
    'closestHit: exclude length': ['argument', undefined, 'exclude'],
    'closestHit: set of another context': ['argument', undefined, 'set'],
    'closestHit: not a set': ['argument', undefined, 'set'],
    'closestHit: huge ray origin': ['ray', 1, 'origin[0]'],
    'anyHit: zero direction': ['ray', 0, 'direction'],
    'allHits: capacity': ['argument', undefined, 'capacity'],
    'closestHitBuffers: NaN': ['ray', 0, 'origin[0]'],
    'encodeClosestHit: rayCount': ['argument', undefined, 'rayCount'],
    'encodeClosestHit: hits too small': ['argument', undefined, 'hits'],
    'obbPairs: index out of range': ['pair', 1, 'j'],
    'obbPairs: odd flat length': ['argument', undefined, 'pairs'],
    'obbPairs: non-integer index': ['pair', 0, 'i'],
    'obbPairs: not a pair': ['pair', 1, 'value'],
    'obbPairs: tolerance': ['argument', undefined, 'tolerance'],
    'obbOneVsMany: bad box': ['box', 0, 'rotation'],
    'obbCross: set of another context': ['argument', undefined, 'b'],
    'allPairs: capacity': ['argument', undefined, 'capacity'],
    'create: workgroupSize': ['argument', undefined, 'workgroupSize'],
    'create: limits': ['argument', undefined, 'limits.maxBufferSize'],
  };

  it('every entry point refuses bad data with a ValidationError naming item and field, before any GPU call; empty inputs give empty results', async () => {
    const r = await gpu.call('reliability', 'badInput');
    expect(Object.keys(r.rejections).sort()).toEqual(Object.keys(expected).sort());
    for (const [name, [kind, index, field]] of Object.entries(expected)) {
      const got = r.rejections[name]!;
      expect(got.name, `${name}: ${got.message}`).toBe('ValidationError');
      expect(got.kind, name).toBe(kind);
      if (index === 'any') {
        expect(got.index, name).toBeTypeOf('number');
      } else {
        expect(got.index, name).toBe(index);
      }
      expect(got.field, name).toMatch(field);
      expect(got.gpuCalls, `${name} reached the GPU`).toBe(0);
    }
    // The range error names the huge value itself, not a neighbour.
    expect(r.rejections['createBoxSet: huge coordinate']!.message).toMatch(/= 1e\+300 is beyond the GPU's range/);
    expect(r.gpuCallsWhileRejecting).toBe(0);
    expect(r.empty).toEqual({
      closestOnEmptySet: [-1], anyOnEmptySet: [0], allHitsNoRays: 0, oneVsManyEmptySet: 0,
      crossWithEmpty: 0, pairsNone: 0, buffersNoRays: 0,
    });
    expectClean(r.intact);
  });
});

describe('ordering', () => {
  it('setMasks, rebase, set and update issued without awaiting: each query uses the masks, origin, size and boxes of its turn; a set destroyed with calls queued fails them cleanly (seed 51)', async () => {
    const r = await gpu.call('reliability', 'ordering', 51);
    for (const key of ['masked', 'rebased', 'replaced', 'updated', 'excluded', 'pairsAfterGrow'] as const) {
      console.log(`[${key}]`);
      expectClean(r[key], 1e-3);
    }
    expect(r.origin).toEqual([40, -30, 25]);
    // obbOneVsMany answers for the 150 boxes of its turn, not the 60 of the call.
    expect(r.oneVsManyCount).toBe(150);
    // Each queued call fails with a one-line StaleObjectError naming the call the user made.
    expect(r.afterDestroy).toHaveLength(4);
    ['BoxSet.update', 'closestHit', 'BoxSet.setMasks', 'BoxSet.rebase'].forEach((call, k) => {
      expect(r.afterDestroy[k]).toBe(`StaleObjectError: ${call}: BoxSet "boxes" was destroyed`);
    });
  });
});

describe('capacity', () => {
  it('limits lowered to 4,800 bytes per binding: CapacityError naming the limit and what to do, never a truncated list', async () => {
    const r = await gpu.call('reliability', 'capacity', 4800);
    const binding = [
      'createBoxSet over the limit', 'set() growing past the limit', 'closestHit with too many rays',
      'allHits list beyond the limit', 'allPairs list beyond the limit', 'obbPairs results beyond the limit',
    ];
    for (const name of binding) {
      const e = r.errors[name]!;
      expect(e.name, `${name}: ${e.message}`).toBe('CapacityError');
      expect(e.limit, name).toBe('maxStorageBufferBindingSize');
      expect(e.available, name).toBe(4800);
      expect(e.requested, name).toBeGreaterThan(4800);
      expect(e.message, name).toMatch(/exceed maxStorageBufferBindingSize \(4800 bytes, lowered from the device's \d+ by this context's limits option\); split the data into smaller sets or batches/);
    }
    const big = r.errors['buffer beyond maxBufferSize']!;
    expect(big.name).toBe('CapacityError');
    expect(big.limit).toBe('maxBufferSize');
    expect(big.message).toMatch(/exceed maxBufferSize \(19200 bytes/);
    // The refused set() left the set as it was; lists that fit still arrive whole.
    expect(r.count).toBe(r.fit);
    expectClean(r.intact);
    expect(r.allHits.runs).toBe(2);
    expect(r.allHits.count).toBeGreaterThan(1);
    expectClean(r.allHits.summary);
  });
});

describe('device loss', () => {
  it('in-flight and later work rejects with DeviceLostError; recover() rebuilds the same BoxSet and answers like the reference (seed 81)', async () => {
    const r = await gpu.call('reliability', 'deviceLoss', 81);
    console.log(r.inFlight, r.later);
    expect(Object.keys(r.inFlight).sort()).toEqual(['allHits', 'allPairs', 'anyHit', 'closestHit', 'obbPairs', 'update']);
    for (const [name, outcome] of [...Object.entries(r.inFlight), ...Object.entries(r.later)]) {
      expect(outcome, name).toMatch(/^DeviceLostError: /);
    }
    // The update in flight was dropped whole: the host copy is the one before it.
    expect(r.hostIntact).toBe(true);
    expect(r.sameSet).toBe(true);
    expect(r.recoveries).toBe(1);
    expectClean(r.afterRecover, 0);
    expect(r.exactBoxes).toBe(true);
    expectClean(r.afterUpdate, 1e-3);
    expectClean(r.allPairsAfter);
    expect(r.wrappedDevice).toMatch(/pass the replacement: recover\(\{ device \}\)/);
  });

  // The trial (suite reliability, lossTrial) is the one test/node/deviceLoss.test.ts runs on Dawn.
  const allTrials = LOSS_PLAN.map((_, k) => k);
  it.each<[LossKind, readonly number[], string]>([
    ['device.destroy', allTrials, 'each followed by recover()'],
    ['ctx.destroy', CTX_LOSS_TRIALS, 'a fresh ObbGpu each'],
  ])('work in flight at a loss by %s (issue #33): every operation pending then rejects with DeviceLostError and changes nothing; trials %j, %s', async (kind, trials) => {
    const reports: LossTrialReport[] = [];
    for (let k = 0; k < trials.length; k += 6) {
      reports.push(...(await gpu.call('reliability', 'lossTrials', trials.slice(k, k + 6), kind)) as LossTrialReport[]);
    }
    const counts = lossTally(reports);
    console.log(`${kind}: ${reports.length} trials; per operation, DeviceLostError / pending at the loss:\n` +
      [...counts].map(([name, c]) => `  ${name}: ${c.lost}/${c.pending}`).join('\n'));
    for (const [name, c] of counts) {
      expect(c.pending, `${name} was never pending at a loss`).toBeGreaterThan(0);
    }
    expect(reports.flatMap(lossViolations)).toEqual([]);
  });

  it('autoRecover: the query in flight fails, the next one waits for the new device and is right (seed 82)', async () => {
    const r = await gpu.call('reliability', 'autoRecover', 82);
    expect(r.first).toMatch(/^DeviceLostError: /);
    expect(r.newDevice).toBe(true);
    expect(r.recoveries).toBe(1);
    expectClean(r.summary, 1e-3);
  });

  it('a mapAsync rejected before device.lost resolves still reports DeviceLostError; without a loss the error passes through', async () => {
    const r = await gpu.call('reliability', 'lossDuringMap');
    expect(r.lost).toMatch(/^DeviceLostError: test readback: the GPU device was lost/);
    expect(r.notLost).toBe('OperationError: mapAsync failed');
  });

  it('a WebGPU validation error becomes a GpuError that names the operation', async () => {
    const r = await gpu.call('reliability', 'gpuError');
    console.log(r.message);
    expect(r.isGpuError).toBe(true);
    expect(r.operation).toMatch(/^encodeClosestHit \(1 rays × 1 boxes\)$/);
    expect(r.filter).toBe('validation');
    expect(r.message).toMatch(/^encodeClosestHit \(1 rays × 1 boxes\): validation error: /);
  });
});

describe('world-scale coordinates', () => {
  // A 100 m scene 1e4, 1e5 and 1e6 m from the world origin. Relative error of t over hits on the
  // same box with t ≥ 1 m. Without re-basing (origin forced to 0, 0, 0) float32 resolution at
  // 1e6 m is 6 cm and the same check fails, which shows the test can tell.
  it.each([[1e4, 91], [1e5, 92], [1e6, 93]])('offset %d m: hit distances within 1e-4 relative of float64, zero mismatches (seed %d)', async (offset, seed) => {
    const r = await gpu.call('reliability', 'worldScale', offset, seed, 10_000);
    console.log(`offset ${offset}: worst relative |Δt| ${r.floating.worst.toExponential(2)} with the floating origin, ${r.naive.worst.toExponential(2)} without (${r.floating.counted} hits)`);
    expectClean(r.summary, 1e-3);
    expect(r.floating.counted).toBeGreaterThan(5000);
    expect(r.floating.worst).toBeLessThan(1e-4);
    if (offset >= 1e5) {
      expect(r.naive.worst).toBeGreaterThan(1e-4);
    }
  });

  it('a 100 km set 1e6 m out, queried in one corner: rebase() to the rays restores the 1e-4 bound (seed 94)', async () => {
    const r = await gpu.call('reliability', 'wideSet', 94);
    console.log(`100 km set: worst relative |Δt| ${r.atCentre.worst.toExponential(2)} at the set's centre, ${r.rebased.worst.toExponential(2)} rebased`);
    expectClean(r.summaryAtCentre);
    expectClean(r.summaryRebased, 1e-3);
    expectClean(r.pairs);
    expect(r.rebased.counted).toBeGreaterThan(2000);
    expect(r.rebased.worst).toBeLessThan(1e-4);
    expect(r.atCentre.worst).toBeGreaterThan(1e-4);
  });

  it('the page logged no errors', () => {
    expect(gpu.consoleErrors).toEqual([]);
  });
});
