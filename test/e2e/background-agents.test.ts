import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { distPath } from '../../harness/project-paths.js';
import { RunResult } from '../../shared/run-result.js';
import { cliEnv, textReply as text } from '../support/cli-world.js';
import { type FakeReply, fakeMessagesApi, type RecordedRequest } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { processDescendants } from '../support/process-descendants.js';
import { eventually, isAlive } from '../support/processes.js';
import { runCli } from '../support/run-cli.js';

/**
 * Background sub-agents (issue #25) through the real CLI (`-p`, stream-json), real executors and
 * bubblewrap. Parent and children run at once, so each child's replies are routed by a marker in
 * its task (which its system prompt carries), not by the order requests arrive in.
 */
const call = (id: string, name: string, input: Record<string, unknown>): FakeReply => ({
  type: 'message',
  blocks: [{ type: 'tool_use', id, name, input }],
  stopReason: 'tool_use',
  usage: { input_tokens: 10, output_tokens: 5 },
});
const done = (id: string, summary: string): FakeReply =>
  call(id, 'complete_task', { status: 'completed', summary });

// biome-ignore lint/suspicious/noExplicitAny: stream-json lines, checked field by field below
function lines(stdout: string): any[] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

// biome-ignore lint/suspicious/noExplicitAny: a tool result's JSON output
function resultOf(out: any[], id: string): any {
  const line = out.find((l) => l.type === 'tool_call_result' && l.id === id);
  expect(line, `no result for ${id}`).toBeDefined();
  return JSON.parse(line.output);
}

/** The text blocks of the user messages the parent sent (its own requests: no sub-agent marker). */
function userTexts(request: RecordedRequest | undefined): string[] {
  return (request?.body?.messages ?? [])
    .filter((message) => message.role === 'user' && Array.isArray(message.content))
    .flatMap((message) => message.content as { type: string; text?: string }[])
    .filter((block) => block.type === 'text')
    .map((block) => block.text ?? '');
}

function isChild(request: RecordedRequest): boolean {
  const system = request.body?.system;
  const text = typeof system === 'string' ? system : (system ?? []).map((block) => block.text).join('');
  return text.includes('BG-');
}

