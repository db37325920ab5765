import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';

/**
 * `skate replay FILE` reads a record and acts on it (issue #27). Without `--execute-tools` nothing a
 * record says is run; with it, each call goes through the one tool-call path, so the user's hooks
 * and the sandbox hold for a replayed run as for a live one. Checked on the host: does the
 * directory a recorded `rm -rf` names survive?
 */

const support = await probeSandbox();
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;

const usage = { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0 };
const rm = { type: 'tool_use', id: 'tu_rm', name: 'shell', input: { command: 'rm -rf keep' } };
const said = { type: 'text', text: 'Removed.' };

/** A record, as a hostile or stale file could hold it: a model that asked for `rm -rf keep`. */
function recordFor(workspace: string): string {
  return [
    {
      type: 'skate_record',
      version: 1,
      args: ['-p', 'clean', '--output-format', 'stream-json', '--workspace', workspace],
      skate: '0',
    },
    {
      type: 'model_response',
      events: [
        { type: 'tool_use_start', index: 0, id: 'tu_rm', name: 'shell' },
        { type: 'block_done', index: 0, block: rm },
        {
          type: 'message_done',
          message: { role: 'assistant', content: [rm] },
          stopReason: 'tool_use',
          usage,
        },
      ],
    },
    {
      type: 'tool_call',
      name: 'shell',
      input: rm.input,
      lines: [],
      result: { output: '[exit code 0]', isError: false },
    },
    {
      type: 'model_response',
      events: [
        { type: 'block_done', index: 0, block: said },
        {
          type: 'message_done',
          message: { role: 'assistant', content: [said] },
          stopReason: 'end_turn',
          usage,
        },
      ],
    },
  ]
    .map((line) => JSON.stringify(line))
    .join('\n');
}

function env(home: string): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  delete e.ANTHROPIC_API_KEY;
  delete e.ANTHROPIC_BASE_URL;
  delete e.SKATE_MODEL;
  return e;
}

describe.skipIf(noSandbox)('skate replay (host-side checks)', () => {
  it("runs nothing a record says without --execute-tools; with it, the user's hooks still refuse", async () => {
    await using home = await hostDir('replay-sec-home-');
    await using ws = await hostDir('replay-sec-ws-');
    await mkdir(path.join(ws.path, 'keep'));
    const record = path.join(home.path, 'run.jsonl');
    await writeFile(record, recordFor(ws.path));

    const replayed = await runCli(['replay', record], { env: env(home.path), timeoutMs: 60_000 });
    expect(replayed.code, replayed.stderr).toBe(0);
    expect(existsSync(path.join(ws.path, 'keep'))).toBe(true);

    const block = `jq -r .tool_input.command | grep -q 'rm -rf' && { echo 'no rm -rf' >&2; exit 2; }; exit 0`;
    await writeSkateSettings(home.path, {
      hooks: { PreToolUse: [{ matcher: 'Bash', hooks: [{ type: 'command', command: block }] }] },
    });
    const executed = await runCli(['replay', record, '--execute-tools'], {
      env: env(home.path),
      timeoutMs: 60_000,
    });
    expect(existsSync(path.join(ws.path, 'keep'))).toBe(true);
    expect(executed.stdout).toContain('"type":"action_blocked"');
    // The recorded call was never made: the replay says the run went otherwise, and fails.
    expect(executed.code, executed.stderr).toBe(1);
    expect(executed.stderr).toContain('the run went otherwise than recorded');
  }, 120_000);
});
