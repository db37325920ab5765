import { latestEvery } from '../../shared/latest-every.js';
import type { OutputLine, ToolResult } from '../../shared/tool.js';
import type { MetaToolCall } from '../engine/engine-types.js';

/** Progress updates a call shows per second, whatever its server (or its executor) sends. */
const PROGRESS_PER_SECOND = 10;
/** Characters of one progress line shown (the executor sends `3/5 ` and 200 of the server's). */
const MAX_PROGRESS_CHARS = 240;

/**
 * Runs one MCP call, showing its progress as the call's live output (`tool_output_line`, stream
 * `progress`) in every frontend: one line, bounded, at most PROGRESS_PER_SECOND a second (the
 * latest), none after the result. The text is the server's: the frontends make it inert.
 */
export async function withProgress(
  call: MetaToolCall,
  run: (onOutput: (line: OutputLine) => void) => Promise<ToolResult>,
): Promise<ToolResult> {
  const shown = latestEvery<string>(1000 / PROGRESS_PER_SECOND, (text) =>
    call.emit({ type: 'tool_output_line', agent: call.agent, id: call.callId, stream: 'progress', text }),
  );
  try {
    return await run((line) => {
      if (line.stream === 'progress') shown.push(progressText(line.text));
    });
  } finally {
    shown.stop();
  }
}

function progressText(text: string): string {
  const line = text.replace(/[\r\n]+/g, ' ');
  return line.length > MAX_PROGRESS_CHARS ? `${line.slice(0, MAX_PROGRESS_CHARS)}…` : line;
}
