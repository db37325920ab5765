import { structuredPatch } from 'diff';

export interface TextDiff {
  diff: string;
  additions: number;
  deletions: number;
}

/**
 * A unified diff of two versions of one file, with counts for a UI. `displayPath` is the path the
 * model gave: a workspace-relative one gets git's `a/`/`b/` prefixes, an absolute one stays as is.
 */
export function unifiedDiff(displayPath: string, before: string, after: string): TextDiff {
  const patch = structuredPatch(displayPath, displayPath, before, after, '', '', { context: 3 });
  let additions = 0;
  let deletions = 0;
  const lines = diffHeaders(displayPath);
  for (const hunk of patch.hunks) {
    // An empty side is numbered from the line before it, as git and jsdiff's formatPatch print it.
    const oldStart = hunk.oldLines === 0 ? hunk.oldStart - 1 : hunk.oldStart;
    const newStart = hunk.newLines === 0 ? hunk.newStart - 1 : hunk.newStart;
    lines.push(`@@ -${oldStart},${hunk.oldLines} +${newStart},${hunk.newLines} @@`);
    for (const line of hunk.lines) {
      if (line.startsWith('+')) additions++;
      else if (line.startsWith('-')) deletions++;
      lines.push(line);
    }
  }
  return { diff: patch.hunks.length === 0 ? '' : lines.join('\n'), additions, deletions };
}

function diffHeaders(displayPath: string): string[] {
  if (displayPath.startsWith('/')) return [`--- ${displayPath}`, `+++ ${displayPath}`];
  const relative = displayPath.replace(/^(?:\.\/)+/, '');
  return [`--- a/${relative}`, `+++ b/${relative}`];
}
