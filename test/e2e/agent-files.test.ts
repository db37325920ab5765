import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunResult } from '../../shared/run-result.js';
import { cliEnv, textReply as text } from '../support/cli-world.js';
import {
  type FakeReply,
  type FakeUsage,
  fakeMessagesApi,
  type RecordedRequest,
} from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';

/**
 * Agent files, budgets and dispatch telemetry through the real CLI, with the parent and its
 * children scripted in turn on the fake Messages API (one child at a time, so the queue is in order).
 */
const call = (id: string, name: string, input: Record<string, unknown>, usage?: FakeUsage): FakeReply => ({
  type: 'message',
  blocks: [{ type: 'tool_use', id, name, input }],
  stopReason: 'tool_use',
  ...(usage && { usage }),
});
const review = (id: string, usage?: FakeUsage): FakeReply =>
  call(id, 'complete_task', { status: 'completed', summary: 'looks fine', issues: [] }, usage);

async function agentFile(dir: string, folder: string, name: string, content: string): Promise<void> {
  await mkdir(path.join(dir, folder), { recursive: true });
  await writeFile(path.join(dir, folder, `${name}.md`), content);
}

// biome-ignore lint/suspicious/noExplicitAny: stream-json lines, checked field by field below
function lines(stdout: string): any[] {
  return stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

function systemOf(request: RecordedRequest | undefined): string {
  const system = request?.body?.system;
  return typeof system === 'string' ? system : (system ?? []).map((block) => block.text).join('');
}

const REVIEWER = `---
name: reviewer
description: Reviews a change and reports issues by severity.
tools: [read_file, grep, glob, list_dir]
write_paths: []
result_schema: reviewer
max_turns: 5
---
You are a meticulous code reviewer. REVIEWER-ROLE-MARKER.
`;

describe('agent files', () => {
  it('a workspace agent file is listed to the model, used by name, and its result and telemetry come back', async () => {
    await using ws = await hostDir('agents-byname-');
    await using home = await hostDir('agents-home-');
    await agentFile(ws.path, '.skate/agents', 'reviewer', REVIEWER);
    await using api = await fakeMessagesApi([
      call('spawn', 'spawn_agent', { agent: 'reviewer', task: 'review src/' }),
      call(
        'bad',
        'complete_task',
        { status: 'completed' },
        { input_tokens: 100, output_tokens: 10, cache_read_input_tokens: 300 },
      ),
      review('good', { input_tokens: 50, output_tokens: 20, cache_read_input_tokens: 400 }),
      text('reviewed'),
    ]);
    const run = await runCli(['-p', 'review it', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
    });
    expect(run.code, run.stderr).toBe(0);
    // The parent saw the agent and its description in spawn_agent's description.
    const spawnTool = api.requests[0]?.body?.tools?.find((tool) => tool.name === 'spawn_agent') as
      | { description: string }
      | undefined;
    expect(spawnTool?.description).toContain('- reviewer: Reviews a change and reports issues by severity.');
    // The child ran with the definition's body as its prompt, only its tools, and its contract.
    const child = api.requests[1];
    expect(systemOf(child)).toContain('REVIEWER-ROLE-MARKER');
    expect(systemOf(child)).toContain('contract "reviewer"');
    expect(systemOf(child)).toContain('You may write: nothing (read-only)');
    expect(child?.body?.tools?.map((tool) => tool.name).sort()).toEqual(
      ['complete_task', 'glob', 'grep', 'list_dir', 'read_file'].sort(),
    );
    const out = lines(run.stdout);
    const spawned = out.find((line) => line.type === 'tool_call_result' && line.id === 'spawn') as {
      output: string;
    };
    const report = JSON.parse(spawned.output);
    expect(report).toMatchObject({
      agent: 'reviewer',
      result: { status: 'completed', summary: 'looks fine', issues: [] },
      dispatch: { invalid_schema_retries: 1, approval_loops: 0 },
    });
    const end = out.find((line) => line.type === 'dispatch_end') as { record: Record<string, unknown> };
    expect(end.record).toMatchObject({
      agent_id: 'agent-1',
      agent_name: 'reviewer',
      status: 'completed',
      turns: 2,
      invalid_schema_retries: 1,
      cache_read_tokens: 700,
      input_tokens: 150,
      output_tokens: 30,
      tokens: 880,
    });
    const result = RunResult.parse(out.at(-1));
    expect(result.dispatch).toMatchObject({
      dispatches: 1,
      tokens_per_dispatch: 880,
      invalid_schema_retries: 1,
      cache_read_tokens: 700,
      cache_hit_rate: 0.824,
      failures: {},
    });
    expect(result.dispatch?.prefix_hashes).toHaveLength(1);

    // The session keeps it: `skate sessions show` reads the telemetry back, as text and as JSON.
    const shown = await runCli(['sessions', 'show', String(result.sessionId), '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
    });
    expect(shown.code, shown.stderr).toBe(0);
    expect(shown.stdout).toMatch(
      /dispatches: 1 · 880 tokens per dispatch · 1 invalid-schema retries · 0 approval loops · cache read 700 \/ write 0 \(hit rate 82%\)/,
    );
    expect(shown.stdout).toContain('failures: none');
    const json = await runCli(
      ['sessions', 'show', String(result.sessionId), '--json', '--workspace', ws.path],
      {
        env: cliEnv({ home: home.path, api: api.url }),
      },
    );
    expect(JSON.parse(json.stdout).dispatch).toMatchObject({
      dispatches: 1,
      invalid_schema_retries: 1,
      cache_read_tokens: 700,
    });
  });

  it('a child over its token budget is ended mid-run as budget_exceeded, and the parent is told', async () => {
    await using ws = await hostDir('agents-budget-');
    await using home = await hostDir('agents-home-');
    await agentFile(
      home.path,
      '.skate/agents',
      'writer',
      `---\nname: writer\ndescription: Writes files.\nbudget:\n  total: 1000\n  output_per_response: 300\n---\nYou write files.\n`,
    );
    await using api = await fakeMessagesApi([
      call('spawn', 'spawn_agent', { agent: 'writer', task: 'write a.txt then b.txt' }),
      call('w1', 'write_file', { path: 'a.txt', content: 'a' }, { input_tokens: 600, output_tokens: 100 }),
      // This response takes the child over 1000 tokens: its write must not run, and nothing more is asked.
      call('w2', 'write_file', { path: 'b.txt', content: 'b' }, { input_tokens: 700, output_tokens: 100 }),
      text('the child ran out'),
    ]);
    const run = await runCli(['-p', 'delegate', '--output-format', 'stream-json', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
    });
    expect(run.code, run.stderr).toBe(0);
    // Its max_tokens is its per-response budget.
    expect(api.requests[1]?.body?.max_tokens).toBe(300);
    const out = lines(run.stdout);
    const spawned = out.find((line) => line.type === 'tool_call_result' && line.id === 'spawn') as {
      output: string;
      isError: boolean;
    };
    expect(spawned.isError).toBe(true);
    expect(spawned.output).toMatch(
      /^sub-agent failed \(budget_exceeded\): it used 1500 tokens, over its budget of 1000/,
    );
    // The call in the response that crossed the budget is closed as cancelled, never run.
    const w2 = out.find((line) => line.type === 'tool_call_result' && line.id === 'w2');
    expect(w2 === undefined || (w2.isError === true && w2.code === 'cancelled'), JSON.stringify(w2)).toBe(
      true,
    );
    // The parent got the failure and answered: four requests, no more.
    expect(api.requests).toHaveLength(4);
    expect(JSON.stringify(api.requests[3]?.body?.messages)).toContain('budget_exceeded');
    const result = RunResult.parse(out.at(-1));
    expect(result.dispatch).toMatchObject({ dispatches: 1, failures: { budget_exceeded: 1 } });
    const { existsSync } = await import('node:fs');
    expect(existsSync(path.join(ws.path, 'a.txt'))).toBe(true);
    expect(existsSync(path.join(ws.path, 'b.txt'))).toBe(false);
  });

  it('an agent file that does not parse is an error naming the file and the key', async () => {
    await using ws = await hostDir('agents-bad-');
    await using home = await hostDir('agents-home-');
    await agentFile(
      ws.path,
      '.skate/agents',
      'odd',
      `---\nname: odd\ndescription: x\nmax_turns: lots\n---\nbody\n`,
    );
    await using api = await fakeMessagesApi([text('unused')]);
    const run = await runCli(['-p', 'x', '--workspace', ws.path], {
      env: cliEnv({ home: home.path, api: api.url }),
    });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain(path.join('.skate', 'agents', 'odd.md'));
    expect(run.stderr).toContain('max_turns');
    expect(api.requests).toHaveLength(0);
  });
});
