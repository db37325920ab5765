import { parseArgs } from 'node:util';
import { describe, expect, it } from 'vitest';
import { usageMessage } from '../../../harness/cli/usage-message.js';

const options = {
  'max-turns': { type: 'string' },
  continue: { type: 'boolean', short: 'c' },
  print: { type: 'boolean', short: 'p' },
} as const;

function messageFor(args: string[]): string {
  try {
    parseArgs({ args, options, allowPositionals: false });
  } catch (error) {
    return usageMessage(error as Error, Object.keys(options));
  }
  throw new Error('parsed');
}

describe('usageMessage', () => {
  it('says what was wrong and how to write it, in one line', () => {
    expect(messageFor(['--max-turn', '3'])).toBe('unknown option --max-turn (did you mean --max-turns?)');
    expect(messageFor(['--frobnicate'])).toBe('unknown option --frobnicate');
    expect(messageFor(['--max-turns'])).toBe('--max-turns needs a value: --max-turns VALUE');
    expect(messageFor(['--continue=yes'])).toBe('--continue takes no value: write --continue alone');
    expect(messageFor(['--max-turns', '--continue'])).toBe(
      '--max-turns needs a value, not another flag: --max-turns VALUE',
    );
    expect(messageFor(['task'])).toBe('unexpected argument: task');
    for (const args of [['--max-turn'], ['--max-turns'], ['--continue=1'], ['x']]) {
      expect(messageFor(args)).not.toContain('\n');
    }
  });
});
