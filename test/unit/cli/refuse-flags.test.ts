import { describe, expect, it } from 'vitest';
import { refuseFlags } from '../../../harness/cli/cli-flags.js';

const WHY = 'skate acp takes prompts from the editor';

describe('refuseFlags', () => {
  it('refuses a flag given long, with a value, or by its short name, naming it', () => {
    expect(() => refuseFlags(['--print', 'x'], ['print'], WHY)).toThrow(`${WHY}; drop --print`);
    expect(() => refuseFlags(['--resume=abc'], ['resume'], WHY)).toThrow('drop --resume');
    expect(() => refuseFlags(['-p', 'task'], ['print'], WHY)).toThrow('drop --print');
    expect(() => refuseFlags(['-c'], ['output-format', 'continue'], WHY)).toThrow('drop --continue');
  });

  it('lets everything else through', () => {
    expect(() =>
      refuseFlags(['--policy', 'plan', '--model', 'm', '-h'], ['print', 'continue', 'resume'], WHY),
    ).not.toThrow();
    // A flag that only starts like a refused one is another flag.
    expect(() => refuseFlags(['--printer'], ['print'], WHY)).not.toThrow();
  });
});
