import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';

const call = (id: string, name: string, input: Record<string, unknown>): FakeReply => ({
  type: 'message',
  blocks: [{ type: 'tool_use', id, name, input }],
  stopReason: 'tool_use',
  usage: { input_tokens: 100, output_tokens: 20 },
});
const text = (t: string): FakeReply => ({
  type: 'message',
  blocks: [{ type: 'text', text: t }],
  usage: { input_tokens: 120, output_tokens: 8 },
});

function env(home: string, api?: string): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  delete e.SKATE_MODEL;
  delete e.ANTHROPIC_API_KEY;
  delete e.ANTHROPIC_BASE_URL;
  if (api) Object.assign(e, { ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: api });
  return e;
}

/**
 * A run's stream-json with what differs between any two runs masked: its session id, its times and rates,
 * and the workspace's path (a replay runs in another directory).
 */
function comparable(stdout: string, workspace: string): string {
  return stdout
    .replaceAll(workspace, '<workspace>')
    .replace(/"(session_id|sessionId)":"[^"]*"/g, '"$1":"<session>"')
    .replace(
      /"(durationMs|duration_ms|duration_api_ms|elapsedMs|outputTokensPerSecond)":[0-9.e+-]+/g,
      '"$1":0',
    );
}

describe('--record and skate replay', () => {
  it('replays a run byte for byte with no model: tools not run, then tools run again in a new workspace', async () => {
    await using home = await hostDir('replay-home-');
    await using ws = await hostDir('replay-ws-');
    await writeFile(path.join(ws.path, 'data.txt'), 'v1\n');
    await using api = await fakeMessagesApi([
      call('tu_1', 'shell', { command: 'cat data.txt; echo two' }),
      call('tu_2', 'write_file', { path: 'out.txt', content: 'written\n' }),
      text('Done.'),
    ]);
    const record = path.join(home.path, 'run.jsonl');
    const recorded = await runCli(
      ['-p', 'do it', '--output-format', 'stream-json', '--workspace', ws.path, '--record', record],
      { env: env(home.path, api.url), timeoutMs: 60_000 },
    );
    expect(recorded.code, recorded.stderr).toBe(0);
    expect(api.requests).toHaveLength(3);
    const lines = (await readFile(record, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(lines.map((line) => line.type)).toEqual([
      'skate_record',
      'model_response',
      'tool_call',
      'model_response',
      'tool_call',
      'model_response',
    ]);

    // No key, no server: nothing can reach a model. The tools are not run either.
    await using elsewhere = await hostDir('replay-ws2-');
    const again = await runCli(['replay', record, '--workspace', elsewhere.path], {
      env: env(home.path),
      timeoutMs: 60_000,
    });
    expect(again.code, again.stderr).toBe(0);
    expect(again.stderr).toContain('the run went as recorded (3 model responses, 2 tool calls)');
    expect(comparable(again.stdout, elsewhere.path)).toBe(comparable(recorded.stdout, ws.path));
    expect(existsSync(path.join(elsewhere.path, 'out.txt'))).toBe(false);
    expect(api.requests).toHaveLength(3);

    // Tools run again, in a workspace with the same data: the same run, and the file written.
    await using fresh = await hostDir('replay-ws3-');
    await writeFile(path.join(fresh.path, 'data.txt'), 'v1\n');
    const executed = await runCli(['replay', record, '--execute-tools', '--workspace', fresh.path], {
      env: env(home.path),
      timeoutMs: 60_000,
    });
    expect(executed.code, executed.stderr).toBe(0);
    expect(executed.stderr).toContain('tools run again');
    expect(comparable(executed.stdout, fresh.path)).toBe(comparable(recorded.stdout, ws.path));
    expect(await readFile(path.join(fresh.path, 'out.txt'), 'utf8')).toBe('written\n');

    // What the tools produce changed: the replay says which call, and fails.
    await writeFile(path.join(fresh.path, 'data.txt'), 'v2\n');
    const changed = await runCli(['replay', record, '--execute-tools', '--workspace', fresh.path], {
      env: env(home.path),
      timeoutMs: 60_000,
    });
    expect(changed.code, changed.stderr).toBe(1);
    expect(changed.stderr).toContain('replay: shell');
    expect(changed.stderr).toContain('its result differs from the record');
    expect(changed.stderr).toContain('the run went otherwise than recorded');
  }, 180_000);

  it('refuses what it cannot replay: the terminal UI, stream-json input, a file that is no record', async () => {
    await using home = await hostDir('replay-home-');
    const input = await runCli(
      ['-p', '--input-format', 'stream-json', '--output-format', 'stream-json', '--record', 'x.jsonl'],
      { env: env(home.path, 'http://127.0.0.1:9'), stdin: '' },
    );
    expect(input.code).toBe(2);
    expect(input.stderr).toContain('--record runs one headless prompt');
    const bogus = path.join(home.path, 'bogus.jsonl');
    await writeFile(bogus, '{"type":"model_response","events":[]}\n');
    const replayed = await runCli(['replay', bogus], { env: env(home.path) });
    expect(replayed.code).toBe(2);
    expect(replayed.stderr).toContain('no skate_record header');
  }, 60_000);
});
