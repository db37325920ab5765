import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createCollectingEmitter } from '../../harness/emitters/collecting-emitter.js';
import { createCommandInbox } from '../../harness/engine/command-inbox.js';
import { Engine } from '../../harness/engine/engine.js';
import type { RunRequest } from '../../harness/engine/engine-types.js';
import { ExecutorClient } from '../../harness/executor-client/executor-client.js';
import { createAnthropicProvider } from '../../harness/provider/anthropic-provider.js';
import { type FakeMessagesApi, fakeMessagesApi } from '../support/fake-messages-api.js';
import { testPolicy } from '../support/policies.js';
import { eventually } from '../support/processes.js';
import { tempDir } from '../support/temp-dir.js';

async function spawnExecutor(workspace: string): Promise<ExecutorClient & AsyncDisposable> {
  const client = await ExecutorClient.spawn({ policy: testPolicy(workspace) });
  return Object.assign(client, {
    async [Symbol.asyncDispose]() {
      await client.shutdown();
    },
  });
}

function provider(server: FakeMessagesApi) {
  return createAnthropicProvider({
    apiKey: 'sk-ant-test-engine',
    baseURL: server.url,
    backoff: { baseMs: 5, capMs: 20 },
  });
}

function request(workspace: string, overrides: Partial<RunRequest> = {}): RunRequest {
  return {
    prompt: { text: 'Make hello.txt, then try to escape, then run a command.' },
    model: 'claude-sonnet-5-5',
    maxTokens: 2048,
    maxTurns: 10,
    approval: 'auto',
    workspace,
    policyName: 'test',
    ...overrides,
  };
}

describe('Engine with a real executor and the real SDK', () => {
  it('writes in the workspace, is denied outside it, streams command output, and finishes', async () => {
    await using dir = await tempDir();
    await using outside = await tempDir('skate-outside-');
    await using executor = await spawnExecutor(dir.path);
    const escapePath = path.join(outside.path, 'escaped.txt');
    await using server = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          { type: 'text', text: 'Writing two files.' },
          {
            type: 'tool_use',
            id: 'toolu_in',
            name: 'write_file',
            input: { path: 'hello.txt', content: 'hi there\n' },
          },
          {
            type: 'tool_use',
            id: 'toolu_out',
            name: 'write_file',
            input: { path: escapePath, content: 'x' },
          },
        ],
      },
      {
        type: 'message',
        blocks: [
          {
            type: 'tool_use',
            id: 'toolu_sh',
            name: 'shell',
            input: { command: 'printf "one\\ntwo\\nthree\\n"' },
          },
        ],
      },
      { type: 'message', blocks: [{ type: 'text', text: 'Done: hello.txt written.' }] },
    ]);
    const events = createCollectingEmitter();
    const outcome = await new Engine().run(
      {
        provider: provider(server),
        tools: executor,
        inbox: createCommandInbox().inbox,
        signal: new AbortController().signal,
      },
      request(dir.path),
      events,
    );

    expect(executor.enforcement).toBe('kernel');
    expect(outcome).toMatchObject({
      status: 'complete',
      turns: 3,
      toolCalls: 3,
      finalMessage: 'Done: hello.txt written.',
    });
    expect(await readFile(path.join(dir.path, 'hello.txt'), 'utf8')).toBe('hi there\n');
    expect(existsSync(escapePath)).toBe(false);

    const results = new Map(events.ofType('tool_call_result').map((event) => [event.id, event]));
    expect(results.get('toolu_in')).toMatchObject({ isError: false });
    expect(results.get('toolu_out')).toMatchObject({ isError: true, code: 'denied' });
    expect(events.ofType('action_blocked')).toEqual([
      expect.objectContaining({ id: 'toolu_out', by: 'policy', reason: expect.stringContaining('denied') }),
    ]);
    expect(
      events
        .ofType('tool_output_line')
        .filter((event) => event.id === 'toolu_sh')
        .map((event) => event.text),
    ).toEqual(['one', 'two', 'three']);
    expect(results.get('toolu_sh')?.output).toContain('[exit code 0]');
    // Every output line arrived before its call's result.
    const types = events.events.map((event) => (event.type === 'tool_output_line' ? 'line' : event.type));
    expect(types.lastIndexOf('line')).toBeLessThan(
      events.events.findIndex((event) => event.type === 'tool_call_result' && event.id === 'toolu_sh'),
    );

    // What the API saw: the executor's tools, the system prompt, and the results in call order.
    const second = server.requests[1]?.body;
    expect(second?.tools?.map((tool) => tool.name)).toEqual(
      expect.arrayContaining(['write_file', 'shell', 'read_file']),
    );
    expect(JSON.stringify(second?.system)).toContain(dir.path);
    const lastUser = second?.messages.at(-1)?.content as { type: string; tool_use_id?: string }[];
    expect(lastUser.map((block) => block.tool_use_id)).toEqual(['toolu_in', 'toolu_out']);
  });

  it('cancels a running command and leaves no running call behind', async () => {
    await using dir = await tempDir();
    await using executor = await spawnExecutor(dir.path);
    await using server = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          {
            type: 'tool_use',
            id: 'toolu_long',
            name: 'shell',
            input: { command: 'for i in $(seq 1 200); do echo tick $i; sleep 0.05; done' },
          },
        ],
      },
    ]);
    const controller = new AbortController();
    const events = createCollectingEmitter((event) => {
      if (event.type === 'tool_output_line' && event.text === 'tick 3') controller.abort();
    });
    const started = Date.now();
    const outcome = await new Engine().run(
      {
        provider: provider(server),
        tools: executor,
        inbox: createCommandInbox().inbox,
        signal: controller.signal,
      },
      request(dir.path),
      events,
    );
    expect(outcome.status).toBe('cancelled');
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(events.first('tool_call_result')).toMatchObject({
      id: 'toolu_long',
      isError: true,
      code: 'cancelled',
    });
    expect(outcome.messages.at(-1)?.content).toEqual([
      expect.objectContaining({ type: 'tool_result', callId: 'toolu_long', isError: true }),
    ]);
    expect(events.events.at(-1)).toMatchObject({ type: 'turn_end', reason: 'cancelled' });
    expect(await eventually(async () => (await executor.health()).runningCalls === 0)).toBe(true);
    // Only one model request: nothing was sent after the interrupt.
    expect(server.requests).toHaveLength(1);
  });

  it('keeps the streamed text when interrupted mid-reply', async () => {
    await using dir = await tempDir();
    await using executor = await spawnExecutor(dir.path);
    await using server = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          { type: 'text', text: 'A long answer that will not be finished because the user stops it.' },
        ],
        chunkDelayMs: 20,
      },
    ]);
    const controller = new AbortController();
    const events = createCollectingEmitter((event) => {
      if (event.type === 'text_delta' && events.ofType('text_delta').length === 4) controller.abort();
    });
    const outcome = await new Engine().run(
      {
        provider: provider(server),
        tools: executor,
        inbox: createCommandInbox().inbox,
        signal: controller.signal,
      },
      request(dir.path),
      events,
    );
    const streamed = events
      .ofType('text_delta')
      .map((event) => event.text)
      .join('');
    expect(outcome.status).toBe('cancelled');
    expect(streamed.length).toBeGreaterThan(0);
    expect(outcome.finalMessage).toBe(streamed);
    expect(outcome.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: streamed }],
    });
    expect(await server.requests[0]?.finished).toBe('client_closed');
  });
});
