import { describe, expect, it } from 'vitest';
import type { EngineEvent } from '../../../shared/engine-events.js';
import { fakeTool, runEngine } from './engine-harness.js';

const tools = [fakeTool('read_file', 'read'), fakeTool('write_file', 'write'), fakeTool('shell', 'execute')];

const threeCalls = {
  steps: [
    { type: 'tool_call' as const, id: 'r', name: 'read_file', input: { path: 'a' } },
    { type: 'tool_call' as const, id: 'w', name: 'write_file', input: { path: 'b', content: 'x' } },
    { type: 'tool_call' as const, id: 's', name: 'shell', input: { command: 'rm -rf build' } },
  ],
};

describe('Engine: approvals', () => {
  it('asks for writes and commands, all pending at once; approve runs, reject tells the model why', async () => {
    const requests: Extract<EngineEvent, { type: 'approval_request' }>[] = [];
    const { outcome, events, host, provider } = await runEngine({
      turns: [threeCalls, { steps: [{ type: 'text', text: 'Understood.' }] }],
      tools,
      request: { approval: 'ask' },
      onEvent: (event, { inbox }) => {
        if (event.type !== 'approval_request') return;
        requests.push(event);
        // Answer only once both requests are out: proves they wait side by side.
        if (requests.length < 2) return;
        const [write, shell] = requests as [(typeof requests)[0], (typeof requests)[0]];
        setTimeout(() => {
          inbox.send({
            type: 'approval_response',
            requestId: shell.requestId,
            decision: 'reject',
            feedback: 'do not delete build/, use make clean',
          });
          inbox.send({ type: 'approval_response', requestId: write.requestId, decision: 'approve' });
        }, 5);
      },
    });
    expect(outcome.status).toBe('complete');
    expect(requests.map((request) => [request.callId, request.name, request.effect])).toEqual([
      ['w', 'write_file', 'write'],
      ['s', 'shell', 'execute'],
    ]);
    expect(requests[1]?.args).toEqual({ command: 'rm -rf build' });
    expect(host.calls.map((call) => call.name).sort()).toEqual(['read_file', 'write_file']);
    expect(events.ofType('action_blocked')).toEqual([
      {
        type: 'action_blocked',
        agent: [],
        id: 's',
        name: 'shell',
        by: 'user',
        reason: 'rejected by the user: do not delete build/, use make clean',
      },
    ]);
    const results = provider.requests[1]?.messages.at(-1)?.content ?? [];
    expect(results.map((block) => (block.type === 'tool_result' ? block.callId : ''))).toEqual([
      'r',
      'w',
      's',
    ]);
    expect(results[2]).toMatchObject({
      type: 'tool_result',
      isError: true,
      output: expect.stringContaining('do not delete build/, use make clean'),
    });
    expect(results[2]).toMatchObject({ output: expect.stringContaining('rejected') });
  });

  it('refuses writes and commands without asking in deny-writes mode', async () => {
    const { outcome, events, host } = await runEngine({
      turns: [threeCalls, { steps: [{ type: 'text', text: 'Read only, then.' }] }],
      tools,
      request: { approval: 'deny-writes' },
    });
    expect(outcome.status).toBe('complete');
    expect(events.ofType('approval_request')).toHaveLength(0);
    expect(host.calls.map((call) => call.name)).toEqual(['read_file']);
    const blocked = events.ofType('action_blocked');
    expect(blocked.map((event) => [event.id, event.by])).toEqual([
      ['w', 'user'],
      ['s', 'user'],
    ]);
    for (const event of blocked) expect(event.reason).toContain('deny-writes');
    expect(events.ofType('tool_call_result').find((event) => event.id === 'w')).toMatchObject({
      isError: true,
      output: expect.stringContaining('deny-writes'),
    });
  });

  it('never asks in auto mode', async () => {
    const { events, host } = await runEngine({
      turns: [threeCalls, { steps: [{ type: 'text', text: 'ok' }] }],
      tools,
      request: { approval: 'auto' },
    });
    expect(events.ofType('approval_request')).toHaveLength(0);
    expect(host.calls).toHaveLength(3);
  });
});

describe('Engine: approvals with nobody attached', () => {
  it('refuses writes and commands at once, saying what happened rather than quoting a user', async () => {
    const requests: EngineEvent[] = [];
    const { outcome, events, host, provider } = await runEngine({
      turns: [threeCalls, { steps: [{ type: 'text', text: 'Understood.' }] }],
      tools,
      request: { approval: 'ask', approvalUnattended: true },
      onEvent: (event) => {
        if (event.type === 'approval_request') requests.push(event);
      },
    });
    expect(outcome.status).toBe('complete');
    expect(requests).toEqual([]);
    expect(host.calls.map((call) => call.name)).toEqual(['read_file']);
    expect(events.ofType('action_blocked').map((event) => event.name)).toEqual(['write_file', 'shell']);
    const results = provider.requests[1]?.messages.at(-1)?.content ?? [];
    const told = results.flatMap((block) => (block.type === 'tool_result' ? [JSON.stringify(block)] : []));
    expect(told[1]).toContain('write_file was not run: no one is attached to approve write_file calls');
    expect(told[2]).toContain('shell was not run: no one is attached to approve shell calls');
    expect(told.join('\n')).not.toMatch(/user rejected|said:/);
  });
});
