import { inertText } from '../terminal/inert-text.js';

/**
 * A line for the person at the terminal, on stderr so stdout stays the command's output. Notes
 * quote what Skate met (an error's message, a file name a sandbox made): shown inert, never obeyed.
 */
export function note(line: string): void {
  process.stderr.write(`skate: ${inertText(line)}\n`);
}
