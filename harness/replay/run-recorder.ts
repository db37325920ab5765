import { appendFileSync, writeFileSync } from 'node:fs';
import { type RecordLine, RUN_RECORD_VERSION } from '../../shared/run-record.js';
import type { OutputLine, ToolResult } from '../../shared/tool.js';
import type { ToolHost } from '../engine/engine-types.js';
import type { ModelProvider, ProviderEvent } from '../provider/model-provider.js';
import { skateVersion } from '../skate-version.js';

/** Wraps what a run asks the model and its executor, writing each answer to the record as it comes. */
export interface RunRecorder {
  provider(provider: ModelProvider): ModelProvider;
  tools(host: ToolHost): ToolHost;
}

/**
 * `--record FILE`: a JSON-lines file (`shared/run-record.ts`) with the command line first, then
 * each model response and each executor tool call in the order they ended. Written synchronously,
 * line by line, so a run that is killed leaves a record of what it did up to then. The file is the
 * user's, named on the command line, and written as a shell's `>` would.
 */
export function createRunRecorder(file: string, args: readonly string[]): RunRecorder {
  const write = (line: RecordLine): void => appendFileSync(file, `${JSON.stringify(line)}\n`);
  writeFileSync(
    file,
    `${JSON.stringify({ type: 'skate_record', version: RUN_RECORD_VERSION, args: [...args], skate: skateVersion() } satisfies RecordLine)}\n`,
  );
  return {
    provider: (provider) => ({
      ...bindAll(provider),
      async *stream(request, signal): AsyncIterable<ProviderEvent> {
        const events: ProviderEvent[] = [];
        try {
          for await (const event of provider.stream(request, signal)) {
            events.push(event);
            yield event;
          }
        } finally {
          write({ type: 'model_response', events });
        }
      },
    }),
    tools: (host) => ({
      listTools: () => host.listTools(),
      async callTool(name, input, options): Promise<ToolResult> {
        const lines: Omit<OutputLine, 'callId'>[] = [];
        const result = await host.callTool(name, input, {
          ...options,
          onOutput: (line) => {
            lines.push({ stream: line.stream, text: line.text });
            options.onOutput?.(line);
          },
        });
        write({ type: 'tool_call', name, input, lines, result });
        return result;
      },
    }),
  };
}

/** The provider's optional methods, bound to it, for a wrapper that replaces `stream`. */
function bindAll(provider: ModelProvider): ModelProvider {
  return {
    name: provider.name,
    stream: (request, signal) => provider.stream(request, signal),
    contextWindow: (model) => provider.contextWindow(model),
    ...(provider.prepareModel && { prepareModel: (model: string) => provider.prepareModel!(model) }),
    ...(provider.warm && { warm: () => provider.warm!() }),
  };
}
