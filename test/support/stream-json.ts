/** A `tool_call_result` line of `skate -p --output-format stream-json`. */
export interface ToolResultLine {
  type: string;
  id?: string;
  output?: string;
  isError?: boolean;
}

/** Every line of `--output-format stream-json` output, parsed (the caller names what it reads). */
export function streamJsonLines<Line = Record<string, unknown>>(stdout: string): Line[] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as Line);
}

/** The `tool_call_result` lines of `--output-format stream-json` output, in order. */
export function toolCallResults(stdout: string): ToolResultLine[] {
  return streamJsonLines<ToolResultLine>(stdout).filter((line) => line.type === 'tool_call_result');
}
