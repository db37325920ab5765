import { describe, expect, it } from 'vitest';
import type { AgentHooks, HookVerdict } from '../../../harness/hooks/hook-verdict.js';
import type { HookEventName } from '../../../shared/hooks.js';
import { fakeTool, runEngine } from './engine-harness.js';

type Fired = { event: HookEventName; input: Record<string, unknown>; tool?: string | undefined };

/** Hooks answering by event, recording what was fired. */
function scriptedHooks(
  answer: (event: HookEventName, input: Record<string, unknown>, count: number) => Partial<HookVerdict>,
  agent: string[] = [],
): AgentHooks & { fired: Fired[] } {
  const fired: Fired[] = [];
  return {
    agent,
    fired,
    has: () => true,
    async fire(event, input, context) {
      fired.push({ event, input, tool: context.tool?.name });
      const count = fired.filter((f) => f.event === event).length;
      return { context: [], ...answer(event, input, count) };
    },
  };
}

const tools = [fakeTool('read_file', 'read'), fakeTool('shell', 'execute')];
const shellTurn = {
  steps: [{ type: 'tool_call' as const, id: 's', name: 'shell', input: { command: 'rm -rf /' } }],
};
const done = { steps: [{ type: 'text' as const, text: 'Done.' }] };

describe('Engine: hooks at the one tool-call path', () => {
  it('a PreToolUse deny is final: the call never reaches the host, and the model reads why', async () => {
    const hooks = scriptedHooks((event) =>
      event === 'PreToolUse' ? { permission: { decision: 'deny', reason: 'no rm -rf' } } : {},
    );
    const { host, events, provider } = await runEngine({ turns: [shellTurn, done], tools, hooks });
    expect(host.calls).toEqual([]);
    expect(events.ofType('action_blocked')).toEqual([
      expect.objectContaining({ id: 's', by: 'hook', reason: 'no rm -rf' }),
    ]);
    expect(JSON.stringify(provider.requests[1]?.messages.at(-1))).toContain('no rm -rf');
    expect(hooks.fired.map((f) => f.event)).toEqual(['UserPromptSubmit', 'PreToolUse', 'Stop']);
  });

  it('PreToolUse allow skips an approval; ask asks even in auto mode; PostToolUse block and context reach the model', async () => {
    const allowing = scriptedHooks((event) =>
      event === 'PreToolUse' ? { permission: { decision: 'allow', reason: '' } } : {},
    );
    const asked: string[] = [];
    const allowed = await runEngine({
      turns: [shellTurn, done],
      tools,
      hooks: allowing,
      request: { approval: 'ask' },
      onEvent: (event) => event.type === 'approval_request' && asked.push(event.name),
    });
    expect(asked).toEqual([]);
    expect(allowed.host.calls.map((c) => c.name)).toEqual(['shell']);

    const asking = scriptedHooks((event) => {
      if (event === 'PreToolUse') return { permission: { decision: 'ask', reason: 'sure?' } };
      if (event === 'PostToolUse') return { block: 'lint failed', context: ['remember the style guide'] };
      return {};
    });
    const { host, provider } = await runEngine({
      turns: [shellTurn, done],
      tools,
      hooks: asking,
      request: { approval: 'auto' },
      onEvent: (event, { inbox }) => {
        if (event.type !== 'approval_request') return;
        asked.push(event.name);
        inbox.send({ type: 'approval_response', requestId: event.requestId, decision: 'approve' });
      },
    });
    expect(asked).toEqual(['shell']);
    // Before a person is asked: PermissionRequest may decide, else Notification tells them they are waited for.
    expect(asking.fired.map((f) => f.event)).toEqual(
      expect.arrayContaining(['PreToolUse', 'PermissionRequest', 'Notification', 'PostToolUse']),
    );
    expect(asking.fired.find((f) => f.event === 'Notification')?.input).toMatchObject({
      notification_type: 'permission_prompt',
      message: expect.stringContaining('shell'),
    });
    expect(host.calls.map((c) => c.name)).toEqual(['shell']);
    const result = JSON.stringify(provider.requests[1]?.messages.at(-1));
    expect(result).toContain('PostToolUse hook: lint failed');
    expect(result).toContain('remember the style guide');
  });

  it('UserPromptSubmit adds context, or blocks the prompt before the model sees it', async () => {
    const adding = scriptedHooks((event) =>
      event === 'UserPromptSubmit' ? { context: ['branch: main'] } : {},
    );
    const added = await runEngine({ turns: [done], tools, hooks: adding });
    expect(JSON.stringify(added.provider.requests[0]?.messages)).toContain('branch: main');

    const blocking = scriptedHooks((event) =>
      event === 'UserPromptSubmit' ? { block: 'no secrets in prompts' } : {},
    );
    const blocked = await runEngine({ turns: [done], tools, hooks: blocking });
    expect(blocked.outcome.status).toBe('error');
    expect(blocked.outcome.error).toContain('no secrets in prompts');
    // Blocked, not a failure of Skate's: the CLI exits 4 for it.
    expect(blocked.outcome.errorCode).toBe('blocked');
    expect(blocked.provider.requests).toHaveLength(0);
  });

  it('a Stop block sends the agent back once with stop_hook_active set the second time', async () => {
    const hooks = scriptedHooks((event, input) =>
      event === 'Stop' && input.stop_hook_active === false ? { block: 'run the tests first' } : {},
    );
    const { outcome, provider } = await runEngine({ turns: [done, done], tools, hooks });
    expect(outcome.status).toBe('complete');
    expect(provider.requests).toHaveLength(2);
    expect(JSON.stringify(provider.requests[1]?.messages.at(-1))).toContain('run the tests first');
    expect(hooks.fired.filter((f) => f.event === 'Stop').map((f) => f.input.stop_hook_active)).toEqual([
      false,
      true,
    ]);
  });

  it('continue: false from PreToolUse stops the agent after this turn, as blocked rather than complete', async () => {
    const hooks = scriptedHooks((event) => (event === 'PreToolUse' ? { stop: 'enough' } : {}));
    const { outcome, host, provider } = await runEngine({ turns: [shellTurn, done], tools, hooks });
    expect(host.calls).toEqual([]);
    expect(outcome).toMatchObject({ status: 'error', errorCode: 'blocked' });
    expect(outcome.error).toContain('enough');
    expect(provider.requests).toHaveLength(1);
  });

  it('continue: false from PostToolUse stops the agent after the call ran, as blocked', async () => {
    const hooks = scriptedHooks((event) => (event === 'PostToolUse' ? { stop: 'tests are red' } : {}));
    const { outcome, host, provider } = await runEngine({ turns: [shellTurn, done], tools, hooks });
    expect(host.calls).toHaveLength(1);
    expect(outcome).toMatchObject({ status: 'error', errorCode: 'blocked' });
    expect(outcome.error).toContain('tests are red');
    expect(provider.requests).toHaveLength(1);
  });
});
