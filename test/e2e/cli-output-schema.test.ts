import { spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { RunResult } from '../../shared/run-result.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/temp-dir.js';

const KEY = 'sk-ant-test-key';
const env = (url: string): NodeJS.ProcessEnv => ({
  ...process.env,
  ANTHROPIC_API_KEY: KEY,
  ANTHROPIC_BASE_URL: url,
});

const SCHEMA = {
  type: 'object',
  properties: {
    files: { type: 'integer', minimum: 0 },
    language: { type: 'string', enum: ['typescript', 'python'] },
  },
  required: ['files', 'language'],
  additionalProperties: false,
};

const answer = (id: string, input: Record<string, unknown>): FakeReply => ({
  type: 'message',
  blocks: [{ type: 'tool_use', id, name: 'structured_output', input }],
  stopReason: 'tool_use',
  usage: { input_tokens: 10, output_tokens: 5 },
});

describe('skate -p --output-schema FILE', () => {
  it('an invalid answer gets one repair turn with the validation error; the valid one is structured_output', async () => {
    await using dir = await tempDir();
    const schema = path.join(dir.path, 'schema.json');
    await writeFile(schema, JSON.stringify(SCHEMA));
    await using api = await fakeMessagesApi([
      answer('toolu_1', { files: -3, language: 'rust' }),
      answer('toolu_2', { files: 12, language: 'typescript' }),
    ]);
    const run = await runCli(
      [
        '-p',
        'count the files',
        '--output-schema',
        schema,
        '--output-format',
        'json',
        '--workspace',
        dir.path,
      ],
      { env: env(api.url) },
    );
    expect(run.code, run.stderr).toBe(0);
    const result = RunResult.parse(JSON.parse(run.stdout));
    expect(result).toMatchObject({
      subtype: 'success',
      is_error: false,
      structured_output: { files: 12, language: 'typescript' },
      num_turns: 2,
    });
    // As a script reads it.
    const jq = spawnSync('jq', ['-c', '.structured_output'], { input: run.stdout, encoding: 'utf8' });
    expect(jq.stdout.trim()).toBe('{"files":12,"language":"typescript"}');
    // The model was offered the schema as the tool's input, and told what was wrong with its first try.
    const tool = api.requests[0]?.body?.tools?.find((each) => each.name === 'structured_output');
    expect(tool).toMatchObject({ input_schema: SCHEMA });
    const repair = JSON.stringify(api.requests[1]?.body?.messages.at(-1));
    expect(repair).toContain('structured_output input is invalid');
    expect(repair).toContain('files');
    expect(repair).toContain('language');
    expect(api.requests).toHaveLength(2);
  });

  it('invalid twice: a typed failure (error_max_structured_output_retries), exit 7, no third request', async () => {
    await using dir = await tempDir();
    const schema = path.join(dir.path, 'schema.json');
    await writeFile(schema, JSON.stringify(SCHEMA));
    await using api = await fakeMessagesApi([
      answer('toolu_1', { files: 'many' }),
      answer('toolu_2', { files: 'still many' }),
    ]);
    const run = await runCli(
      ['-p', 'count', '--output-schema', schema, '--output-format', 'stream-json', '--workspace', dir.path],
      { env: env(api.url) },
    );
    expect(run.code, run.stderr).toBe(7);
    const result = RunResult.parse(JSON.parse(run.stdout.trim().split('\n').at(-1)!));
    expect(result).toMatchObject({
      subtype: 'error_max_structured_output_retries',
      is_error: true,
      status: 'error',
      errorCode: 'invalid_output',
    });
    expect(result.structured_output).toBeUndefined();
    expect(result.error).toContain('even after its repair turn');
    expect(api.requests).toHaveLength(2);
  });

  it('a model that answers in prose is reminded once, then its answer counts', async () => {
    await using dir = await tempDir();
    const schema = path.join(dir.path, 'schema.json');
    await writeFile(schema, JSON.stringify(SCHEMA));
    await using api = await fakeMessagesApi([
      { type: 'message', blocks: [{ type: 'text', text: 'There are 3 Python files.' }] },
      answer('toolu_1', { files: 3, language: 'python' }),
    ]);
    const run = await runCli(
      ['-p', 'count', '--output-schema', schema, '--output-format', 'stream-json', '--workspace', dir.path],
      { env: env(api.url) },
    );
    expect(run.code, run.stderr).toBe(0);
    const lines = run.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.at(-1)).toMatchObject({ structured_output: { files: 3, language: 'python' }, num_turns: 2 });
    // The reminder's turn is numbered on from the first run's, not 1 again.
    expect(lines.filter((line) => line.type === 'turn_start').map((line) => line.turn)).toEqual([1, 2]);
    expect(JSON.stringify(api.requests[1]?.body?.messages.at(-1))).toContain(
      'without calling structured_output',
    );
  });

  it('refuses a schema it cannot use before anything runs: exit 2, naming the file', async () => {
    await using dir = await tempDir();
    const notJson = path.join(dir.path, 'bad.json');
    await writeFile(notJson, '{ nope');
    const array = path.join(dir.path, 'array.json');
    await writeFile(array, JSON.stringify({ type: 'array', items: { type: 'string' } }));
    for (const file of [notJson, array, path.join(dir.path, 'missing.json')]) {
      const run = await runCli(['-p', 'x', '--output-schema', file, '--workspace', dir.path], {
        env: env('http://127.0.0.1:9'),
      });
      expect(run.code, run.stderr).toBe(2);
      expect(run.stderr).toContain(file);
    }
  });
});
