import { type ExecutorOptions, openExecutor } from '../open-executor.js';
import { readStdin } from '../read-stdin.js';
import { UsageError } from '../usage-error.js';

export interface ToolCommandOptions extends ExecutorOptions {
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
  const executor = await openExecutor(options);
  const controller = new AbortController();
  const onSigint = () => controller.abort();
  process.once('SIGINT', onSigint);
  try {
    const result = await executor.callTool(options.name, input, {
      signal: controller.signal,
      ...(options.stream && { onOutput: (line) => process.stderr.write(`${line.text}\n`) }),
    });
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return result.isError ? 1 : 0;
  } finally {
    process.off('SIGINT', onSigint);
    await executor.shutdown();
  }
}
