import { describe, expect, it } from 'vitest';
import { createSandboxNotes } from '../../../harness/cli/sandbox-notes.js';

describe('createSandboxNotes', () => {
  it('says each note once and only when verbose; warnings always, once', () => {
    for (const verbose of [false, true]) {
      const lines: string[] = [];
      const notes = createSandboxNotes({ verbose, write: (line) => lines.push(line) });
      // The agent's executor and two sub-agents' executors report the same scan.
      for (let i = 0; i < 3; i++) {
        notes.onNote('scan of /root hit its limits; sockets beyond them are not masked');
        notes.onWarning('scan of /ws hit its limits; files matching /ws/**/.env beyond them are not hidden');
      }
      expect(lines, `verbose ${verbose}`).toEqual([
        ...(verbose ? ['scan of /root hit its limits; sockets beyond them are not masked'] : []),
        'warning: scan of /ws hit its limits; files matching /ws/**/.env beyond them are not hidden',
      ]);
    }
  });
});
