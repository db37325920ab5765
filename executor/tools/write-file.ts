import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import * as z from 'zod';
import { defineTool } from '../define-tool.js';
import {
  existingMode,
  looksBinary,
  type OpenedCheck,
  readChecked,
  writeFileSafely,
} from '../fs/file-text.js';
import { unifiedDiff } from '../fs/text-diff.js';
import { toolDescription } from '../tool-description.js';

export const writeFileTool = defineTool({
  name: 'write_file',
  effect: 'write',
  description: toolDescription('write_file'),
  input: z.object({
    path: z.string().min(1).describe('File to write, relative to the workspace or absolute.'),
    content: z.string().describe('The complete new content of the file.'),
  }),
  async run(input, ctx) {
    const file = await ctx.paths.forWrite(input.path);
    // Each descriptor is checked as opened: the path may have become a symlink since `forWrite`.
    const check: OpenedCheck = (fd) => ctx.paths.checkOpenedForWrite(input.path, fd);
    const data = await readChecked(file, check);
    const before = data === undefined || looksBinary(data) ? undefined : data.toString('utf8');
    const mode = await existingMode(file);
    await mkdir(path.dirname(file), { recursive: true });
    await writeFileSafely(file, input.content, mode, check);
    const lines = input.content.length === 0 ? 0 : input.content.split('\n').length;
    const bytes = Buffer.byteLength(input.content);
    const created = mode === undefined;
    const { diff, additions, deletions } = unifiedDiff(input.path, before ?? '', input.content);
    const summary = created
      ? `created ${input.path} (${bytes} bytes, ${lines} lines)`
      : `wrote ${input.path} (${bytes} bytes, ${lines} lines; +${additions} -${deletions})`;
    return {
      output: summary,
      display: { type: 'diff', path: input.path, diff, additions, deletions, created },
    };
  },
});
