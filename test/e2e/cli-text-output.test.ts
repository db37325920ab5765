import { describe, expect, it } from 'vitest';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/temp-dir.js';

describe('skate -p --output-format text', () => {
  it('summarises each tool result in a few lines and ends with turns, tokens, cost and the session to resume', async () => {
    await using dir = await tempDir();
    await using api = await fakeMessagesApi([
      {
        type: 'message',
        blocks: [
          { type: 'tool_use', id: 'tu_1', name: 'write_file', input: { path: 'out.txt', content: 'a\nb\n' } },
          { type: 'tool_use', id: 'tu_2', name: 'shell', input: { command: 'seq 1 20; exit 3' } },
          { type: 'tool_use', id: 'tu_3', name: 'spawn_agent', input: { task: 'check', read_only: true } },
        ],
        stopReason: 'tool_use',
        usage: { input_tokens: 1000, output_tokens: 50 },
      },
      {
        type: 'message',
        blocks: [
          {
            type: 'tool_use',
            id: 'tu_c',
            name: 'complete_task',
            input: {
              status: 'completed',
              summary: 'Checked the output file.\nIt looks right.',
              files_changed: [],
              tests_run: [],
              follow_ups: [],
            },
          },
        ],
        stopReason: 'tool_use',
        usage: { input_tokens: 500, output_tokens: 20 },
      },
      {
        type: 'message',
        blocks: [{ type: 'text', text: 'All done.' }],
        usage: { input_tokens: 1200, output_tokens: 10 },
      },
    ]);
    const result = await runCli(['-p', 'go', '--workspace', dir.path, '--model', 'claude-sonnet-4-5'], {
      env: { ...process.env, ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: api.url },
    });
    expect(result.code, result.stderr).toBe(0);
    const out = result.stdout;
    expect(out).toContain('▸ write_file out.txt');
    expect(out).toContain('↳ write_file: created · +2 −0');
    expect(out).toMatch(
      /shell: exit 3 · 20 lines · \d+ ms\n {4}1\n {4}2\n {4}… 15 more lines \(all of them: --output-format stream-json\)\n {4}18\n {4}19\n {4}20\n/,
    );
    expect(out).toMatch(
      /spawn_agent: completed · \d+ tool calls? · [\d.k]+ tokens · [\d.]+ m?s\n {4}Checked the output file\.\n {4}It looks right\.\n/,
    );
    expect(out).not.toContain('↳ spawn_agent: {');
    expect(out).toContain('All done.');
    const last = result.stderr.trim().split('\n').at(-1) ?? '';
    expect(last).toMatch(
      /^skate: 2 turns · 3 tool calls · tokens 2,700 in, 80 out · ~\$\d+\.\d{4} · \d+\.\d s · session (\S+) \(skate --resume \1\)$/,
    );
  });
});
