import type { KernelLauncherOptions } from '../sandbox/kernel-launcher.js';

export interface SandboxNotesOptions {
  /** Say informational notes too (`--verbose`); warnings are always said. */
  verbose: boolean;
  /** Where a line goes: the CLI's `note`. */
  write(line: string): void;
}

/**
 * One sink for the sandbox notes of a whole run, the agent's executor and every sub-agent's:
 * each distinct line is said once, however many executors start. Notes (a socket scan that hit
 * its limits) only with `--verbose`; warnings (a deny glob not fully expanded) always.
 */
export function createSandboxNotes(
  options: SandboxNotesOptions,
): Required<Pick<KernelLauncherOptions, 'onNote' | 'onWarning'>> {
  const said = new Set<string>();
  const once = (line: string): void => {
    if (said.has(line)) return;
    said.add(line);
    options.write(line);
  };
  return {
    onNote(line) {
      if (options.verbose) once(line);
    },
    onWarning(line) {
      once(`warning: ${line}`);
    },
  };
}
