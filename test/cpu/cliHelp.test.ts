/**
 * `webgpu-obb COMMAND --help` (src/cli/help.ts): every command has a page with its usage,
 * options, examples and exit codes, printed with exit 0 (also after other arguments, and as
 * `-h`); and the pages' examples are real: run in order in an empty folder (cases, then run on
 * the CPU, then judge of one file and of the manifest, then verify on Dawn in Node), each exits 0.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { COMMAND_HELP, helpExamples } from '../../src/cli/help.ts';
import { runCli } from './cliRun.ts';

const COMMANDS = ['cases', 'run', 'judge', 'verify'] as const;

describe('webgpu-obb COMMAND --help', () => {
  for (const command of COMMANDS) {
    it(`${command} --help: its own page, exit 0`, async () => {
      for (const argv of [[command, '--help'], [command, '-h'], [command, 'scene.json', '--help']]) {
        const r = await runCli(...argv);
        expect(r.code, argv.join(' ')).toBe(0);
        expect(r.out).toBe(COMMAND_HELP[command]);
        expect(r.err).toBe('');
      }
      const page = COMMAND_HELP[command];
      expect(page).toMatch(new RegExp(`^Usage: webgpu-obb ${command} `));
      expect(page).toMatch(/\nOptions:\n/);
      expect(page).toMatch(/\nExit status:\n {2}0 {2}ok/);
      expect(helpExamples(page).length).toBeGreaterThan(0);
    });
  }

  it('--help alone prints the whole usage, naming every command', async () => {
    const r = await runCli('--help');
    expect(r.code).toBe(0);
    for (const command of COMMANDS) {
      expect(r.out).toContain(`webgpu-obb ${command} `);
    }
  });

  describe('the examples run', () => {
    const dir = mkdtempSync(join(tmpdir(), 'obb-help-'));
    const cwd = process.cwd();
    afterAll(() => {
      process.chdir(cwd);
      rmSync(dir, { recursive: true, force: true });
    });
    for (const command of COMMANDS) {
      it(`${command}'s examples exit 0`, async () => {
        process.chdir(dir);
        try {
          for (const argv of helpExamples(COMMAND_HELP[command])) {
            const r = await runCli(...argv, '--quiet');
            expect(r.code, `webgpu-obb ${argv.join(' ')}\n${r.out}${r.err}`).toBe(0);
          }
        } finally {
          process.chdir(cwd);
        }
      }, 300_000);
    }
  });
});
