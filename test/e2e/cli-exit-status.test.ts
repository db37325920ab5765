import { describe, expect, it } from 'vitest';
import { RunResult } from '../../shared/run-result.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/temp-dir.js';

const KEY = 'sk-ant-test-key';

describe('skate -p exit status', () => {
  it('exits 3 when the run stops at the turn cap, so scripts do not read it as success', async () => {
    await using dir = await tempDir();
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [{ type: 'tool_use', id: 'tu_1', name: 'list_dir', input: { path: '.' } }],
        stopReason: 'tool_use',
        usage: { input_tokens: 10, output_tokens: 5 },
      },
    ]);
    const result = await runCli(
      ['-p', 'keep going', '--max-turns', '1', '--output-format', 'json', '--workspace', dir.path],
      { env: { ...process.env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: api.url } },
    );
    expect(result.code, result.stderr).toBe(3);
    expect(RunResult.parse(JSON.parse(result.stdout)).status).toBe('loop_cap');
    expect(result.stderr).toContain('stopped at the turn limit (1); raise it with --max-turns');
    expect(api.requests).toHaveLength(1);
  });
});
