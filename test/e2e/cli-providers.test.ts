import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { EngineEvent } from '../../shared/engine-events.js';
import { RunResult } from '../../shared/run-result.js';
import { type FakeOpenAiReply, fakeOpenAiApi } from '../support/fake-openai-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';
import { tempDir } from '../support/temp-dir.js';

const KEY = 'sk-local-provider-key-that-stays-in-the-harness';
const PRICES = { input: 2, output: 8, cacheRead: 0.5 };

/** `~/.skate/settings.json` naming one provider `local` of `type` at `url`. */
async function writeSettings(home: string, type: string, url: string, extra: object = {}): Promise<void> {
  await writeSkateSettings(home, {
    providers: {
      local: {
        type,
        baseURL: url,
        apiKeyEnv: 'LOCAL_LLM_KEY',
        models: { 'coder-7b': { contextWindow: 65_536, prices: PRICES } },
        ...extra,
      },
    },
  });
}

function env(home: string): NodeJS.ProcessEnv {
  // No ANTHROPIC_API_KEY: the run needs only the provider's key.
  const { ANTHROPIC_API_KEY: _key, ANTHROPIC_BASE_URL: _url, ...rest } = process.env;
  return { ...rest, HOME: home, LOCAL_LLM_KEY: KEY };
}

/** A whole run: parallel read + shell, an edit, a sub-agent, and a final answer. */
const WHOLE_RUN: FakeOpenAiReply[] = [
  {
    type: 'reply',
    reasoning: 'I should look at the file and run a command.',
    text: 'Reading the notes and running a command at once.',
    toolCalls: [
      { id: 'call_read', name: 'read_file', arguments: { path: 'notes.txt' } },
      { id: 'call_shell', name: 'shell', arguments: { command: 'echo ran-in-the-sandbox > shell.txt' } },
    ],
    usage: { input: 1000, output: 50 },
  },
  {
    type: 'reply',
    toolCalls: [
      {
        id: 'call_edit',
        name: 'edit_file',
        arguments: { path: 'notes.txt', old_string: 'hello', new_string: 'goodbye' },
      },
    ],
    usage: { input: 1300, output: 30, cached: 1000 },
  },
  {
    type: 'reply',
    toolCalls: [{ id: 'call_sub', name: 'spawn_agent', arguments: { task: 'look around', read_only: true } }],
    usage: { input: 1400, output: 20, cached: 1200 },
  },
  {
    type: 'reply',
    toolCalls: [
      {
        id: 'call_done',
        name: 'complete_task',
        arguments: {
          status: 'completed',
          summary: 'looked',
          files_changed: [],
          tests_run: [],
          follow_ups: [],
        },
      },
    ],
    usage: { input: 800, output: 15 },
  },
  {
    type: 'reply',
    text: 'All done: notes.txt now says goodbye.',
    usage: { input: 1500, output: 12, cached: 1300 },
  },
];

