/**
 * test/fixtures/ holds copies of the published regression data in ../shared/fixtures/ (CI runs
 * on a clean clone that may not have the shared folder). Where the shared folder exists, the
 * copies must be identical to it.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const local = fileURLToPath(new URL('../fixtures/', import.meta.url));
const shared = fileURLToPath(new URL('../../../shared/fixtures/', import.meta.url));

describe('fixtures', () => {
  it('the published SAT case is in test/fixtures', () => {
    expect(existsSync(`${local}seed-sat-case.json`)).toBe(true);
  });

  it.runIf(existsSync(shared))('the copies equal ../shared/fixtures', () => {
    for (const name of readdirSync(shared)) {
      expect(readFileSync(`${local}${name}`, 'utf8'), name).toBe(readFileSync(`${shared}${name}`, 'utf8'));
    }
  });
});
