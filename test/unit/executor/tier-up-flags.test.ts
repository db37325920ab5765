import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { tierUpFlags } from '../../../executor/tier-up-flags.js';

const run = promisify(execFile);

describe('tierUpFlags', () => {
  it('names flags this Node’s V8 knows, and setting them after start prints nothing', async () => {
    const flags = tierUpFlags();
    const { stdout: known } = await run(process.execPath, ['--v8-options'], { maxBuffer: 16 * 1024 * 1024 });
    for (const flag of flags) expect(known).toContain(`${flag.slice(0, flag.indexOf('='))} (`);
    // As the executor sets them: an unknown flag is reported on stderr by V8 itself.
    const script = `const v8 = require('node:v8'); for (const f of ${JSON.stringify(flags)}) v8.setFlagsFromString(f);`;
    const { stdout, stderr } = await run(process.execPath, ['-e', script]);
    expect(stderr).toBe('');
    expect(stdout).toBe('');
  });

  it('follows the V8 line: an interrupt budget before V8 12 (Node 20), nothing from it (no gain measured)', () => {
    expect(tierUpFlags('11.3.244.8-node.38')).toEqual(['--interrupt-budget=8192']);
    expect(tierUpFlags('12.4.254.21-node.57')).toEqual([]);
    expect(tierUpFlags('13.6.233.17-node.53')).toEqual([]);
  });
});
