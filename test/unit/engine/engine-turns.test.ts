import { describe, expect, it } from 'vitest';
import { createCollectingEmitter } from '../../../harness/emitters/collecting-emitter.js';
import { createCommandInbox } from '../../../harness/engine/command-inbox.js';
import { Engine } from '../../../harness/engine/engine.js';
import type { ModelProvider, ProviderEvent } from '../../../harness/provider/model-provider.js';
import { createScriptedProvider } from '../../support/scripted-provider.js';
import { baseRequest, createFakeToolHost, fakeTool, recordingLog, runEngine } from './engine-harness.js';

const usage = { inputTokens: 100, outputTokens: 20, cacheReadTokens: 30, cacheWriteTokens: 5 };

describe('Engine: turns and events', () => {
  it('answers a plain prompt with the expected event sequence and outcome', async () => {
    const log = recordingLog();
    const { outcome, events, provider } = await runEngine({
      turns: [{ steps: [{ type: 'text', text: 'Hello there.' }], usage }],
      request: { workspace: '/work/project', policyName: 'execute' },
      tools: [fakeTool('read_file', 'read')],
      log,
    });
    expect(events.types()).toEqual([
      'turn_start',
      'text_delta',
      'text_done',
      'usage',
      'context_usage',
      'turn_end',
    ]);
    expect(events.events.every((event) => Array.isArray(event.agent) && event.agent.length === 0)).toBe(true);
    expect(events.first('turn_end')).toMatchObject({ turn: 1, reason: 'complete' });
    expect(events.first('usage')).toMatchObject({ turn: usage, total: usage });
    expect(events.first('context_usage')).toEqual({
      type: 'context_usage',
      agent: [],
      usedTokens: 155,
      windowTokens: 200_000,
    });
    expect(outcome).toMatchObject({
      status: 'complete',
      finalMessage: 'Hello there.',
      turns: 1,
      toolCalls: 0,
      usage,
    });
    expect(outcome.messages).toEqual([
      { role: 'user', content: [{ type: 'text', text: 'Do the thing.' }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Hello there.' }] },
    ]);
    const [sent] = provider.requests;
    expect(sent?.system).toContain('/work/project');
    expect(sent?.system).toContain('"execute"');
    expect(sent?.tools.map((tool) => tool.name)).toEqual(['read_file']);
    expect(log.entries.map((entry) => entry.kind)).toEqual(['userMessage', 'assistantMessage']);
    expect(log.entries[1]?.args.slice(1)).toEqual([usage, 'claude-sonnet-5-5']);
  });

  it("reports why the model's last reply stopped: a refusal, a reply cut off", async () => {
    const refused = await runEngine({
      turns: [{ steps: [{ type: 'text', text: 'No.' }], stopReason: 'refusal' }],
    });
    expect(refused.outcome).toMatchObject({ status: 'complete', stopReason: 'refusal' });
    expect(refused.events.first('warn')?.message).toMatch(/declined/);
    const cut = await runEngine({
      turns: [{ steps: [{ type: 'text', text: 'Half' }], stopReason: 'max_tokens' }],
    });
    expect(cut.outcome).toMatchObject({ status: 'complete', stopReason: 'max_tokens' });
    const plain = await runEngine({ turns: [{ steps: [{ type: 'text', text: 'Yes.' }] }] });
    expect(plain.outcome.stopReason).toBe('end_turn');
  });

  it('replaces or extends the system prompt as asked, and passes history and images', async () => {
    const history = [
      { role: 'user' as const, content: [{ type: 'text' as const, text: 'earlier' }] },
      { role: 'assistant' as const, content: [{ type: 'text' as const, text: 'reply' }] },
    ];
    const image = { mediaType: 'image/png' as const, data: 'aGk=' };
    const { provider, outcome } = await runEngine({
      turns: [{ steps: [{ type: 'text', text: 'ok' }] }],
      request: {
        systemPrompt: 'Custom.',
        appendSystemPrompt: 'Also this.',
        history,
        prompt: { text: 'now', images: [image] },
      },
    });
    expect(provider.requests[0]?.system).toBe('Custom.\n\nAlso this.');
    expect(provider.requests[0]?.messages).toEqual([
      ...history,
      {
        role: 'user',
        content: [
          { type: 'image', ...image },
          { type: 'text', text: 'now' },
        ],
      },
    ]);
    expect(outcome.messages).toHaveLength(4);
  });

  it('streams text deltas of one block, thinking, and ends each block once', async () => {
    // A provider that streams like the real one: many deltas per block.
    const streaming: ModelProvider = {
      name: 'streaming',
      contextWindow: () => 1000,
      async *stream(): AsyncGenerator<ProviderEvent> {
        const thought = { type: 'thinking' as const, thinking: 'Let me think.', signature: 'sig' };
        const text = { type: 'text' as const, text: 'Hello, world' };
        yield { type: 'thinking_delta', index: 0, text: 'Let me ' };
        yield { type: 'thinking_delta', index: 0, text: 'think.' };
        yield { type: 'block_done', index: 0, block: thought };
        for (const piece of ['Hel', 'lo, ', 'world']) yield { type: 'text_delta', index: 1, text: piece };
        yield { type: 'block_done', index: 1, block: text };
        yield {
          type: 'message_done',
          message: { role: 'assistant', content: [thought, text] },
          stopReason: 'end_turn',
          usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 },
        };
      },
    };
    const events = createCollectingEmitter();
    const outcome = await new Engine().run(
      {
        provider: streaming,
        tools: createFakeToolHost([]),
        inbox: createCommandInbox().inbox,
        signal: new AbortController().signal,
        agent: ['explore-1'],
      },
      baseRequest(),
      events,
    );
    expect(events.types()).toEqual([
      'turn_start',
      'thinking_start',
      'thinking_delta',
      'thinking_delta',
      'thinking_done',
      'text_delta',
      'text_delta',
      'text_delta',
      'text_done',
      'usage',
      'context_usage',
      'turn_end',
    ]);
    expect(events.ofType('text_delta').map((event) => event.text)).toEqual(['Hel', 'lo, ', 'world']);
    expect(events.first('text_done')?.text).toBe('Hello, world');
    expect(events.first('thinking_done')?.text).toBe('Let me think.');
    expect(events.events.every((event) => event.agent[0] === 'explore-1')).toBe(true);
    expect(events.first('context_usage')?.windowTokens).toBe(1000);
    expect(outcome.finalMessage).toBe('Hello, world');
    // The signed thinking block goes back to the API as it came.
    expect(outcome.messages[1]?.content[0]).toEqual({
      type: 'thinking',
      thinking: 'Let me think.',
      signature: 'sig',
    });
  });

  it("announces a tool call with the provider's finished block, parsing nothing itself", async () => {
    const input = { path: 'src/a.ts' };
    const call = { type: 'tool_use' as const, id: 'toolu_1', name: 'read_file', input };
    let turn = 0;
    const provider: ModelProvider = {
      name: 'finished-blocks',
      contextWindow: () => 1000,
      async *stream(): AsyncGenerator<ProviderEvent> {
        const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };
        if (turn++ > 0) {
          const text = { type: 'text' as const, text: 'Done.' };
          yield { type: 'block_done', index: 0, block: text };
          yield {
            type: 'message_done',
            message: { role: 'assistant', content: [text] },
            stopReason: 'end_turn',
            usage,
          };
          return;
        }
        yield { type: 'tool_use_start', index: 0, id: 'toolu_1', name: 'read_file' };
        // Deltas are progress only: these do not even form JSON, and nothing may read them as the input.
        yield { type: 'tool_input_delta', index: 0, json: '{"pa' };
        yield { type: 'tool_input_delta', index: 0, json: 'th": not json' };
        yield { type: 'block_done', index: 0, block: call };
        yield {
          type: 'message_done',
          message: { role: 'assistant', content: [call] },
          stopReason: 'tool_use',
          usage,
        };
      },
    };
    const events = createCollectingEmitter();
    const tools = createFakeToolHost([fakeTool('read_file', 'read')]);
    await new Engine().run(
      { provider, tools, inbox: createCommandInbox().inbox, signal: new AbortController().signal, agent: [] },
      baseRequest(),
      events,
    );
    expect(events.ofType('tool_call_start')).toHaveLength(1);
    expect(events.first('tool_call_start')?.args).toBe(input);
    expect(tools.calls[0]?.input).toBe(input);
  });

  it('runs two tool calls of one turn concurrently and returns results in the original order', async () => {
    let started = 0;
    let releaseBoth!: () => void;
    const bothStarted = new Promise<void>((resolve) => {
      releaseBoth = resolve;
    });
    const enter = async (): Promise<void> => {
      if (++started === 2) releaseBoth();
      // Each call waits until both are running: a sequential loop would never get here.
      await Promise.race([
        bothStarted,
        new Promise((_, reject) => setTimeout(() => reject(new Error('calls did not overlap')), 2_000)),
      ]);
    };
    const finished: string[] = [];
    const { outcome, events, provider } = await runEngine({
      turns: [
        {
          steps: [
            { type: 'text', text: 'Two reads.' },
            { type: 'tool_call', id: 'call-slow', name: 'slow', input: { path: 'a' } },
            { type: 'tool_call', id: 'call-fast', name: 'fast', input: { path: 'b' } },
          ],
        },
        { steps: [{ type: 'text', text: 'Both read.' }] },
      ],
      tools: [
        fakeTool('slow', 'read', async (_input, { onOutput }) => {
          await enter();
          onOutput?.({ callId: 'host-1', stream: 'stdout', text: 'slow line' });
          await new Promise((resolve) => setTimeout(resolve, 30));
          finished.push('slow');
          return { output: 'slow result', isError: false };
        }),
        fakeTool('fast', 'read', async () => {
          await enter();
          finished.push('fast');
          return { output: 'fast result', isError: false };
        }),
      ],
    });
    expect(outcome).toMatchObject({ status: 'complete', turns: 2, toolCalls: 2, finalMessage: 'Both read.' });
    expect(finished).toEqual(['fast', 'slow']);
    expect(events.ofType('tool_call_start').map((event) => [event.id, event.args])).toEqual([
      ['call-slow', { path: 'a' }],
      ['call-fast', { path: 'b' }],
    ]);
    expect(events.ofType('tool_call_result').map((event) => event.id)).toEqual(['call-fast', 'call-slow']);
    for (const result of events.ofType('tool_call_result'))
      expect(result.durationMs).toBeGreaterThanOrEqual(0);
    expect(events.first('tool_output_line')).toEqual({
      type: 'tool_output_line',
      agent: [],
      id: 'call-slow',
      stream: 'stdout',
      text: 'slow line',
    });
    // One user message, results in the order of the calls.
    expect(provider.requests[1]?.messages.at(-1)).toEqual({
      role: 'user',
      content: [
        { type: 'tool_result', callId: 'call-slow', output: 'slow result', isError: false },
        { type: 'tool_result', callId: 'call-fast', output: 'fast result', isError: false },
      ],
    });
    expect(events.types().filter((type) => type === 'turn_start' || type === 'turn_end')).toEqual([
      'turn_start',
      'turn_end',
      'turn_start',
      'turn_end',
    ]);
  });

  it('reports a policy denial as action_blocked and gives the model the error', async () => {
    const { events, provider, outcome } = await runEngine({
      turns: [
        { steps: [{ type: 'tool_call', id: 'w1', name: 'write_file', input: { path: '/etc/x' } }] },
        { steps: [{ type: 'text', text: 'Could not write there.' }] },
      ],
      tools: [
        fakeTool('write_file', 'write', () => ({
          output: 'write denied by policy "test": /etc/x is outside the writable paths',
          isError: true,
          code: 'denied',
        })),
      ],
    });
    expect(outcome.status).toBe('complete');
    expect(events.first('tool_call_result')).toMatchObject({ id: 'w1', isError: true, code: 'denied' });
    expect(events.ofType('action_blocked')).toEqual([
      {
        type: 'action_blocked',
        agent: [],
        id: 'w1',
        name: 'write_file',
        by: 'policy',
        reason: 'write denied by policy "test": /etc/x is outside the writable paths',
      },
    ]);
    expect(provider.requests[1]?.messages.at(-1)?.content[0]).toMatchObject({
      type: 'tool_result',
      isError: true,
    });
  });

  it('turns a throwing tool host into an error result, not a failed run', async () => {
    const { events, outcome } = await runEngine({
      turns: [
        { steps: [{ type: 'tool_call', id: 'x1', name: 'boom', input: {} }] },
        { steps: [{ type: 'text', text: 'The executor broke.' }] },
      ],
      tools: [
        fakeTool('boom', 'read', () => {
          throw new Error('executor exited');
        }),
      ],
    });
    expect(outcome.status).toBe('complete');
    expect(events.first('tool_call_result')).toMatchObject({
      isError: true,
      code: 'internal',
      output: expect.stringContaining('executor exited'),
    });
  });

  it('runs meta tools in the harness with the call context', async () => {
    const seen: unknown[] = [];
    const { events, host, outcome } = await runEngine({
      turns: [
        { steps: [{ type: 'tool_call', id: 'm1', name: 'ask_user', input: { q: 'why?' } }] },
        { steps: [{ type: 'text', text: 'ok' }] },
      ],
      metaTools: [
        {
          definition: {
            name: 'ask_user',
            description: 'ask',
            effect: 'read',
            inputSchema: { type: 'object' },
          },
          async run(call) {
            seen.push(call.callId, call.input, call.agent);
            call.emit({ type: 'info', agent: ['child'], message: 'from the meta tool' });
            return { output: 'because', isError: false };
          },
        },
      ],
    });
    expect(outcome.status).toBe('complete');
    expect(seen).toEqual(['m1', { q: 'why?' }, []]);
    expect(host.calls).toHaveLength(0);
    expect(events.first('info')).toMatchObject({ agent: ['child'], message: 'from the meta tool' });
    expect(events.first('tool_call_result')).toMatchObject({ output: 'because' });
  });

  it('retries after a 529 with a warning, then succeeds', async () => {
    const { events, outcome } = await runEngine({
      turns: [
        {
          steps: [
            { type: 'retry', reason: '529 overloaded', delayMs: 500 },
            { type: 'text', text: 'Made it.' },
          ],
        },
      ],
    });
    expect(outcome).toMatchObject({ status: 'complete', finalMessage: 'Made it.' });
    expect(events.ofType('warn')).toHaveLength(1);
    expect(events.first('warn')?.message).toContain('529 overloaded');
    expect(events.types()).toEqual([
      'turn_start',
      'warn',
      'text_delta',
      'text_done',
      'usage',
      'context_usage',
      'turn_end',
    ]);
  });

  it('drops a partial turn when a retry discards it', async () => {
    const { events, outcome } = await runEngine({
      turns: [
        {
          steps: [
            { type: 'text', text: 'Half a rep' },
            { type: 'tool_call', id: 'lost', name: 'read_file', input: {} },
            { type: 'retry', reason: 'connection reset' },
            { type: 'text', text: 'Whole reply.' },
          ],
        },
      ],
      tools: [fakeTool('read_file', 'read')],
    });
    expect(events.first('warn')?.message).toMatch(/discarded/);
    // The call announced before the cut gets a result saying it never ran, so no call stays open.
    expect(events.ofType('tool_call_start').map((event) => event.id)).toEqual(['lost']);
    expect(events.ofType('tool_call_result')).toEqual([
      expect.objectContaining({
        id: 'lost',
        isError: true,
        code: 'cancelled',
        output: expect.stringMatching(/not run/),
      }),
    ]);
    expect(outcome).toMatchObject({ status: 'complete', finalMessage: 'Whole reply.', toolCalls: 0 });
    expect(outcome.messages.at(-1)).toEqual({
      role: 'assistant',
      content: [{ type: 'text', text: 'Whole reply.' }],
    });
  });

  it.each([
    ['authentication', 401],
    ['bad_request', 400],
    ['unavailable', 529],
    ['connection', undefined],
  ] as const)('ends the run on a %s error', async (kind, status) => {
    const { events, outcome } = await runEngine({
      turns: [
        {
          steps: [
            { type: 'text', text: 'partial' },
            { type: 'error', kind, message: `it failed: ${kind}`, ...(status && { status }) },
          ],
        },
      ],
    });
    expect(outcome).toMatchObject({ status: 'error', error: `it failed: ${kind}` });
    expect(events.first('error')).toEqual({
      type: 'error',
      agent: [],
      message: `it failed: ${kind}`,
      code: kind,
    });
    expect(events.events.at(-1)).toMatchObject({ type: 'turn_end', reason: 'error' });
  });

  it('ends with an error when the tools cannot be listed', async () => {
    const host = createFakeToolHost([]);
    host.listTools = () => Promise.reject(new Error('executor exited'));
    const events = createCollectingEmitter();
    const outcome = await new Engine().run(
      {
        provider: createScriptedProvider([]),
        tools: host,
        inbox: createCommandInbox().inbox,
        signal: new AbortController().signal,
      },
      baseRequest(),
      events,
    );
    expect(outcome.status).toBe('error');
    expect(events.first('error')).toMatchObject({
      code: 'executor',
      message: expect.stringContaining('executor exited'),
    });
  });
});
