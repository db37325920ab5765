import type { Message } from '../../shared/conversation.js';
import { elide } from '../../shared/elide.js';
import type { ToolResult } from '../../shared/tool.js';
import type { ToolUseWithRawInput } from '../provider/message-accumulator.js';
import type { ToolUseBlock } from './run-tool-calls.js';

/**
 * Weak models (small local ones above all) garble tool calls in two ways: arguments that are not
 * JSON, and calls written out as text instead of made. Both are met here with a message naming
 * what went wrong, never a crash or a silent drop; `Engine` allows one repair turn in a row for
 * the first, and says the second once per run.
 */

/** The parser's complaint about a call's arguments, if they were not a JSON object. */
export function inputErrorOf(call: ToolUseBlock): string | undefined {
  return (call as ToolUseWithRawInput).inputError;
}

/** The result a call with unparseable arguments gets instead of running: the model's repair turn. */
export function garbledCallResult(call: ToolUseBlock): ToolResult {
  const raw = (call as ToolUseWithRawInput).rawInput ?? '';
  return {
    output:
      `Not run: the arguments of this ${call.name} call are not a valid JSON object (${inputErrorOf(call)}). ` +
      `You wrote: ${elide(raw, 400)}\nCall ${call.name} again with its arguments as one JSON object matching its schema.`,
    isError: true,
    code: 'invalid_input',
  };
}

export const REPEATED_GARBLED_CALLS =
  'The model sent tool-call arguments that are not valid JSON again after being told: stopping the run rather than looping. A model with stronger tool calling, or a larger context window on a local server, may do better.';

/**
 * Whether a reply that made no call looks like one written as text: a JSON object naming one of
 * the tools (`{"name": "read_file", "arguments": ...}`), or the tags local chat templates use
 * (`<tool_call>`, `<function=`). Plain prose mentioning a tool does not count.
 */
export function looksLikeTextToolCall(message: Message, toolNames: ReadonlySet<string>): boolean {
  const text = message.content.flatMap((block) => (block.type === 'text' ? [block.text] : [])).join('\n');
  if (/<tool_call>|<function=|<\|tool_call/.test(text)) return true;
  for (const match of text.matchAll(/"(?:name|tool|function)"\s*:\s*"([A-Za-z0-9_-]+)"/g)) {
    if (toolNames.has(match[1]!) && /"(?:arguments|parameters|input|args)"\s*:/.test(text)) return true;
  }
  return false;
}

export const TEXT_TOOL_CALL_NUDGE =
  'You wrote a tool call as text, so nothing ran. To use a tool, make the call through the tool-calling interface (a function call), not in your reply. If you meant to finish, say so plainly.';
