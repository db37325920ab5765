import { closeSync, constants, fstatSync, openSync, readFile, readFileSync } from 'node:fs';
import * as z from 'zod';
import { defineTool, ToolFailure } from '../define-tool.js';
import { looksBinary } from '../fs/file-text.js';
import { toolDescription } from '../tool-description.js';

/** Files larger than this are refused whole; the model can still read them through shell tools. */
const MAX_FILE_BYTES = 32 * 1024 * 1024;
const DEFAULT_LINES = 2000;
const MAX_LINE_CHARS = 2000;
/**
 * Files up to this size are opened, measured and read with blocking calls: ~8 µs for a small
 * file against ~110 µs for the same four steps on the thread pool, most of a small call. Past it
 * the read goes to the thread pool so one big file does not hold up other calls.
 */
const BLOCKING_READ_BYTES = 1024 * 1024;
/** Text returned per call, so one read cannot crowd out the model's context. */
const MAX_OUTPUT_BYTES = 256 * 1024;

export const readFileTool = defineTool({
  name: 'read_file',
  effect: 'read',
  description: toolDescription('read_file'),
  input: z.object({
    path: z.string().min(1).describe('File to read, relative to the workspace or absolute.'),
    offset: z.number().int().min(1).optional().describe('First line to return (1-based). Default 1.'),
    limit: z.number().int().min(1).max(100_000).optional().describe('How many lines. Default 2000.'),
  }),
  async run(input, ctx) {
    const file = await ctx.paths.forRead(input.path);
    let fd: number;
    try {
      // Non-blocking, so opening a FIFO or a device returns at once (and is then refused) instead
      // of waiting for a writer; it changes nothing for a regular file.
      fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT') throw new ToolFailure('not_found', `${input.path} does not exist`);
      if (code === 'EISDIR')
        throw new ToolFailure('invalid_input', `${input.path} is a directory; use list_dir`);
      throw error;
    }
    try {
      // What was opened, not the path checked before: a symlink may have been swapped in meanwhile.
      ctx.paths.checkOpenedForRead(input.path, fd);
      const info = fstatSync(fd);
      if (info.isDirectory())
        throw new ToolFailure('invalid_input', `${input.path} is a directory; use list_dir`);
      if (!info.isFile()) throw new ToolFailure('invalid_input', `${input.path} is not a regular file`);
      if (info.size > MAX_FILE_BYTES) {
        throw new ToolFailure(
          'input_too_large',
          `${input.path} is ${info.size} bytes, over the ${MAX_FILE_BYTES}-byte limit of read_file; use shell (head, sed -n, grep) to read parts of it`,
        );
      }
      const data = info.size <= BLOCKING_READ_BYTES ? readFileSync(fd) : await readLarge(fd, ctx.signal);
      if (looksBinary(data)) {
        return { output: `${input.path} is a binary file (${data.length} bytes); not shown` };
      }
      return render(input.path, data.toString('utf8'), input.offset ?? 1, input.limit ?? DEFAULT_LINES);
    } finally {
      closeSync(fd);
    }
  },
});

/** A big file is read on the thread pool, so other calls are served meanwhile; cancellable. */
function readLarge(fd: number, signal: AbortSignal): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    readFile(fd, { signal }, (error, data) => (error ? reject(error) : resolve(data)));
  });
}

function render(displayPath: string, text: string, offset: number, limit: number) {
  const lines = text.split('\n');
  if (lines.length > 1 && lines[lines.length - 1] === '') lines.pop();
  const total = text.length === 0 ? 0 : lines.length;
  if (total > 0 && offset > total) {
    throw new ToolFailure(
      'invalid_input',
      `offset ${offset} is past the end: ${displayPath} has ${total} lines`,
    );
  }
  const out: string[] = [];
  let bytes = 0;
  let end = offset - 1;
  const width = String(Math.min(total, offset + limit - 1)).length;
  for (let i = offset - 1; i < Math.min(total, offset - 1 + limit); i++) {
    let line = lines[i]!;
    if (line.length > MAX_LINE_CHARS)
      line = `${line.slice(0, MAX_LINE_CHARS)}… [line cut at ${MAX_LINE_CHARS} chars]`;
    const rendered = `${String(i + 1).padStart(width)}\t${line}`;
    bytes += Buffer.byteLength(rendered) + 1;
    if (bytes > MAX_OUTPUT_BYTES && out.length > 0) break;
    out.push(rendered);
    end = i + 1;
  }
  const truncated = end < total;
  if (total === 0) out.push('(empty file)');
  else if (truncated) {
    out.push(`[showing lines ${offset}-${end} of ${total}; read on with offset ${end + 1}]`);
  }
  return {
    output: out.join('\n'),
    display: {
      type: 'file' as const,
      path: displayPath,
      startLine: offset,
      endLine: end,
      totalLines: total,
      truncated,
    },
  };
}
