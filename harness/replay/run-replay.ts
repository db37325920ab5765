import { isDeepStrictEqual } from 'node:util';
import type { RecordedModelResponse, RecordedToolCall } from '../../shared/run-record.js';
import type { ToolResult } from '../../shared/tool.js';
import type { ToolHost } from '../engine/engine-types.js';
import type { ModelProvider, ProviderEvent } from '../provider/model-provider.js';

/** A tool call whose result on replay is not what the record holds (or that the record lacks). */
export interface ReplayDifference {
  name: string;
  input: unknown;
  why: string;
}

/** The model and the tools of a replayed run, and what it found different. */
export interface RunReplay {
  /** Answers each request with the next recorded response; none is sent anywhere. */
  provider(contextWindow: (model: string) => number): ModelProvider;
  /** Recorded results (or, with `execute`, the tools run again and compared with them). */
  tools(host: ToolHost): ToolHost;
  differences(): readonly ReplayDifference[];
  /** Recorded responses and calls the replay never asked for: the run took another path. */
  unused(): { responses: number; calls: number };
}

/**
 * `skate replay FILE`: the recorded run again, with no model. Responses come in the order the run
 * asks for them. A tool call takes the first unused recorded call with the same name and input
 * (a turn's calls run at once and may end in another order); without `execute` its recorded lines
 * and result are given back, with it the tool runs again and a result unlike the record's is a
 * difference. A call the record lacks is run (execute) or refused as a result, and counted.
 */
export function createRunReplay(
  responses: readonly RecordedModelResponse[],
  calls: readonly RecordedToolCall[],
  options: { execute: boolean },
): RunReplay {
  let nextResponse = 0;
  const used = new Set<number>();
  const differences: ReplayDifference[] = [];
  const take = (name: string, input: unknown): RecordedToolCall | undefined => {
    const index = calls.findIndex(
      (call, i) => !used.has(i) && call.name === name && isDeepStrictEqual(call.input, input),
    );
    if (index < 0) return undefined;
    used.add(index);
    return calls[index];
  };
  return {
    provider: (contextWindow) => ({
      name: 'replay',
      contextWindow,
      async *stream(): AsyncIterable<ProviderEvent> {
        const response = responses[nextResponse++];
        if (!response) {
          yield {
            type: 'error',
            error: {
              kind: 'bad_request',
              message: `the record holds ${responses.length} model responses and this run asked for more: it took another path than the recorded run`,
            },
          };
          return;
        }
        yield* response.events as ProviderEvent[];
      },
    }),
    tools: (host) => ({
      listTools: () => host.listTools(),
      async callTool(name, input, callOptions): Promise<ToolResult> {
        const recorded = take(name, input);
        if (!options.execute) {
          if (!recorded) {
            differences.push({ name, input, why: 'not in the record' });
            return {
              output: `${name} was not run: the record of this run holds no such call (replayed without running tools).`,
              isError: true,
              code: 'internal',
            };
          }
          for (const line of recorded.lines) callOptions.onOutput?.({ callId: '', ...line });
          return recorded.result;
        }
        const result = await host.callTool(name, input, callOptions);
        if (!recorded) differences.push({ name, input, why: 'not in the record' });
        else if (!isDeepStrictEqual(comparable(result), comparable(recorded.result))) {
          differences.push({
            name,
            input,
            why: `its result differs from the record:\n${diffLine(recorded.result, result)}`,
          });
        }
        return result;
      },
    }),
    differences: () => differences,
    unused: () => ({ responses: responses.length - nextResponse, calls: calls.length - used.size }),
  };
}

/** What a tool produced, for comparison: output, error and code (a display may carry timings). */
function comparable(result: ToolResult): unknown {
  return { output: result.output, isError: result.isError, code: result.code };
}

function diffLine(recorded: ToolResult, now: ToolResult): string {
  const cut = (text: string): string => (text.length > 200 ? `${text.slice(0, 200)}…` : text);
  return `  recorded: ${JSON.stringify(cut(recorded.output))}${recorded.isError ? ' (error)' : ''}\n  now:      ${JSON.stringify(cut(now.output))}${now.isError ? ' (error)' : ''}`;
}
