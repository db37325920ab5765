import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { runCli } from '../support/run-cli.js';
import { tempDir } from '../support/temp-dir.js';

const reply = (text: string): FakeReply => ({ type: 'message', blocks: [{ type: 'text', text }] });

function env(baseUrl: string): NodeJS.ProcessEnv {
  return { ...process.env, ANTHROPIC_API_KEY: 'sk-ant-test', ANTHROPIC_BASE_URL: baseUrl };
}

/** The user's messages the model was sent in request `index`. */
function userTexts(
  api: { requests: readonly { body?: { messages: unknown[] } | undefined }[] },
  index: number,
): string {
  return JSON.stringify(api.requests[index]?.body?.messages);
}

describe('command-line conventions (Claude Code shape)', () => {
  it('takes -p as a switch in any order, the task as the argument or stdin, and continues sessions', async () => {
    await using dir = await tempDir();
    await using api = await fakeMessagesApi([reply('one'), reply('two'), reply('three'), reply('four')]);
    const opts = { cwd: dir.path, env: env(api.url) };
    const first = await runCli(['-p', 'first task'], opts);
    expect(first.code, first.stderr).toBe(0);
    const second = await runCli(['-p', '--continue', 'what did you change?'], opts);
    expect(second.code, second.stderr).toBe(0);
    expect(userTexts(api, 1)).toContain('first task');
    expect(userTexts(api, 1)).toContain('what did you change?');
    const third = await runCli(['-c', '-p', 'and then?'], opts);
    expect(third.code, third.stderr).toBe(0);
    expect(userTexts(api, 2)).toContain('what did you change?');
    const piped = await runCli(['-p'], { ...opts, stdin: 'from stdin' });
    expect(piped.code, piped.stderr).toBe(0);
    expect(userTexts(api, 3)).toContain('from stdin');
    expect(userTexts(api, 3)).not.toContain('first task');
  });

  it('answers a usage mistake with one line saying how to write it', async () => {
    await using dir = await tempDir();
    const opts = { cwd: dir.path, env: env('http://127.0.0.1:9') };
    for (const [args, expected] of [
      [['-p', 'x', '--max-turn', '3'], 'skate: unknown option --max-turn (did you mean --max-turns?)'],
      [['-p', 'x', '--model'], 'skate: --model needs a value: --model VALUE'],
      [
        ['fix the bug'],
        'skate: no terminal for the interactive UI; run headless with skate -p "fix the bug"',
      ],
      [['tols'], 'skate: unknown command: tols'],
    ] as const) {
      const result = await runCli([...args], opts);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trimEnd().split('\n'), args.join(' ')).toHaveLength(1);
      expect(result.stderr).toContain(expected);
    }
  });

  it('prints its version, and --help lists every flag the README lists', async () => {
    const { version } = JSON.parse(await readFile(path.join(projectRoot(), 'package.json'), 'utf8')) as {
      version: string;
    };
    expect((await runCli(['--version'])).stdout).toBe(`skate ${version}\n`);
    const help = (await runCli(['--help'])).stdout;
    const readme = await readFile(path.join(projectRoot(), 'README.md'), 'utf8');
    const synopsis = /## CLI\n\n```\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    const flags = new Set(synopsis.match(/--[a-z][a-z-]+/g));
    expect(flags.size).toBeGreaterThan(20);
    for (const flag of flags) expect(help, flag).toContain(flag);
  });
});
