import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiErrorReply, type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/temp-dir.js';

const KEY = 'sk-ant-test-key';

function env(url: string): NodeJS.ProcessEnv {
  return { ...process.env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: url };
}

/** Runs a real `jq` program on `input`, as a script written for Claude Code would. */
function jq(program: string, input: string, flags: string[] = []): string {
  const run = spawnSync('jq', [...flags, program], { input, encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`jq ${program} failed (${run.status}): ${run.stderr}`);
  return run.stdout.trim();
}

const toolTurn: FakeReply = {
  type: 'message',
  blocks: [
    { type: 'text', text: 'Looking around.' },
    { type: 'tool_use', id: 'toolu_1', name: 'shell', input: { command: 'echo hello from the sandbox' } },
  ],
  stopReason: 'tool_use',
  usage: { input_tokens: 100, output_tokens: 20, cache_read_input_tokens: 50 },
};
const answer: FakeReply = {
  type: 'message',
  blocks: [{ type: 'text', text: 'All done.' }],
  usage: { input_tokens: 120, output_tokens: 10 },
};

describe("Claude Code's headless output, read by jq lines written for Claude Code", () => {
  it('--output-format json: .result, .session_id, .is_error, .subtype, .num_turns, .usage, .total_cost_usd, .duration_ms', async () => {
    await using dir = await tempDir();
    await using api = await fakeMessagesApi([toolTurn, answer]);
    const run = await runCli(['-p', 'look around', '--output-format', 'json', '--workspace', dir.path], {
      env: env(api.url),
    });
    expect(run.code, run.stderr).toBe(0);
    expect(jq('.result', run.stdout, ['-r'])).toBe('All done.');
    expect(jq('.type', run.stdout, ['-r'])).toBe('result');
    expect(jq('.subtype', run.stdout, ['-r'])).toBe('success');
    expect(jq('.is_error', run.stdout)).toBe('false');
    expect(jq('.num_turns', run.stdout)).toBe('2');
    expect(jq('.usage.input_tokens', run.stdout)).toBe('220');
    expect(jq('.usage.output_tokens', run.stdout)).toBe('30');
    expect(jq('.usage.cache_read_input_tokens', run.stdout)).toBe('50');
    expect(Number(jq('.total_cost_usd', run.stdout))).toBeGreaterThan(0);
    expect(Number(jq('.duration_ms', run.stdout))).toBeGreaterThan(0);
    const id = jq('.session_id', run.stdout, ['-r']);
    expect(id).toMatch(/^[0-9a-f-]{36}$/);
    // The session it names is the one recorded, and resumes.
    expect(await readdir(path.join(dir.path, '.skate', 'sessions'))).toContain(`${id}.jsonl`);
    // `-e` makes jq's exit status the test, as CI scripts use it.
    expect(spawnSync('jq', ['-e', '.is_error == false'], { input: run.stdout }).status).toBe(0);
  });

  it('stream-json: system/init first, whole assistant and user messages, a result last; Skate events kept', async () => {
    await using dir = await tempDir();
    await using api = await fakeMessagesApi([toolTurn, answer]);
    const run = await runCli(
      ['-p', 'look around', '--output-format', 'stream-json', '--workspace', dir.path],
      {
        env: env(api.url),
      },
    );
    expect(run.code, run.stderr).toBe(0);
    const out = run.stdout;
    const sessionId = jq('select(.type == "system" and .subtype == "init") | .session_id', out, ['-r']);
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    expect(jq('select(.type == "system") | .cwd', out, ['-r'])).toBe(dir.path);
    expect(jq('select(.type == "system") | .tools | index("shell") != null', out)).toBe('true');
    // The model's text, from the whole messages (Claude Code's documented recipe).
    expect(
      jq('select(.type == "assistant") | .message.content[] | select(.type == "text") | .text', out, ['-r']),
    ).toBe('Looking around.\nAll done.');
    expect(
      jq('select(.type == "assistant") | .message.content[] | select(.type == "tool_use") | .name', out, [
        '-r',
      ]),
    ).toBe('shell');
    expect(jq('select(.type == "assistant") | .message.usage.input_tokens', out)).toBe('100\n120');
    expect(jq('select(.type == "assistant") | .parent_tool_use_id', out)).toBe('null\nnull');
    expect(jq('select(.type == "assistant") | .session_id', out, ['-r'])).toBe(`${sessionId}\n${sessionId}`);
    const toolResult = JSON.parse(
      jq('select(.type == "user") | .message.content[] | select(.type == "tool_result")', out, ['-c']),
    );
    expect(toolResult).toMatchObject({ tool_use_id: 'toolu_1', is_error: false });
    expect(toolResult.content).toContain('hello from the sandbox');
    // The last line is the result; `jq -s 'last'` is how scripts take it.
    expect(jq('last | .type', out, ['-s', '-r'])).toBe('result');
    expect(jq('last | .result', out, ['-s', '-r'])).toBe('All done.');
    expect(jq('last | .session_id', out, ['-s', '-r'])).toBe(sessionId);
    expect(jq('[.[] | select(.type == "result")] | length', out, ['-s'])).toBe('1');
    // Skate's fine-grained events are in the same stream.
    expect(jq('[.[] | select(.type == "text_delta")] | length > 0', out, ['-s'])).toBe('true');
    expect(jq('[.[] | select(.type == "tool_output_line")] | length > 0', out, ['-s'])).toBe('true');
    // Each whole message comes after the events that streamed it.
    const types = out
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line).type as string);
    expect(types[0]).toBe('system');
    expect(types.indexOf('assistant')).toBeGreaterThan(types.indexOf('text_done'));
    expect(types.indexOf('user')).toBeGreaterThan(types.indexOf('tool_call_result'));
  });

  it('a turn cap is subtype error_max_turns, is_error true, exit 3', async () => {
    await using dir = await tempDir();
    await using api = await fakeMessagesApi([toolTurn]);
    const run = await runCli(
      ['-p', 'go', '--max-turns', '1', '--output-format', 'json', '--workspace', dir.path],
      { env: env(api.url) },
    );
    expect(run.code).toBe(3);
    expect(jq('.subtype', run.stdout, ['-r'])).toBe('error_max_turns');
    expect(jq('.is_error', run.stdout)).toBe('true');
  });

  it('a refused API key: exit 5, a result line, and no empty session left behind nor offered to resume', async () => {
    await using dir = await tempDir();
    await using api = await fakeMessagesApi([
      apiErrorReply(401, 'authentication_error', 'invalid x-api-key'),
    ]);
    const run = await runCli(['-p', 'hi', '--output-format', 'stream-json', '--workspace', dir.path], {
      env: env(api.url),
    });
    expect(run.code, run.stderr).toBe(5);
    const result = JSON.parse(jq('last', run.stdout, ['-s', '-c']));
    expect(result).toMatchObject({
      type: 'result',
      subtype: 'error_during_execution',
      is_error: true,
      errorCode: 'authentication',
    });
    expect(result.session_id).toBeUndefined();
    const sessions = path.join(dir.path, '.skate', 'sessions');
    const left = existsSync(sessions)
      ? (await readdir(sessions)).filter((name) => name.endsWith('.jsonl'))
      : [];
    expect(left).toEqual([]);

    await using again = await fakeMessagesApi([
      apiErrorReply(401, 'authentication_error', 'invalid x-api-key'),
    ]);
    const text = await runCli(['-p', 'hi', '--workspace', dir.path], { env: env(again.url) });
    expect(text.code).toBe(5);
    expect(text.stderr).not.toContain('--resume');
    expect(text.stderr).toContain('no session recorded');
  });

  it('the API overloaded past its retries: exit 6', async () => {
    await using dir = await tempDir();
    await using api = await fakeMessagesApi([
      apiErrorReply(529, 'overloaded_error', 'Overloaded', { 'retry-after': '600' }),
    ]);
    const run = await runCli(['-p', 'hi', '--output-format', 'json', '--workspace', dir.path], {
      env: env(api.url),
    });
    expect(run.code, run.stderr).toBe(6);
    expect(jq('.errorCode', run.stdout, ['-r'])).toBe('unavailable');
  });

  it('a bad flag is exit 2, and a policy whose sandbox cannot be built is exit 4 with a result line', async () => {
    await using dir = await tempDir();
    const bad = await runCli(['-p', 'hi', '--max-turns', 'many', '--workspace', dir.path], {
      env: env('http://127.0.0.1:9'),
    });
    expect(bad.code).toBe(2);
    const bin = path.join(dir.path, 'empty-bin');
    await mkdir(bin);
    const blocked = await runCli(['-p', 'hi', '--output-format', 'json', '--workspace', dir.path], {
      env: { ...env('http://127.0.0.1:9'), PATH: bin },
    });
    expect(blocked.code, blocked.stderr).toBe(4);
    expect(jq('.is_error', blocked.stdout)).toBe('true');
    expect(blocked.stderr).toContain('without its kernel sandbox');
  });
});

