/** One hunk of a unified diff as the two texts it compares (context lines in both). */
export interface DiffHunk {
  oldText: string;
  newText: string;
}

/**
 * Splits a unified diff (as the executor's write_file and edit_file return it)
 * into hunks of old and new text: ACP's diff content carries texts, not patches.
 * File headers and "\ No newline at end of file" markers are skipped.
 */
export function diffHunks(diff: string): DiffHunk[] {
  const hunks: DiffHunk[] = [];
  let current: { old: string[]; new: string[] } | undefined;
  const flush = (): void => {
    if (current) hunks.push({ oldText: current.old.join('\n'), newText: current.new.join('\n') });
  };
  const lines = diff.split('\n');
  if (lines.at(-1) === '') lines.pop();
  for (const line of lines) {
    if (line.startsWith('@@')) {
      flush();
      current = { old: [], new: [] };
    } else if (!current || line.startsWith('\\')) {
      // Headers before the first hunk, and end-of-file markers.
    } else if (line.startsWith('+')) current.new.push(line.slice(1));
    else if (line.startsWith('-')) current.old.push(line.slice(1));
    else {
      const text = line.startsWith(' ') ? line.slice(1) : line;
      current.old.push(text);
      current.new.push(text);
    }
  }
  flush();
  return hunks;
}