describe('background sub-agents', () => {
  it('spawn_agent with background: true returns at once; agent_status polls it; agent_wait returns its result', async () => {
    await using ws = await hostDir('bg-poll-');
    await using home = await hostDir('bg-home-');
    await using api = await fakeMessagesApi([
      call('spawn', 'spawn_agent', { task: 'BG-ONE: look around', background: true, read_only: true }),
      call('status', 'agent_status', {}),
      call('wait', 'agent_wait', { ids: ['bg-1'], timeout_seconds: 60 }),
      text('all done'),
    ]);
    api.enqueueFor('BG-ONE', call('c1', 'shell', { command: 'sleep 2' }), done('c2', 'looked around'));
    const run = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
      timeoutMs: 60_000,
    });
    expect(run.code, `${run.stderr}\n${run.stdout.slice(-3000)}`).toBe(0);
    const out = lines(run.stdout);
    // The spawn came back before the child finished: its id, what it was asked, running.
    expect(resultOf(out, 'spawn')).toMatchObject({
      agent_id: 'bg-1',
      background: true,
      state: 'running',
      task: 'BG-ONE: look around',
    });
    const spawnedAt = out.findIndex((l) => l.type === 'tool_call_result' && l.id === 'spawn');
    const endedAt = out.findIndex((l) => l.type === 'dispatch_end');
    expect(spawnedAt).toBeLessThan(endedAt);
    // agent_status saw it running, with its figures.
    const status = resultOf(out, 'status');
    expect(status.agents).toHaveLength(1);
    expect(status.agents[0]).toMatchObject({ id: 'bg-1', state: 'running', task: 'BG-ONE: look around' });
    expect(status.agents[0]).toHaveProperty('elapsed_ms');
    expect(status.agents[0]).toHaveProperty('turns');
    // agent_wait returned its validated result, and the figures of its whole run.
    const waited = resultOf(out, 'wait');
    expect(waited.still_running).toEqual([]);
    expect(waited.ended).toHaveLength(1);
    expect(waited.ended[0]).toMatchObject({
      id: 'bg-1',
      state: 'completed',
      turns: 2,
      tokens: 30,
      result: { agent_id: 'bg-1', result: { status: 'completed', summary: 'looked around' } },
    });
    // Delivered by agent_wait, so never again as a message.
    const parentRequests = api.requests.filter((r) => !isChild(r));
    expect(parentRequests.flatMap(userTexts).some((t) => t.includes('background sub-agent bg-1'))).toBe(
      false,
    );
    const result = RunResult.parse(out.at(-1));
    expect(result.subtype).toBe('success');
    expect(result.dispatch).toMatchObject({ dispatches: 1, failures: {} });
  }, 90_000);

  it('two background children at once; the run waits for both and their results arrive as messages before its result', async () => {
    await using ws = await hostDir('bg-two-');
    await using home = await hostDir('bg-home-');
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          {
            type: 'tool_use',
            id: 's1',
            name: 'spawn_agent',
            input: { task: 'BG-A: first', background: true },
          },
          {
            type: 'tool_use',
            id: 's2',
            name: 'spawn_agent',
            input: { task: 'BG-B: second', background: true },
          },
        ],
        stopReason: 'tool_use',
      },
      // Ends its turn while both run: a headless run waits and takes their results in.
      text('started both'),
      text('got one'),
      text('got both'),
    ]);
    api.enqueueFor('BG-A', call('a1', 'shell', { command: 'sleep 1' }), done('a2', 'A finished'));
    api.enqueueFor('BG-B', call('b1', 'shell', { command: 'sleep 2' }), done('b2', 'B finished'));
    const run = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
      timeoutMs: 60_000,
    });
    expect(run.code, `${run.stderr}\n${run.stdout.slice(-3000)}`).toBe(0);
    const out = lines(run.stdout);
    expect(resultOf(out, 's1')).toMatchObject({ agent_id: 'bg-1', state: 'running' });
    expect(resultOf(out, 's2')).toMatchObject({ agent_id: 'bg-2', state: 'running' });
    // Both ran at once: each child's first request came before the other's last.
    const children = api.requests.filter(isChild);
    expect(children).toHaveLength(4);
    const order = children.map((r) => (systemOfIncludes(r, 'BG-A') ? 'A' : 'B'));
    // Each child's first request came before either's second: they ran at once, not one after the other.
    expect(order.slice(0, 2).sort()).toEqual(['A', 'B']);
    const ends = out.filter((l) => l.type === 'dispatch_end');
    expect(ends.map((l) => l.record.agent_id).sort()).toEqual(['bg-1', 'bg-2']);
    // The parent's later requests carry each result once, as a message.
    const parent = api.requests.filter((r) => !isChild(r));
    const last = userTexts(parent.at(-1));
    const arrivals = last.filter((t) => t.startsWith('[Skate: background sub-agent'));
    expect(arrivals).toHaveLength(2);
    expect(arrivals.join('\n')).toContain('A finished');
    expect(arrivals.join('\n')).toContain('B finished');
    const result = RunResult.parse(out.at(-1));
    expect(result.subtype).toBe('success');
    expect(result.result).toBe('got both');
    expect(result.dispatch).toMatchObject({ dispatches: 2, failures: {} });
  }, 90_000);

  it('past the cap on background children, spawn_agent is a clear tool error', async () => {
    await using ws = await hostDir('bg-cap-');
    await using home = await hostDir('bg-home-');
    const { mkdir, writeFile } = await import('node:fs/promises');
    await mkdir(`${home.path}/.skate`, { recursive: true });
    await writeFile(`${home.path}/.skate/settings.json`, JSON.stringify({ backgroundAgents: 1 }));
    await using api = await fakeMessagesApi([
      call('s1', 'spawn_agent', { task: 'BG-CAP1: one', background: true, read_only: true }),
      call('s2', 'spawn_agent', { task: 'BG-CAP2: two', background: true, read_only: true }),
      text('ok'),
      text('got it'),
    ]);
    api.enqueueFor('BG-CAP1', call('c1', 'shell', { command: 'sleep 1' }), done('c2', 'one done'));
    const run = await runCli(['-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
      timeoutMs: 60_000,
    });
    expect(run.code, `${run.stderr}\n${run.stdout.slice(-3000)}`).toBe(0);
    const out = lines(run.stdout);
    const refused = out.find((l) => l.type === 'tool_call_result' && l.id === 's2');
    expect(refused.isError).toBe(true);
    expect(refused.output).toContain('the most allowed at once (setting "backgroundAgents", now 1)');
    // The first one still ran and came back.
    expect(out.filter((l) => l.type === 'dispatch_end')).toHaveLength(1);
    expect(api.requests.filter((r) => systemOfIncludes(r, 'BG-CAP2'))).toHaveLength(0);
  }, 90_000);

  it('SIGTERM on the parent cancels both children: their executors are gone from /proc, the result line comes', async () => {
    await using ws = await hostDir('bg-term-');
    await using home = await hostDir('bg-home-');
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          {
            type: 'tool_use',
            id: 's1',
            name: 'spawn_agent',
            input: { task: 'BG-X: sleep', background: true },
          },
          {
            type: 'tool_use',
            id: 's2',
            name: 'spawn_agent',
            input: { task: 'BG-Y: sleep', background: true },
          },
        ],
        stopReason: 'tool_use',
      },
      text('waiting for them'),
    ]);
    api.enqueueFor('BG-X', call('x1', 'shell', { command: 'sleep 60' }));
    api.enqueueFor('BG-Y', call('y1', 'shell', { command: 'sleep 60' }));
    const child = spawn(
      process.execPath,
      [distPath('cli', 'skate.js'), '-p', 'go', '--output-format', 'stream-json', '--workspace', ws.path],
      { env: cliEnv({ home: home.path, api: api.url }), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => {
      stdout += c;
    });
    child.stderr.setEncoding('utf8').on('data', (c: string) => {
      stderr += c;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    try {
      // Both children are inside their `sleep 60`.
      const inside = await eventually(
        () => (stdout.match(/"tool_call_start"[^\n]*"name":"shell"/g) ?? []).length >= 2,
        60_000,
      );
      expect(inside, stderr).toBe(true);
      const below = await processDescendants(child.pid as number);
      expect(below.length).toBeGreaterThan(2);
      child.kill('SIGTERM');
      expect(await exited).toBe(143);
      // Nothing the run started is left: no executor, no bwrap, no sleep.
      expect(
        await eventually(async () => (await Promise.all(below.map(isAlive))).every((a) => !a), 5_000),
      ).toBe(true);
      const out = lines(stdout);
      const ends = out.filter((l) => l.type === 'dispatch_end');
      expect(ends.map((l) => [l.record.agent_id, l.record.failure]).sort()).toEqual([
        ['bg-1', 'cancelled'],
        ['bg-2', 'cancelled'],
      ]);
      const result = RunResult.parse(out.at(-1));
      expect(result.status).toBe('cancelled');
      expect(result.errorCode).toBe('terminated');
      expect(result.dispatch).toMatchObject({ dispatches: 2, failures: { cancelled: 2 } });
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  }, 90_000);
});

function systemOfIncludes(request: RecordedRequest, marker: string): boolean {
  const system = request.body?.system;
  const text = typeof system === 'string' ? system : (system ?? []).map((block) => block.text).join('');
  return text.includes(marker);
}
