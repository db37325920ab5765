const MAX_LINES = 20;

/** How the preview colours its lines: plain text, or ANSI on a terminal that takes colour. */
export interface PreviewPaint {
  removed(text: string): string;
  added(text: string): string;
  dim(text: string): string;
}

export const PLAIN: PreviewPaint = { removed: (t) => t, added: (t) => t, dim: (t) => t };

/** Red, green and dim where colour is wanted (a terminal, no NO_COLOR); plain otherwise. */
export function previewPaint(colour: boolean): PreviewPaint {
  if (!colour) return PLAIN;
  return {
    removed: (t) => `\x1b[31m${t}\x1b[39m`,
    added: (t) => `\x1b[32m${t}\x1b[39m`,
    dim: (t) => `\x1b[2m${t}\x1b[22m`,
  };
}

/**
 * What an approval prompt shows about the call it asks for: the whole command for a shell call,
 * the lines taken out and put in for an edit, the start of the content for a whole-file write,
 * the arguments otherwise. Long parts are cut, saying how much was left out.
 */
export function approvalPreview(name: string, args: unknown, paint: PreviewPaint = PLAIN): string[] {
  const input = (args && typeof args === 'object' ? args : {}) as Record<string, unknown>;
  const text = (key: string): string | undefined =>
    typeof input[key] === 'string' ? (input[key] as string) : undefined;
  const command = text('command');
  if (name === 'shell' && command !== undefined) {
    const cwd = text('cwd');
    return [
      ...capped(command.split('\n'), (line) => `$ ${line}`, paint),
      ...(cwd ? [paint.dim(`(in ${cwd})`)] : []),
    ];
  }
  const path = text('path');
  const oldText = text('old_string');
  const newText = text('new_string');
  if (name === 'edit_file' && path !== undefined && oldText !== undefined && newText !== undefined) {
    return [
      `${path}${input.replace_all === true ? ' (every occurrence)' : ''}`,
      ...(oldText === '' ? [] : capped(lines(oldText), (line) => paint.removed(`- ${line}`), paint)),
      ...capped(lines(newText), (line) => paint.added(`+ ${line}`), paint),
    ];
  }
  const content = text('content');
  if (name === 'write_file' && path !== undefined && content !== undefined) {
    const all = lines(content);
    return [
      `${path} (the whole file, ${all.length} line${all.length === 1 ? '' : 's'})`,
      ...capped(all, (line) => paint.added(`+ ${line}`), paint),
    ];
  }
  const code = text('code');
  if (code !== undefined) return capped(code.split('\n'), (line) => line, paint);
  return capped((JSON.stringify(args, null, 2) ?? '').split('\n'), (line) => line, paint);
}

function lines(text: string): string[] {
  const split = text.split('\n');
  return split.at(-1) === '' ? split.slice(0, -1) : split;
}

function capped(all: string[], render: (line: string) => string, paint: PreviewPaint): string[] {
  if (all.length <= MAX_LINES) return all.map(render);
  return [...all.slice(0, MAX_LINES).map(render), paint.dim(`… ${all.length - MAX_LINES} more lines`)];
}
