import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { defineTool, ToolFailure, type ToolOutcome } from '../define-tool.js';
import {
  existingMode,
  looksBinary,
  type OpenedCheck,
  readChecked,
  writeFileSafely,
} from '../fs/file-text.js';
import { findNearMatch, lineOf } from '../fs/near-match.js';
import { unifiedDiff } from '../fs/text-diff.js';
import { toolDescription } from '../tool-description.js';

/** Same limit as read_file: a file the model cannot read whole it cannot edit by exact text either. */
const MAX_FILE_BYTES = 32 * 1024 * 1024;
/** Line numbers listed when old_string is ambiguous. */
const MAX_LISTED = 20;

export const editFileTool = defineTool({
  name: 'edit_file',
  effect: 'write',
  description: toolDescription('edit_file'),
  input: z.object({
    path: z.string().min(1).describe('File to edit, relative to the workspace or absolute.'),
    old_string: z.string().describe('Exact text to replace; empty to create a new file.'),
    new_string: z.string().describe('Text to put in its place.'),
    replace_all: z.boolean().optional().describe('Replace every occurrence instead of exactly one.'),
  }),
  async run(input, ctx) {
    if (input.old_string === input.new_string) {
      throw new ToolFailure(
        'invalid_input',
        'old_string and new_string are identical; there is nothing to change',
      );
    }
    const file = await ctx.paths.forWrite(input.path);
    const check: OpenedCheck = (fd) => ctx.paths.checkOpenedForWrite(input.path, fd);
    const before = await readText(file, input.path, check);

    if (before === undefined || (before === '' && input.old_string === '')) {
      if (input.old_string !== '') {
        throw new ToolFailure(
          'not_found',
          `${input.path} does not exist. To create it, pass an empty old_string (or use write_file)`,
        );
      }
      return await save(file, input.path, check, {
        before: '',
        after: input.new_string,
        written: input.new_string,
        created: before === undefined,
        replaced: 1,
      });
    }
    if (input.old_string === '') {
      throw new ToolFailure(
        'invalid_input',
        `${input.path} already exists and is not empty; give the text to replace as old_string, or use write_file to replace the whole file`,
      );
    }

    // Match and replace in \n form; a CRLF file goes back to CRLF on write.
    const crlf = usesCrlf(before);
    const text = crlf ? before.replaceAll('\r\n', '\n') : before;
    const oldString = crlf ? input.old_string.replaceAll('\r\n', '\n') : input.old_string;
    const newString = crlf ? input.new_string.replaceAll('\r\n', '\n') : input.new_string;
    const found = occurrences(text, oldString);
    if (found.length === 0) throw new ToolFailure('not_found', notFoundMessage(input.path, text, oldString));
    if (found.length > 1 && !input.replace_all) {
      const lines = found.slice(0, MAX_LISTED).map((at) => lineOf(text, at));
      const more = found.length > MAX_LISTED ? ', …' : '';
      throw new ToolFailure(
        'conflict',
        `old_string occurs ${found.length} times in ${input.path} (lines ${lines.join(', ')}${more}); include more surrounding lines to pick one, or pass replace_all: true to replace every occurrence`,
      );
    }
    // split/join rather than replace(): `$&` and friends in new_string must stay literal.
    const after = text.split(oldString).join(newString);
    const written = crlf ? after.replaceAll('\n', '\r\n') : after;
    return await save(file, input.path, check, {
      before: text,
      after,
      written,
      created: false,
      replaced: found.length,
    });
  },
});

/** The file's text; undefined when it does not exist. */
async function readText(file: string, shown: string, check: OpenedCheck): Promise<string | undefined> {
  let data: Buffer | undefined;
  try {
    data = await readChecked(file, check);
    if (data === undefined) return undefined;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return undefined;
    if (code === 'EISDIR') throw new ToolFailure('invalid_input', `${shown} is a directory, not a file`);
    throw error;
  }
  if (data.length > MAX_FILE_BYTES) {
    throw new ToolFailure(
      'input_too_large',
      `${shown} is ${data.length} bytes, over the ${MAX_FILE_BYTES}-byte limit of edit_file; edit it with shell tools`,
    );
  }
  if (looksBinary(data)) {
    throw new ToolFailure('invalid_input', `${shown} is a binary file; edit_file only edits text`);
  }
  return data.toString('utf8');
}

/** CRLF when every line break in the file is one; a mixed file is edited as it stands. */
function usesCrlf(text: string): boolean {
  const crlf = text.split('\r\n').length - 1;
  return crlf > 0 && crlf === text.split('\n').length - 1;
}

function occurrences(text: string, needle: string): number[] {
  const found: number[] = [];
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + needle.length))
    found.push(at);
  return found;
}

function notFoundMessage(shown: string, text: string, oldString: string): string {
  const base = `old_string was not found in ${shown}`;
  if (oldString.split('\n').every((line) => line.trim() === '' || /^\s*\d+\t/.test(line))) {
    return `${base}; it seems to include the "N\\t" line-number prefixes read_file adds. Remove them and try again`;
  }
  const near = findNearMatch(text, oldString);
  if (near) {
    return `${base} exactly, but lines ${near.startLine}-${near.endLine} match when whitespace is ignored. The file has:\n${near.text}\nCopy the text exactly (indentation and spacing included) and try again`;
  }
  return `${base}. The file may have changed since you read it: read it again with read_file and copy old_string exactly`;
}

interface Change {
  /** Old and new text in \n form, for the diff. */
  before: string;
  after: string;
  /** What goes to disk: `after` with the file's own line endings. */
  written: string;
  created: boolean;
  replaced: number;
}

async function save(file: string, shown: string, check: OpenedCheck, change: Change): Promise<ToolOutcome> {
  const { before, after, written, created, replaced } = change;
  const mode = created ? undefined : await existingMode(file);
  if (created) await mkdir(path.dirname(file), { recursive: true });
  await writeFileSafely(file, written, mode, check);
  const { diff, additions, deletions } = unifiedDiff(shown, before, after);
  const counts = `+${additions} -${deletions}`;
  const summary = created
    ? `created ${shown} (${Buffer.byteLength(written)} bytes, ${counts})`
    : replaced > 1
      ? `replaced ${replaced} occurrences in ${shown} (${counts})`
      : `edited ${shown} (${counts})`;
  return {
    output: diff === '' ? summary : `${summary}\n\n${diff}`,
    display: { type: 'diff', path: shown, diff, additions, deletions, created },
  };
}
