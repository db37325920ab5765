import { parseArgs } from 'node:util';
import { resolveWorkspace, startExecutor } from '../../runtime/start-executor.js';
import { inertText, jsonFor } from '../../terminal/inert-text.js';
import { executorSettingsFrom } from '../agent-settings-from-flags.js';
import { COMMON, type CommandMain, common, type ExecutorFlags, parsed } from '../cli-flags.js';
import { note } from '../note.js';
import { outputClosed } from '../output-closed.js';
import { readStdin } from '../read-stdin.js';
import { help } from '../usage.js';
import { UsageError } from '../usage-error.js';

const OPTIONS = {
  ...COMMON,
  input: { type: 'string' },
  stream: { type: 'boolean', default: false },
} as const;

/** `skate tool NAME --input JSON|- [--stream]`. */
export const run: CommandMain = async (args) => {
  const { values, positionals } = parsed(() => parseArgs({ args, options: OPTIONS, allowPositionals: true }));
  if (values.help) return help();
  const [name, ...extra] = positionals;
  if (!name) throw new UsageError('skate tool needs a tool name (see `skate tools`)');
  if (extra.length > 0) throw new UsageError(`unexpected argument: ${extra[0]}`);
  if (values.input === undefined)
    throw new UsageError('skate tool needs --input JSON (or --input - for stdin)');
  return toolCommand({ ...common(values), name, input: values.input, stream: values.stream });
};

export interface ToolCommandOptions extends ExecutorFlags {
  name: string;
  /** JSON text, or `-` to read it from stdin. */
  input: string;
  /** Echo the call's output lines to stderr while it runs. */
  stream: boolean;
}

/**
 * `skate tool NAME --input JSON`: one tool call through a real executor. The
 * result is printed as JSON on stdout; exit 0 on success, 1 when the tool
 * returned an error or a denial.
 */
export async function toolCommand(options: ToolCommandOptions): Promise<number> {
  const text = options.input === '-' ? await readStdin() : options.input;
  let input: unknown;
  try {
    input = JSON.parse(text);
  } catch (error) {
    throw new UsageError(`--input is not valid JSON: ${(error as Error).message}`);
  }
  const { executor } = await startExecutor(
    executorSettingsFrom(options),
    await resolveWorkspace(options.workspace),
    note,
  );
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  try {
    const result = await executor.callTool(options.name, input, {
      // Ctrl-C, or nobody left to read the result (`--stream … | head`).
      signal: AbortSignal.any([controller.signal, outputClosed()]),
      // The command's own lines, shown inert; the result is JSON (`jsonFor`: escaped on a terminal).
      ...(options.stream && { onOutput: (line) => process.stderr.write(`${inertText(line.text)}\n`) }),
    });
    process.stdout.write(`${jsonFor(process.stdout, result, 2)}\n`);
    return result.isError ? 1 : 0;
  } finally {
    process.off('SIGINT', onSigint);
    await executor.shutdown();
  }
}
