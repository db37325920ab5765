import { stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { apiErrorReply, type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/temp-dir.js';

const KEY = 'sk-ant-test-key-that-must-never-leave-the-harness';

function env(baseUrl: string): NodeJS.ProcessEnv {
  return { ...process.env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: baseUrl };
}

const toolCall = (id: string, name: string, input: Record<string, unknown>): FakeReply => ({
  type: 'message',
  blocks: [{ type: 'tool_use', id, name, input }],
  stopReason: 'tool_use',
  usage: { input_tokens: 10, output_tokens: 5 },
});
const done: FakeReply = { type: 'message', blocks: [{ type: 'text', text: 'Done.' }] };

/** The text of the tool results the model was sent in request `index`. */
function toolResultsSent(
  api: { requests: readonly { body?: { messages: unknown[] } | undefined }[] },
  index: number,
): string {
  return JSON.stringify(api.requests[index]?.body?.messages.at(-1));
}

describe('what skate -p says, to the user and to the model', () => {
  it('prints a refused API key once', async () => {
    await using dir = await tempDir();
    await using api = await fakeMessagesApi([
      apiErrorReply(401, 'authentication_error', 'invalid x-api-key'),
    ]);
    const result = await runCli(['-p', 'hi', '--workspace', dir.path], { env: env(api.url) });
    expect(result.code).toBe(5);
    expect(result.stderr.match(/refused the credentials/g)).toHaveLength(1);
  });

  it('tells the model the --answers file ran out, not that there is none', async () => {
    await using dir = await tempDir();
    const answers = path.join(dir.path, 'answers.json');
    await writeFile(answers, JSON.stringify([['postgres']]));
    const ask = { questions: [{ question: 'Which database?' }] };
    await using api = await fakeMessagesApi([
      toolCall('tu_1', 'ask_user', ask),
      toolCall('tu_2', 'ask_user', ask),
      done,
    ]);
    const result = await runCli(['-p', 'plan it', '--answers', answers, '--workspace', dir.path], {
      env: env(api.url),
    });
    expect(result.code, result.stderr).toBe(0);
    expect(toolResultsSent(api, 1)).toContain('A: postgres');
    const second = toolResultsSent(api, 2);
    expect(second).toContain('recorded answers for this headless run (--answers) have run out');
    expect(second).not.toContain('no answers file');
  });

  it('tells the model nobody is attached to approve in a headless --approval ask run, and runs nothing', async () => {
    await using dir = await tempDir();
    await using api = await fakeMessagesApi([
      toolCall('tu_1', 'write_file', { path: 'x.txt', content: 'x' }),
      done,
    ]);
    const result = await runCli(['-p', 'write x', '--approval', 'ask', '--workspace', dir.path], {
      env: env(api.url),
    });
    expect(result.code, result.stderr).toBe(0);
    const told = toolResultsSent(api, 1);
    expect(told).toContain('no one is attached to approve write_file calls');
    expect(told).not.toMatch(/user rejected|said:/);
    await expect(stat(path.join(dir.path, 'x.txt'))).rejects.toThrow(/ENOENT/);
  });
});
