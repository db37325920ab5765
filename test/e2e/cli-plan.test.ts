import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MessageLine } from '../../shared/claude-stream-lines.js';
import { EngineEvent } from '../../shared/engine-events.js';
import { RunResult, SystemInit } from '../../shared/run-result.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';

const KEY = 'sk-ant-test-key-for-plans';

function agentEnv(baseUrl: string): NodeJS.ProcessEnv {
  return { ...process.env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: baseUrl };
}

/** Every line of stream-json output: the init line, events, then the result. */
function streamJson(stdout: string): { events: EngineEvent[]; result: RunResult } {
  const lines = stdout
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
  SystemInit.parse(lines.shift());
  const result = RunResult.parse(lines.pop());
  // Claude Code's whole-message lines sit among the events; the events are what this file checks.
  const events = lines.filter((line) => MessageLine.safeParse(line).success === false);
  return { events: events.map((line) => EngineEvent.parse(line)), result };
}

// Workspaces outside /tmp: sandboxes get a private /tmp, so a read-only agent could not see one there.
describe('skate plan / skate execute / sub-agents, end to end through the CLI', () => {
  it('plans under the plan policy: a shell write fails on the host, the plan lands, ask_user takes --answers', async () => {
    await using ws = await hostDir('cli-plan-');
    await using aux = await hostDir('cli-answers-');
    const answers = path.join(aux.path, 'answers.json');
    await writeFile(answers, JSON.stringify([['postgres']]));
    const plan = '# Plan\n1. Add the table.\n2. Test it.\n';
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          { type: 'tool_use', id: 'tu_touch', name: 'shell', input: { command: 'touch x' } },
          {
            type: 'tool_use',
            id: 'tu_ask',
            name: 'ask_user',
            input: { questions: [{ question: 'Which database?', options: ['sqlite', 'postgres'] }] },
          },
        ],
      },
      {
        type: 'message',
        blocks: [
          {
            type: 'tool_use',
            id: 'tu_plan',
            name: 'write_file',
            input: { path: '.skate/plan.md', content: plan },
          },
        ],
      },
      { type: 'message', blocks: [{ type: 'text', text: 'The plan is written.' }] },
    ]);
    const result = await runCli(
      [
        'plan',
        'add a users table',
        '--workspace',
        ws.path,
        '--output-format',
        'stream-json',
        '--answers',
        answers,
      ],
      { env: agentEnv(api.url), timeoutMs: 60_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(existsSync(path.join(ws.path, 'x'))).toBe(false);
    expect(await readFile(path.join(ws.path, '.skate', 'plan.md'), 'utf8')).toBe(plan);
    expect(result.stderr).toContain(`plan: ${path.join(ws.path, '.skate', 'plan.md')}`);

    const first = api.requests[0]!.body!;
    expect(JSON.stringify(first.system)).toContain('Planning mode');
    expect(first.tools!.map((t) => t.name)).toEqual(
      expect.arrayContaining(['write_file', 'ask_user', 'spawn_agent']),
    );
    const toolResults = JSON.stringify(api.requests[1]!.body!.messages.at(-1));
    expect(toolResults).toContain('Read-only file system');
    expect(toolResults).toContain('Q: Which database?\\nA: postgres');
    const { events } = streamJson(result.stdout);
    expect(events.find((e) => e.type === 'ask_user_request')).toBeDefined();
  });

  it('executes the plan in a fresh agent whose system prompt carries it', async () => {
    await using ws = await hostDir('cli-execute-');
    await mkdir(path.join(ws.path, '.skate'));
    await writeFile(path.join(ws.path, '.skate', 'plan.md'), '# Plan\nPLAN-STEP-ONE: create hello.txt\n');
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          { type: 'tool_use', id: 'tu_w', name: 'write_file', input: { path: 'hello.txt', content: 'hi\n' } },
        ],
      },
      { type: 'message', blocks: [{ type: 'text', text: 'Done.' }] },
    ]);
    const result = await runCli(
      ['execute', 'mind the tests', '--workspace', ws.path, '--output-format', 'json'],
      {
        env: agentEnv(api.url),
        timeoutMs: 60_000,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    const first = api.requests[0]!.body!;
    expect(JSON.stringify(first.system)).toContain('PLAN-STEP-ONE: create hello.txt');
    // A fresh context: one user message, the task, not a planning conversation.
    expect(first.messages).toHaveLength(1);
    expect(JSON.stringify(first.messages[0])).toContain('mind the tests');
    expect(await readFile(path.join(ws.path, 'hello.txt'), 'utf8')).toBe('hi\n');

    await using empty = await hostDir('cli-execute-none-');
    const missing = await runCli(['execute', '--workspace', empty.path], { env: agentEnv(api.url) });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('no plan at');
  });

  it('runs a sub-agent from skate -p on its own narrowed executor, its events tagged in stream-json', async () => {
    await using ws = await hostDir('cli-spawn-');
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          {
            type: 'tool_use',
            id: 'tu_spawn',
            name: 'spawn_agent',
            input: { task: 'write sub/ok.txt', write_paths: ['sub'] },
          },
        ],
      },
      {
        type: 'message',
        blocks: [
          {
            type: 'tool_use',
            id: 'tu_ok',
            name: 'write_file',
            input: { path: 'sub/ok.txt', content: 'ok\n' },
          },
          { type: 'tool_use', id: 'tu_out', name: 'shell', input: { command: 'echo x > outside.txt' } },
        ],
      },
      {
        type: 'message',
        blocks: [
          {
            type: 'tool_use',
            id: 'tu_done',
            name: 'complete_task',
            input: {
              status: 'completed',
              summary: 'wrote sub/ok.txt',
              files_changed: ['sub/ok.txt'],
              tests_run: [],
              follow_ups: [],
            },
          },
        ],
      },
      { type: 'message', blocks: [{ type: 'text', text: 'The sub-agent did it.' }] },
    ]);
    const result = await runCli(
      ['-p', 'delegate', '--workspace', ws.path, '--output-format', 'stream-json'],
      {
        env: agentEnv(api.url),
        timeoutMs: 60_000,
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(path.join(ws.path, 'sub', 'ok.txt'), 'utf8')).toBe('ok\n');
    expect(existsSync(path.join(ws.path, 'outside.txt'))).toBe(false);

    const { events, result: last } = streamJson(result.stdout);
    expect(last).toMatchObject({ status: 'complete', finalMessage: 'The sub-agent did it.' });
    // The child's two model turns count in the parent's usage (the fake reports 10 input tokens a reply).
    expect(last.usage.inputTokens).toBe(40);
    const childStarts = events.filter((e) => e.type === 'tool_call_start' && e.agent.join('/') === 'agent-1');
    expect(childStarts.map((e) => e.type === 'tool_call_start' && [e.name, e.parentCallId])).toEqual([
      ['write_file', 'tu_spawn'],
      ['shell', 'tu_spawn'],
      ['complete_task', 'tu_spawn'],
    ]);
    const outside = events.find((e) => e.type === 'tool_call_result' && e.id === 'tu_out');
    expect(outside?.agent).toEqual(['agent-1']);
    expect(outside?.type === 'tool_call_result' && outside.output).toMatch(/Read-only file system/);
    const spawnResult = events.find((e) => e.type === 'tool_call_result' && e.id === 'tu_spawn');
    expect(spawnResult?.type === 'tool_call_result' && JSON.parse(spawnResult.output).result.summary).toBe(
      'wrote sub/ok.txt',
    );
    // The child's own request: its task in the system prompt, complete_task offered.
    const child = api.requests[1]!.body!;
    expect(JSON.stringify(child.system)).toContain('write sub/ok.txt');
    expect(child.tools!.map((t) => t.name)).toContain('complete_task');
  });

  it('offers no spawn_agent with --no-subagents', async () => {
    await using ws = await hostDir('cli-nosub-');
    await using api = await fakeMessagesApi([{ type: 'message', blocks: [{ type: 'text', text: 'Hi.' }] }]);
    const result = await runCli(
      ['-p', 'hi', '--no-subagents', '--workspace', ws.path, '--output-format', 'json'],
      {
        env: agentEnv(api.url),
      },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(api.requests[0]!.body!.tools!.map((t) => t.name)).not.toContain('spawn_agent');
  });
});
