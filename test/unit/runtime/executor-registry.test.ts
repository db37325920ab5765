import { describe, expect, it } from 'vitest';
import {
  ExecutorRegistry,
  MAX_KEPT_DENIALS,
  MAX_STOPPED_ROWS,
  policySummary,
} from '../../../harness/runtime/executor-registry.js';
import type { EngineEvent } from '../../../shared/engine-events.js';
import { testPolicy } from '../../support/policies.js';

const everything = (): boolean => true;

function result(id: string, name: string, output: string, extra: Partial<EngineEvent> = {}): EngineEvent {
  return {
    type: 'tool_call_result',
    agent: [],
    id,
    name,
    output,
    isError: false,
    durationMs: 1,
    ...extra,
  } as EngineEvent;
}

function clock(): { now: () => number; advance: (ms: number) => void } {
  let at = 1_000;
  return { now: () => at, advance: (ms) => (at += ms) };
}

describe('ExecutorRegistry', () => {
  it('keeps a row per executor through its states, restarting its uptime with a new pid', () => {
    const time = clock();
    const registry = new ExecutorRegistry(time.now);
    let changes = 0;
    registry.subscribe(() => changes++);
    const policy = testPolicy('/work/app', {
      network: { mode: 'allowlist', allow: ['a.test', 'b.test'], deny: [] },
    });
    const slot = registry.add({
      role: 'main',
      name: 'main',
      pid: 10,
      state: 'starting',
      policy: policySummary(policy),
    });
    const before = registry.rows();
    time.advance(5_000);
    slot.update({ state: 'ready' });
    expect(registry.rows()).not.toBe(before);
    expect(registry.rows()[0]).toMatchObject({ state: 'ready', pid: 10, startedAt: 1_000 });
    expect(registry.rows()[0]!.policy).toMatchObject({
      name: 'test',
      network: '2 hosts',
      write: ['/work/app'],
    });
    slot.update({ state: 'restarting' });
    slot.update({ state: 'ready', pid: 11 });
    expect(registry.rows()[0]).toMatchObject({ pid: 11, startedAt: 6_000 });
    time.advance(1_000);
    slot.stopped();
    expect(registry.rows()[0]).toMatchObject({ state: 'stopped', stoppedAt: 7_000 });
    expect(changes).toBe(5);
  });

  it('counts the calls an executor ran: not the harness own tools, not calls refused before it', () => {
    const registry = new ExecutorRegistry();
    const slot = registry.add({ role: 'main', name: 'main', state: 'ready', policy: undefined });
    const served = (tool: string): boolean => tool !== 'spawn_agent';
    slot.observe(result('1', 'read_file', 'x'), served);
    slot.observe(result('2', 'spawn_agent', 'done'), served);
    slot.observe(
      { type: 'action_blocked', agent: [], id: '3', name: 'shell', by: 'hook', reason: 'no' },
      served,
    );
    slot.observe(result('3', 'shell', 'refused by a hook', { isError: true, code: 'denied' }), served);
    expect(registry.rows()[0]).toMatchObject({ toolCalls: 1, denialCount: 0 });
  });

  it('records network refusals with host and port, and what the sandbox refused', () => {
    const registry = new ExecutorRegistry(() => 42);
    const slot = registry.add({ role: 'sub-agent', name: 'agent-1', state: 'ready', policy: undefined });
    slot.observe(
      {
        type: 'network_denied',
        agent: ['agent-1'],
        host: 'evil.test',
        port: 443,
        reason: 'not_allowed',
        at: '2026-11-26T07:00:00.000Z',
        command: 'curl https://evil.test',
      },
      everything,
    );
    slot.observe(
      result('w', 'write_file', 'write denied by policy "test": /etc/x is outside the writable paths [/w]', {
        isError: true,
        code: 'denied',
      }),
      everything,
    );
    slot.observe(
      result('s', 'shell', "touch: cannot touch '/usr/x': Read-only file system\n[exit code 1]", {
        isError: true,
        code: 'failed',
      }),
      everything,
    );
    // A command that succeeded and merely printed the words is no refusal.
    slot.observe(result('c', 'shell', 'grep found: permission denied\n[exit code 0]'), everything);
    const [row] = registry.rows();
    expect(row!.toolCalls).toBe(3);
    expect(row!.denials).toEqual([
      {
        kind: 'network',
        at: 42,
        host: 'evil.test',
        port: 443,
        reason: 'not_allowed',
        command: 'curl https://evil.test',
      },
      {
        kind: 'policy',
        at: 42,
        tool: 'write_file',
        detail: 'write denied by policy "test": /etc/x is outside the writable paths [/w]',
      },
      {
        kind: 'kernel',
        at: 42,
        tool: 'shell',
        detail: "touch: cannot touch '/usr/x': Read-only file system",
      },
    ]);
  });

  it('gives an MCP tool call to the newest row of its server, not to the agent', () => {
    const registry = new ExecutorRegistry();
    const main = registry.add({ role: 'main', name: 'main', state: 'ready', policy: undefined });
    const old = registry.add({ role: 'mcp', name: 'files', state: 'ready', policy: undefined });
    old.stopped();
    registry.add({ role: 'mcp', name: 'files', state: 'ready', policy: undefined });
    main.observe(result('1', 'mcp__files__read', 'x'), (tool) => !tool.startsWith('mcp__'));
    expect(registry.rows().map((row) => row.toolCalls)).toEqual([0, 0, 1]);
  });

  it('bounds what it keeps: the latest denials, the latest stopped executors', () => {
    const registry = new ExecutorRegistry();
    const slot = registry.add({ role: 'main', name: 'main', state: 'ready', policy: undefined });
    for (let i = 0; i < MAX_KEPT_DENIALS + 5; i++) {
      slot.observe(
        { type: 'network_denied', agent: [], host: `h${i}.test`, port: 80, reason: 'not_allowed', at: '' },
        everything,
      );
    }
    expect(registry.rows()[0]!.denials).toHaveLength(MAX_KEPT_DENIALS);
    expect(registry.rows()[0]!.denialCount).toBe(MAX_KEPT_DENIALS + 5);
    expect(registry.rows()[0]!.denials.at(-1)).toMatchObject({ host: `h${MAX_KEPT_DENIALS + 4}.test` });
    for (let i = 0; i < MAX_STOPPED_ROWS + 3; i++) {
      registry.add({ role: 'sub-agent', name: `agent-${i}`, state: 'ready', policy: undefined }).stopped();
    }
    const rows = registry.rows();
    expect(rows.filter((row) => row.state === 'stopped')).toHaveLength(MAX_STOPPED_ROWS);
    expect(rows[0]!.name).toBe('main');
    expect(rows[1]!.name).toBe('agent-3');
  });
});
