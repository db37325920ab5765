import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { MessageLine } from '../../shared/claude-stream-lines.js';
import { EngineEvent } from '../../shared/engine-events.js';
import { RunResult, SystemInit } from '../../shared/run-result.js';
import { apiErrorReply, type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/temp-dir.js';

const KEY = 'sk-ant-test-key-that-must-never-leave-the-harness';

function agentEnv(baseUrl: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: baseUrl, ...extra };
}

describe('skate -p (headless agent runs)', () => {
  it('runs a task with the real SDK against a local Messages API: stream-json events, a result line, real effects', async () => {
    await using dir = await tempDir();
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          { type: 'text', text: 'Writing the file and checking my environment.' },
          {
            type: 'tool_use',
            id: 'tu_1',
            name: 'write_file',
            input: { path: 'out.txt', content: 'from the model\n' },
          },
          {
            type: 'tool_use',
            id: 'tu_2',
            name: 'shell',
            input: {
              command:
                'env; tr "\\0" "\\n" < /proc/1/cmdline; cat /proc/*/environ 2>/dev/null | tr "\\0" "\\n"',
            },
          },
        ],
        stopReason: 'tool_use',
        usage: { input_tokens: 1200, output_tokens: 80, cache_creation_input_tokens: 1000 },
      },
      {
        type: 'message',
        blocks: [{ type: 'text', text: 'Done: out.txt is written.' }],
        usage: { input_tokens: 1500, output_tokens: 10, cache_read_input_tokens: 1000 },
      },
    ]);
    const result = await runCli(
      [
        '-p',
        'write out.txt',
        '--output-format',
        'stream-json',
        '--workspace',
        dir.path,
        '--model',
        'claude-sonnet-4-5',
      ],
      { env: agentEnv(api.url) },
    );
    expect(result.code, result.stderr).toBe(0);
    const lines = result.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const init = SystemInit.parse(lines.shift());
    expect(init).toMatchObject({
      model: 'claude-sonnet-4-5',
      policy: 'execute',
      network: 'off',
      sandbox: 'kernel',
      workspace: dir.path,
      version: expect.stringMatching(/^\d+\.\d+\.\d+/),
    });
    expect(init.tools).toEqual(expect.arrayContaining(['read_file', 'write_file', 'shell', 'spawn_agent']));
    const last = RunResult.parse(lines.pop());
    expect(last.sessionId).toBe(init.sessionId);
    expect(last).toMatchObject({
      status: 'complete',
      finalMessage: 'Done: out.txt is written.',
      turns: 2,
      toolCalls: 2,
    });
    expect(last.usage).toMatchObject({
      inputTokens: 2700,
      outputTokens: 90,
      cacheReadTokens: 1000,
      cacheWriteTokens: 1000,
    });
    expect(last.costUsd).toBeGreaterThan(0);
    // Claude Code's whole messages (cli-claude-code-output.test.ts) come among Skate's events.
    const messages = lines.filter((line) => MessageLine.safeParse(line).success);
    expect(messages.map((line) => line.type)).toEqual(['assistant', 'user', 'assistant']);
    const events = lines.filter((line) => !messages.includes(line)).map((line) => EngineEvent.parse(line));
    const types = events.map((event) => event.type);
    expect(types[0]).toBe('turn_start');
    expect(types).toContain('text_delta');
    expect(events.filter((event) => event.type === 'tool_call_result')).toHaveLength(2);
    expect(types).toContain('tool_output_line');
    expect(await readFile(path.join(dir.path, 'out.txt'), 'utf8')).toBe('from the model\n');

    // The key went to the API, and nowhere else: not into the executor's environment, argv or any tool output.
    expect(api.requests[0]!.headers.authorization ?? api.requests[0]!.headers['x-api-key']).toContain(KEY);
    const toolResults = JSON.stringify(api.requests[1]!.body?.messages);
    expect(toolResults).toContain('SKATE_SANDBOX=1');
    expect(toolResults).not.toContain(KEY);
    expect(result.stdout).not.toContain(KEY);
    expect(result.stderr).not.toContain(KEY);
  });

  it('prints one JSON result with --output-format json', async () => {
    await using dir = await tempDir();
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [{ type: 'text', text: 'Hello.' }],
        usage: { input_tokens: 10, output_tokens: 2 },
      },
    ]);
    const result = await runCli(['-p', 'say hello', '--output-format', 'json', '--workspace', dir.path], {
      env: agentEnv(api.url),
    });
    expect(result.code).toBe(0);
    expect(RunResult.parse(JSON.parse(result.stdout))).toMatchObject({
      status: 'complete',
      finalMessage: 'Hello.',
    });
  });

  it('reads the task from stdin and streams text for a person', async () => {
    await using dir = await tempDir();
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [{ type: 'text', text: 'The answer is 42.' }],
        usage: { input_tokens: 10, output_tokens: 5 },
      },
    ]);
    const result = await runCli(['--workspace', dir.path], {
      env: agentEnv(api.url),
      stdin: 'what is the answer?',
    });
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('The answer is 42.');
    const sent = api.requests[0]!.body!.messages[0]!.content;
    expect(JSON.stringify(sent)).toContain('what is the answer?');
  });

  it('SKATE_TRACE_START=1 traces the start up to the first request: the executor spawned before the rest loads, no key; the next start asks the model with the tools its executor listed last time', async () => {
    await using dir = await tempDir();
    await using cache = await tempDir();
    const done: FakeReply = {
      type: 'message',
      blocks: [{ type: 'text', text: 'done' }],
      usage: { input_tokens: 1, output_tokens: 1 },
    };
    await using api = await fakeMessagesApi([done, done]);
    const traced = async (): Promise<{ steps: string[]; at: (step: string) => number }> => {
      const result = await runCli(['-p', 'say done', '--workspace', dir.path], {
        env: agentEnv(api.url, { SKATE_TRACE_START: '1', XDG_CACHE_HOME: cache.path }),
      });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('done');
      expect(result.stderr + result.stdout).not.toContain(KEY);
      const steps = result.stderr
        .split('\n')
        .map((line) => /^skate-trace \+[\d.]+ cpu [\d.]+ (.+)$/.exec(line)?.[1])
        .filter((step) => step !== undefined);
      const at = (step: string): number => {
        const index = steps.indexOf(step);
        expect(index, `${step} in ${steps.join(' | ')}`).toBeGreaterThanOrEqual(0);
        return index;
      };
      return { steps, at };
    };
    // First start with an empty cache: the request waits for the executor's own tool list.
    const first = await traced();
    expect(first.at('executor: spawned')).toBeLessThan(first.at('cli: frontend loaded'));
    expect(first.at('executor: ready (tools listed)')).toBeLessThan(first.at('provider: request built'));
    expect(first.at('provider: request built')).toBeLessThan(
      first.at('http: POST /v1/messages headers sent'),
    );
    expect(first.steps).not.toContain('executor: tools recalled from its last start');
    const remembered = await readdir(path.join(cache.path, 'skate', 'tools'));
    expect(remembered).toHaveLength(1);
    // The next start recalls that list (it need not wait for the executor) and asks with the same tools.
    const second = await traced();
    expect(second.at('executor: tools recalled from its last start')).toBeLessThan(
      second.at('provider: request built'),
    );
    expect(second.at('executor: ready (tools listed)')).toBeGreaterThan(second.at('executor: spawned'));
    const [asked, askedAgain] = api.requests.map((request) => request.body!.tools);
    expect(asked!.map((tool) => tool.name)).toContain('shell');
    expect(askedAgain).toEqual(asked);
  });

  it("keeps a fresh workspace's .skate read-only to commands on the first run (the session log made it before the sandbox)", async () => {
    await using dir = await tempDir();
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          {
            type: 'tool_use',
            id: 'tu_1',
            name: 'shell',
            input: { command: 'echo \'{"policy":"full"}\' > .skate/settings.json; echo written' },
          },
        ],
        stopReason: 'tool_use',
        usage: { input_tokens: 1, output_tokens: 1 },
      },
      {
        type: 'message',
        blocks: [{ type: 'text', text: 'done' }],
        usage: { input_tokens: 1, output_tokens: 1 },
      },
    ]);
    const result = await runCli(['-p', 'widen your policy', '--workspace', dir.path], {
      env: agentEnv(api.url),
    });
    expect(result.code).toBe(0);
    expect(existsSync(path.join(dir.path, '.skate', 'sessions'))).toBe(true);
    expect(existsSync(path.join(dir.path, '.skate', 'settings.json'))).toBe(false);
    expect(result.stderr).not.toContain('appeared while the sandbox ran');
  });

  it('fails with exit 5 and a clear message on a bad API key, without printing the key', async () => {
    await using dir = await tempDir();
    await using api = await fakeMessagesApi([
      apiErrorReply(401, 'authentication_error', 'invalid x-api-key'),
    ]);
    const result = await runCli(['-p', 'hi', '--workspace', dir.path], { env: agentEnv(api.url) });
    expect(result.code).toBe(5);
    expect(result.stderr).toMatch(/ANTHROPIC_API_KEY/);
    expect(result.stderr + result.stdout).not.toContain(KEY);
    expect(api.requests).toHaveLength(1);
  });

  it('runs the first-run demo without a key: a real executor under execute, a denial checked on the host', async () => {
    // Not under /tmp: /tmp is private inside the sandbox, and the demo's outside path must be visible there.
    await using cache = await tempDir('skate-demo-test-', path.join(homedir(), '.cache'));
    const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: cache.path };
    delete env.ANTHROPIC_API_KEY;
    const result = await runCli(['-p', 'anything'], { env });
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toContain('sandbox kernel');
    expect(result.stdout).toMatch(/write denied by policy "execute"/);
    expect(result.stdout).toMatch(/Read-only file system/);
    const demoDir = /demo workspace: (\S+)/.exec(result.stderr)![1]!;
    expect(result.stderr).toMatch(
      /checked on the host: NOTES.md was written in the demo workspace \(\d+ bytes\)/,
    );
    const outside = path.join(path.dirname(demoDir), 'outside.txt');
    expect(result.stderr).toContain(`checked on the host: ${outside} does not exist`);
    // The demo's session would be deleted with its workspace: no `--resume` hint for it.
    expect(result.stderr).toContain('no session recorded');
    expect(result.stderr).not.toContain('--resume');
    // Nothing is left behind in the user's cache: not the workspace, not its parent.
    await expect(stat(path.dirname(demoDir))).rejects.toThrow(/ENOENT/);
    // (The sandbox probe's cache, sandbox-probe.json, may stay: it is not the demo's.)
    expect(
      (await readdir(path.join(cache.path, 'skate'))).filter((name) => name.startsWith('demo-')),
    ).toEqual([]);
  });

  it('makes no demo folder when the demo is refused before it starts', async () => {
    await using cache = await tempDir('skate-demo-test-', path.join(homedir(), '.cache'));
    const env: NodeJS.ProcessEnv = { ...process.env, XDG_CACHE_HOME: cache.path };
    delete env.ANTHROPIC_API_KEY;
    for (const args of [
      ['-p', 'x', '--max-turns', 'lots'],
      ['-p', 'x', '--continue'],
    ]) {
      const result = await runCli(args, { env });
      expect(result.code, args.join(' ')).toBe(2);
      // The CLI's compiled-code cache (skate/code) may appear; nothing of the demo may.
      const left = await readdir(cache.path, { recursive: true });
      expect(
        left.filter((name) => name.includes('demo')),
        args.join(' '),
      ).toEqual([]);
    }
  });

  it('exits 2 on bad flags', async () => {
    await using dir = await tempDir();
    for (const [args, message] of [
      [['-p', 'x', '--max-turns', '0'], '--max-turns takes a positive whole number'],
      [['-p', 'x', '--output-format', 'xml'], '--output-format takes text, json, stream-json'],
      [['-p', 'x', '--approval', 'sometimes'], '--approval takes auto, ask, deny-writes'],
    ] as const) {
      const result = await runCli([...args], { cwd: dir.path, env: agentEnv('http://127.0.0.1:9') });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr).toContain(message);
    }
  });
});