describe.each([
  ['openai-chat', '/v1/chat/completions'],
  ['openai-responses', '/v1/responses'],
] as const)('skate -p on a %s provider (the real openai SDK against a local server)', (type, route) => {
  it('runs a read, a shell command, an edit and a sub-agent; usage and cost are what the server reported', async () => {
    await using home = await hostDir('providers-home-');
    await using ws = await tempDir();
    await writeFile(path.join(ws.path, 'notes.txt'), 'hello world\n');
    await using api = await fakeOpenAiApi(WHOLE_RUN);
    await writeSettings(home.path, type, api.url);
    const result = await runCli(
      [
        '-p',
        'tidy the notes',
        '--workspace',
        ws.path,
        '--model',
        'local/coder-7b',
        '--output-format',
        'stream-json',
      ],
      { env: env(home.path), timeoutMs: 60_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    expect(api.pending).toBe(0);
    expect(await readFile(path.join(ws.path, 'notes.txt'), 'utf8')).toBe('goodbye world\n');
    expect(await readFile(path.join(ws.path, 'shell.txt'), 'utf8')).toBe('ran-in-the-sandbox\n');

    const turns = api.requests.filter((request) => request.path === route);
    expect(turns).toHaveLength(5);
    for (const request of turns) {
      // The provider's own id, its key, and no Anthropic anything.
      expect(request.body.model).toBe('coder-7b');
      expect(request.body.stream).toBe(true);
      expect(request.headers.authorization).toBe(`Bearer ${KEY}`);
    }
    // The second request carries both results of the parallel calls, each under its call's id.
    const second = JSON.stringify(turns[1]!.body);
    expect(second).toContain('call_read');
    expect(second).toContain('call_shell');
    expect(second).toContain('hello world');
    if (type === 'openai-chat') {
      expect(turns[0]!.body.stream_options).toEqual({ include_usage: true });
      const messages = turns[1]!.body.messages as { role: string; tool_call_id?: string }[];
      expect(messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id)).toEqual([
        'call_read',
        'call_shell',
      ]);
    } else {
      expect(turns[0]!.body.store).toBe(false);
      const input = turns[1]!.body.input as { type?: string; call_id?: string }[];
      expect(
        input.filter((item) => item.type === 'function_call_output').map((item) => item.call_id),
      ).toEqual(['call_read', 'call_shell']);
    }
    // The sub-agent asked the same provider, with its own system prompt.
    expect(
      turns.filter((request) => JSON.stringify(request.body).includes('You are a sub-agent')),
    ).toHaveLength(1);

    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as unknown);
    const last = RunResult.parse(lines.pop());
    expect(last).toMatchObject({
      status: 'complete',
      model: 'local/coder-7b',
      finalMessage: expect.stringContaining('goodbye'),
    });
    // Cached tokens are cache reads; the rest of the prompt is input.
    const served = WHOLE_RUN.map((reply) =>
      reply.type === 'reply' ? reply.usage! : { input: 0, output: 0 },
    );
    const expected = {
      inputTokens: served.reduce((sum, u) => sum + u.input - (u.cached ?? 0), 0),
      outputTokens: served.reduce((sum, u) => sum + u.output, 0),
      cacheReadTokens: served.reduce((sum, u) => sum + (u.cached ?? 0), 0),
      cacheWriteTokens: 0,
    };
    // Skate's names, and Claude Code's for the same counts (the headless result carries both).
    expect(last.usage).toMatchObject({
      ...expected,
      input_tokens: expected.inputTokens,
      output_tokens: expected.outputTokens,
      cache_read_input_tokens: expected.cacheReadTokens,
      cache_creation_input_tokens: expected.cacheWriteTokens,
    });
    const cost =
      (expected.inputTokens * PRICES.input +
        expected.outputTokens * PRICES.output +
        expected.cacheReadTokens * PRICES.cacheRead) /
      1e6;
    expect(last.costUsd).toBeCloseTo(cost, 6);

    const events = lines.flatMap((line) => {
      const parsed = EngineEvent.safeParse(line);
      return parsed.success ? [parsed.data] : [];
    });
    // Reasoning streamed as thinking; both parallel calls started before either result came.
    expect(events.some((event) => event.type === 'thinking_delta')).toBe(true);
    const order = events
      .filter((event) => event.type === 'tool_call_start' || event.type === 'tool_call_result')
      .slice(0, 4)
      .map((event) => event.type);
    expect(order).toEqual(['tool_call_start', 'tool_call_start', 'tool_call_result', 'tool_call_result']);
  });

  it('answers malformed tool-call JSON with one repair turn naming the error, then runs the repaired call', async () => {
    await using home = await hostDir('providers-home-');
    await using ws = await tempDir();
    await using api = await fakeOpenAiApi([
      {
        type: 'reply',
        toolCalls: [{ id: 'call_bad', name: 'write_file', arguments: '{"path": "out.txt", "content": "x' }],
      },
      {
        type: 'reply',
        toolCalls: [
          { id: 'call_good', name: 'write_file', arguments: { path: 'out.txt', content: 'repaired\n' } },
        ],
      },
      { type: 'reply', text: 'Written.' },
    ]);
    await writeSettings(home.path, type, api.url);
    const result = await runCli(['-p', 'write it', '--workspace', ws.path, '--model', 'local/coder-7b'], {
      env: env(home.path),
      timeoutMs: 30_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(await readFile(path.join(ws.path, 'out.txt'), 'utf8')).toBe('repaired\n');
    const repair = JSON.stringify(api.requests[1]!.body);
    expect(repair).toContain('not a valid JSON object');
    expect(repair).toMatch(/Unterminated string|JSON/);
    expect(repair).toContain('Call write_file again');
  });

  it('stops, with an error saying why, when the repair turn is garbled too', async () => {
    await using home = await hostDir('providers-home-');
    await using ws = await tempDir();
    const bad = (id: string): FakeOpenAiReply => ({
      type: 'reply',
      toolCalls: [{ id, name: 'write_file', arguments: '{"path": ' }],
    });
    await using api = await fakeOpenAiApi([bad('call_1'), bad('call_2')]);
    await writeSettings(home.path, type, api.url);
    const result = await runCli(
      ['-p', 'write it', '--workspace', ws.path, '--model', 'local/coder-7b', '--output-format', 'json'],
      { env: env(home.path), timeoutMs: 30_000 },
    );
    const last = RunResult.parse(JSON.parse(result.stdout));
    expect(last.status).toBe('error');
    expect(last.error).toMatch(/not valid JSON again after being told/);
    expect(api.requests).toHaveLength(2);
  });

  it('tells a model that writes a tool call as text, once', async () => {
    await using home = await hostDir('providers-home-');
    await using ws = await tempDir();
    const asText = '```json\n{"name": "read_file", "arguments": {"path": "notes.txt"}}\n```';
    await using api = await fakeOpenAiApi([
      { type: 'reply', text: asText },
      { type: 'reply', text: asText },
    ]);
    await writeSettings(home.path, type, api.url);
    const result = await runCli(['-p', 'read notes', '--workspace', ws.path, '--model', 'local/coder-7b'], {
      env: env(home.path),
      timeoutMs: 30_000,
    });
    expect(result.code, result.stderr).toBe(0);
    // Told once (the second request carries the note); the second text reply ends the run.
    expect(api.requests).toHaveLength(2);
    expect(JSON.stringify(api.requests[1]!.body)).toContain('You wrote a tool call as text');
    expect(result.stderr).toContain('wrote a tool call as text');
  });
});

describe('provider settings', () => {
  it('asks an Ollama server for the context window and says what it found', async () => {
    await using home = await hostDir('providers-home-');
    await using ws = await tempDir();
    await using api = await fakeOpenAiApi([{ type: 'reply', text: 'Hi.' }], {
      ollama: { contextLength: 131_072, numCtx: 16_384 },
    });
    await writeSkateSettings(home.path, { providers: { ollama: { type: 'openai-chat', baseURL: api.url } } });
    const result = await runCli(
      ['-p', 'hi', '--workspace', ws.path, '--model', 'ollama/llama3.1:8b', '--output-format', 'stream-json'],
      { env: env(home.path), timeoutMs: 30_000 },
    );
    expect(result.code, result.stderr).toBe(0);
    const show = api.requests.find((request) => request.path === '/api/show');
    expect(show?.body).toEqual({ model: 'llama3.1:8b' });
    expect(result.stdout).toContain('Context window of ollama/llama3.1:8b: 16384 tokens, from Ollama');
    const usage = result.stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { type: string; windowTokens?: number })
      .find((event) => event.type === 'context_usage');
    expect(usage?.windowTokens).toBe(16_384);
    // No key configured: the SDK's placeholder, never an environment variable's key.
    expect(api.requests.at(-1)!.headers.authorization).toBe('Bearer no-key');
  });

  it('says what it assumed when the server cannot tell the window', async () => {
    await using home = await hostDir('providers-home-');
    await using ws = await tempDir();
    await using api = await fakeOpenAiApi([{ type: 'reply', text: 'Hi.' }]);
    await writeSkateSettings(home.path, { providers: { vllm: { type: 'openai-chat', baseURL: api.url } } });
    const result = await runCli(['-p', 'hi', '--workspace', ws.path, '--model', 'vllm/qwen'], {
      env: env(home.path),
      timeoutMs: 30_000,
    });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/Context window of vllm\/qwen unknown .*assuming 32768 tokens/);
  });

  it('refuses a model whose provider is not in the settings, and providers in a workspace file', async () => {
    await using home = await hostDir('providers-home-');
    await using ws = await tempDir();
    const unknown = await runCli(['-p', 'hi', '--workspace', ws.path, '--model', 'nowhere/m'], {
      env: env(home.path),
    });
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no provider "nowhere"');
    await writeSkateSettings(ws.path, {
      providers: { evil: { type: 'openai-chat', baseURL: 'http://attacker.example/v1' } },
    });
    const planted = await runCli(['-p', 'hi', '--workspace', ws.path, '--model', 'evil/m'], {
      env: env(home.path),
    });
    expect(planted.code).toBe(2);
    expect(planted.stderr).toContain('providers');
    expect(planted.stderr).toContain('only');
  });
});
