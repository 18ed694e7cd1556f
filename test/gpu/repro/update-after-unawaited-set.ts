/**
 * Found by the fuzzer (`npm run fuzz`, property `updates`, seed 779, shrunk in 31 steps):
 * `set.set([one box])` followed at once, without awaiting, by `set.update(0, [box])` was refused
 * with "ValidationError: first = 0: boxes [0, 1) are outside the set (0..0)". `update` (and
 * `setMasks`) checked the range against the set's size at call time, while the `set` issued
 * before it had not been applied yet; calls reach the GPU in call order, so the range must be
 * checked at the call's turn. Fixed in src/boxes/BoxSet.ts (range checked inside the sequenced
 * step, before anything is written).
 *
 * The case is inline; test/gpu/fuzz.test.ts replays it through the GPU and the reference.
 */
import type { Repro } from '../page/suites/fuzz.ts';

export const repro: Repro = {
  property: 'updates',
  title: 'update right after an un-awaited set() uses the new size (fuzz seed 779)',
  spec: {"offset": [10000, 0, 0], "bulkBoxes": 0, "bulkSeed": 0, "capacity": null, "commands": [{"kind": "set", "count": 1, "seed": 0}, {"kind": "update", "first": 0, "boxes": [{"c": [0, 0, 0], "h": [0, 0, 0], "q": [0.7071067811865476, 0, 0, 0.7071067811865476]}]}, {"kind": "rebase", "to": null}], "rays": 1},
};
