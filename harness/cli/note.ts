/** A line for the person at the terminal, on stderr so stdout stays the command's output. */
export function note(line: string): void {
  process.stderr.write(`skate: ${line}\n`);
}
