/**
 * Runtime-independent host fields (docs/design.md, "Determinism of the host's float64 values"): the float64 values the host
 * computes around a sweep are the same bits in Node and in Chromium. The digest of each part is
 * computed here, in this Node process, and in the browser page by the same function; every
 * digest must be equal. Before src/core/detmath.ts, V8's Math.sin/cos/atan2 differed between the
 * two in about 4.5% of these values.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openGpuPage, type GpuPage } from './harness.ts';
import { digest, mathControl } from './page/suites/hostFields.ts';

let gpu: GpuPage;
beforeAll(async () => {
  gpu = await openGpuPage();
});
afterAll(async () => {
  await gpu?.close();
});

describe('host fields', () => {
  it('every part of a moving sweep\'s host fields hashes the same in Node and in Chromium (seed 17)', async () => {
    const inNode = digest(17);
    const inBrowser = await gpu.call('hostFields', 'digest', 17);
    console.log(`Node ${process.version}: ${JSON.stringify(inNode)}`);
    expect(Object.keys(inNode)).toHaveLength(12);
    expect(inBrowser).toEqual(inNode);
    // A different seed gives different values: the digests say something.
    expect(digest(18).sensorXyz).not.toBe(inNode.sensorXyz);
    // The control, printed: how many of the runtime's own Math.sin/cos/atan2 values differ.
    const own = mathControl(17);
    const theirs = await gpu.call('hostFields', 'mathControl', 17);
    const differ = own.filter((x, k) => !Object.is(x, theirs[k])).length;
    console.log(`Math.sin/cos/atan2: ${differ} of ${own.length} values differ between Node and Chromium (detmath: 0)`);
  });
});