describe('--input-format stream-json', () => {
  it('runs each user line as the next prompt of one conversation, a result line for each', async () => {
    await using dir = await tempDir();
    await using api = await fakeMessagesApi([
      { type: 'message', blocks: [{ type: 'text', text: 'First answer.' }] },
      { type: 'message', blocks: [{ type: 'text', text: 'Second answer.' }] },
    ]);
    const stdin = [
      JSON.stringify({ type: 'user', message: { role: 'user', content: 'first question' } }),
      'not json',
      JSON.stringify({
        type: 'user',
        message: { role: 'user', content: [{ type: 'text', text: 'second question' }] },
      }),
    ].join('\n');
    const run = await runCli(
      ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--workspace', dir.path],
      { env: env(api.url), stdin },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(jq('select(.type == "result") | .result', run.stdout, ['-r'])).toBe(
      'First answer.\nSecond answer.',
    );
    expect(jq('[.[] | select(.type == "result") | .session_id] | unique | length', run.stdout, ['-s'])).toBe(
      '1',
    );
    expect(run.stderr).toContain('not JSON was skipped');
    // The second prompt carried the first exchange: one conversation.
    const second = JSON.stringify(api.requests[1]?.body?.messages);
    expect(second).toContain('first question');
    expect(second).toContain('First answer.');
    expect(second).toContain('second question');
  });

  it('needs --output-format stream-json, and takes no task argument', async () => {
    await using dir = await tempDir();
    const text = await runCli(['-p', '--input-format', 'stream-json', '--workspace', dir.path], {
      env: env('http://127.0.0.1:9'),
    });
    expect(text.code).toBe(2);
    expect(text.stderr).toContain('needs --output-format stream-json');
  });
});
