import { structuredPatch } from 'diff';

export interface TextDiff {
  diff: string;
  additions: number;
  deletions: number;
}

/** A unified diff of two versions of one file, with counts for a UI. */
export function unifiedDiff(displayPath: string, before: string, after: string): TextDiff {
  const patch = structuredPatch(displayPath, displayPath, before, after, '', '', { context: 3 });
  let additions = 0;
  let deletions = 0;
  const lines = [`--- a/${displayPath}`, `+++ b/${displayPath}`];
  for (const hunk of patch.hunks) {
    lines.push(`@@ -${hunk.oldStart},${hunk.oldLines} +${hunk.newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) {
      if (line.startsWith('+')) additions++;
      else if (line.startsWith('-')) deletions++;
      lines.push(line);
    }
  }
  return { diff: patch.hunks.length === 0 ? '' : lines.join('\n'), additions, deletions };
}
