import { setTimeout as sleep } from 'node:timers/promises';
import type { ContentBlock, Message } from '../../shared/conversation.js';
import type { ModelProvider, ModelRequest, ProviderEvent } from '../provider/model-provider.js';

export const DEMO_MODEL = 'skate-demo';

interface DemoStep {
  text: string;
  tool?: { name: string; input: Record<string, unknown> };
}

/** The tool results the model has seen so far, newest last. */
function toolResults(messages: readonly Message[]): Extract<ContentBlock, { type: 'tool_result' }>[] {
  return messages.flatMap((message) =>
    message.content.filter(
      (block): block is Extract<ContentBlock, { type: 'tool_result' }> => block.type === 'tool_result',
    ),
  );
}

function firstLine(text: string): string {
  return text.split('\n')[0] ?? '';
}

/** What the scripted model says and does at each step; later steps quote what the tools answered. */
function step(index: number, messages: readonly Message[], outside: string): DemoStep {
  const results = toolResults(messages);
  switch (index) {
    case 0:
      return {
        text: 'This is the Skate demo: a scripted model (no API key is set) driving a real executor under the `execute` policy. First, I read the project README.',
        tool: { name: 'read_file', input: { path: 'README.md' } },
      };
    case 1:
      return {
        text: 'The README says this is a tiny demo project. Now I write a notes file inside the workspace, which the policy allows.',
        tool: {
          name: 'write_file',
          input: {
            path: 'NOTES.md',
            content: '# Notes\n\nWritten by the Skate demo through the executor.\n',
          },
        },
      };
    case 2:
      return {
        text: `Next I try to write outside the workspace, to ${outside}. The executor's own check should refuse.`,
        tool: { name: 'write_file', input: { path: outside, content: 'should never exist\n' } },
      };
    case 3:
      return {
        text: 'And the same through the shell, which only the kernel sandbox can stop.',
        tool: { name: 'shell', input: { command: `touch ${outside}` } },
      };
    default: {
      const [read, wrote, denied, shell] = results;
      return {
        text: [
          'Done. What happened:',
          `- read_file README.md → ${read?.isError ? 'failed' : 'ok'}`,
          `- write_file NOTES.md → ${wrote ? firstLine(wrote.output) : 'no result'}`,
          `- write_file ${outside} → ${denied ? firstLine(denied.output) : 'no result'}`,
          `- shell touch ${outside} → ${shell ? firstLine(shell.output) : 'no result'}`,
          '',
          'The first refusal came from the executor checking its policy; the second from the kernel: the',
          'executor runs inside bubblewrap, where everything outside the workspace is mounted read-only.',
          '',
          'Set ANTHROPIC_API_KEY to give Skate a real task.',
        ].join('\n'),
      };
    }
  }
}

/**
 * A scripted model for the first run: it reads a file, writes one, is denied a
 * write outside the workspace by the tool check and by the kernel, and reports.
 * Everything else about the run is real: the engine, the executor, the sandbox.
 */
export function createDemoProvider(options: { outsidePath: string; wordDelayMs?: number }): ModelProvider {
  const delay = options.wordDelayMs ?? 12;
  return {
    name: 'demo',
    contextWindow: () => 200_000,
    async *stream(request: ModelRequest, signal: AbortSignal): AsyncIterable<ProviderEvent> {
      const turn = request.messages.filter((message) => message.role === 'assistant').length;
      const { text, tool } = step(turn, request.messages, options.outsidePath);
      let streamed = '';
      try {
        for (const word of text.split(/(?<= )/)) {
          if (delay > 0) await sleep(delay, undefined, { signal });
          streamed += word;
          yield { type: 'text_delta', index: 0, text: word };
        }
      } catch {
        const partial: ContentBlock[] = streamed ? [{ type: 'text', text: streamed }] : [];
        yield { type: 'error', error: { kind: 'aborted', message: 'the demo was interrupted' }, partial };
        return;
      }
      const content: ContentBlock[] = [{ type: 'text', text: streamed }];
      yield { type: 'block_done', index: 0, block: content[0]! };
      if (tool) {
        const id = `demo-${turn}`;
        const call: ContentBlock = { type: 'tool_use', id, name: tool.name, input: tool.input };
        yield { type: 'tool_use_start', index: 1, id, name: tool.name };
        yield { type: 'tool_input_delta', index: 1, json: JSON.stringify(tool.input) };
        yield { type: 'block_done', index: 1, block: call };
        content.push(call);
      }
      const words = text.split(/\s+/).length;
      yield {
        type: 'message_done',
        message: { role: 'assistant', content },
        stopReason: tool ? 'tool_use' : 'end_turn',
        usage: { inputTokens: 0, outputTokens: words, cacheReadTokens: 0, cacheWriteTokens: 0 },
      };
    },
  };
}
