import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunResult } from '../../shared/run-result.js';
import { type FakeReply, fakeMessagesApi, type MessagesDialect } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';
import { tempDir } from '../support/temp-dir.js';

const AWS_KEY_ID = 'AKIAFAKEKEYFORTESTS01';
const AWS_SECRET = 'fake/aws/secret/that/must/stay/in/the/harness';
const VERTEX_TOKEN = 'ya29.fake-vertex-access-token-for-tests';

/** A whole run in the Messages format: parallel read + shell, an edit, a sub-agent, an answer. */
const WHOLE_RUN: FakeReply[] = [
  {
    type: 'message',
    blocks: [
      { type: 'text', text: 'Reading and running.' },
      { type: 'tool_use', id: 'tu_read', name: 'read_file', input: { path: 'notes.txt' } },
      { type: 'tool_use', id: 'tu_shell', name: 'shell', input: { command: 'echo cloud > shell.txt' } },
    ],
    usage: { input_tokens: 900, output_tokens: 40, cache_creation_input_tokens: 2000 },
  },
  {
    type: 'message',
    blocks: [
      {
        type: 'tool_use',
        id: 'tu_edit',
        name: 'edit_file',
        input: { path: 'notes.txt', old_string: 'hello', new_string: 'goodbye' },
      },
    ],
    usage: { input_tokens: 300, output_tokens: 30, cache_read_input_tokens: 2000 },
  },
  {
    type: 'message',
    blocks: [
      { type: 'tool_use', id: 'tu_sub', name: 'spawn_agent', input: { task: 'look', read_only: true } },
    ],
    usage: { input_tokens: 200, output_tokens: 20, cache_read_input_tokens: 2300 },
  },
  {
    type: 'message',
    blocks: [
      {
        type: 'tool_use',
        id: 'tu_done',
        name: 'complete_task',
        input: { status: 'completed', summary: 'looked', files_changed: [], tests_run: [], follow_ups: [] },
      },
    ],
    usage: { input_tokens: 700, output_tokens: 10 },
  },
  {
    type: 'message',
    blocks: [{ type: 'text', text: 'Done.' }],
    usage: { input_tokens: 100, output_tokens: 5, cache_read_input_tokens: 2500 },
  },
];

const CASES: [MessagesDialect, string, (url: string) => object, RegExp][] = [
  [
    'bedrock',
    'anthropic.claude-sonnet-4-5-20250929-v1:0',
    (url) => ({ type: 'bedrock', region: 'us-east-1', baseURL: url }),
    new RegExp(`^AWS4-HMAC-SHA256 Credential=${AWS_KEY_ID}/\\d{8}/us-east-1/bedrock/aws4_request`),
  ],
  [
    'vertex',
    'claude-sonnet-4-5@20250929',
    (url) => ({
      type: 'vertex',
      region: 'us-east5',
      projectId: 'skate-test',
      baseURL: `${url}/v1`,
      apiKeyEnv: 'VERTEX_ACCESS_TOKEN',
    }),
    new RegExp(`^Bearer ${VERTEX_TOKEN.replace('.', '\\.')}$`),
  ],
];

describe.each(CASES)(
  'skate -p on Claude via %s (its SDK against a local server)',
  (dialect, model, settings, auth) => {
    it('runs a read, a shell command, an edit and a sub-agent, with its own credentials; cost at Claude list prices', async () => {
      await using home = await hostDir('cloud-home-');
      await using ws = await tempDir();
      await writeFile(path.join(ws.path, 'notes.txt'), 'hello world\n');
      await using api = await fakeMessagesApi(WHOLE_RUN, undefined, dialect);
      await writeSkateSettings(home.path, { providers: { cloud: settings(api.url) } });
      const { ANTHROPIC_API_KEY: _key, ANTHROPIC_BASE_URL: _url, ...rest } = process.env;
      const result = await runCli(
        ['-p', 'tidy', '--workspace', ws.path, '--model', `cloud/${model}`, '--output-format', 'json'],
        {
          env: {
            ...rest,
            HOME: home.path,
            AWS_ACCESS_KEY_ID: AWS_KEY_ID,
            AWS_SECRET_ACCESS_KEY: AWS_SECRET,
            VERTEX_ACCESS_TOKEN: VERTEX_TOKEN,
          },
          timeoutMs: 60_000,
        },
      );
      expect(result.code, result.stderr).toBe(0);
      expect(api.pending).toBe(0);
      expect(await readFile(path.join(ws.path, 'notes.txt'), 'utf8')).toBe('goodbye world\n');
      expect(await readFile(path.join(ws.path, 'shell.txt'), 'utf8')).toBe('cloud\n');
      expect(api.requests).toHaveLength(5);
      for (const request of api.requests) {
        expect(request.body?.model).toBe(model);
        expect(request.headers.authorization).toMatch(auth);
        // The Anthropic key header never goes to a cloud endpoint.
        expect(request.headers['x-api-key']).toBeUndefined();
      }
      // Prompt caching as on the Anthropic API: the system prompt and the last tool carry breakpoints.
      const first = api.requests[0]!.body!;
      expect(JSON.stringify(first.system)).toContain('"cache_control":{"type":"ephemeral"}');
      expect(JSON.stringify(first.tools?.at(-1))).toContain('cache_control');

      const last = RunResult.parse(JSON.parse(result.stdout));
      const sum = (
        key: 'input_tokens' | 'output_tokens' | 'cache_read_input_tokens' | 'cache_creation_input_tokens',
      ) =>
        WHOLE_RUN.reduce(
          (total, reply) => total + (reply.type === 'message' ? (reply.usage?.[key] ?? 0) : 0),
          0,
        );
      // Skate's names, and Claude Code's for the same counts (the headless result carries both).
      expect(last.usage).toMatchObject({
        inputTokens: sum('input_tokens'),
        outputTokens: sum('output_tokens'),
        cacheReadTokens: sum('cache_read_input_tokens'),
        cacheWriteTokens: sum('cache_creation_input_tokens'),
        input_tokens: sum('input_tokens'),
        output_tokens: sum('output_tokens'),
        cache_read_input_tokens: sum('cache_read_input_tokens'),
        cache_creation_input_tokens: sum('cache_creation_input_tokens'),
      });
      // Sonnet 4.5's list price: $3 in, $15 out, cache writes 1.25x and reads 0.1x input.
      const cost =
        (sum('input_tokens') * 3 +
          sum('output_tokens') * 15 +
          sum('cache_creation_input_tokens') * 3.75 +
          sum('cache_read_input_tokens') * 0.3) /
        1e6;
      expect(last.costUsd).toBeCloseTo(cost, 6);
    });
  },
);
