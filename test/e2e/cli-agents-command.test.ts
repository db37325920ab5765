import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';

/** `skate agents list|trust|revoke` as a person runs it: the real CLI, a workspace and a home of its own. */
function env(home: string): NodeJS.ProcessEnv {
  const e: NodeJS.ProcessEnv = { ...process.env, HOME: home };
  delete e.SKATE_MODEL;
  return e;
}

async function agentFile(dir: string, folder: string, name: string, content: string): Promise<void> {
  await mkdir(path.join(dir, folder), { recursive: true });
  await writeFile(path.join(dir, folder, `${name}.md`), content);
}

const WRITER = `---
name: writer
description: Writes the feature. \u001b]0;pwned\u0007
write_paths: [src]
isolation: worktree
---
You write code.
`;
const REVIEWER = `---
name: reviewer
description: Reviews.
tools: Read, Grep
---
You review.
`;
const MINE = `---
name: mine
description: The user's own helper.
network: on
---
You help.
`;

describe('skate agents', () => {
  it('lists definitions with their source, what they ask and their consent; trust and revoke change it', async () => {
    await using ws = await hostDir('agents-cmd-');
    await using home = await hostDir('agents-cmd-home-');
    await agentFile(ws.path, '.skate/agents', 'writer', WRITER);
    await agentFile(ws.path, '.claude/agents', 'reviewer', REVIEWER);
    await agentFile(home.path, '.skate/agents', 'mine', MINE);
    const list = async () => {
      const run = await runCli(['agents', 'list', '--workspace', ws.path, '--json'], { env: env(home.path) });
      expect(run.code, run.stderr).toBe(0);
      return JSON.parse(run.stdout) as { name: string; source: string; consent: string; asks: string[] }[];
    };
    const before = await list();
    expect(before.map(({ name, source, consent, asks }) => ({ name, source, consent, asks }))).toEqual([
      { name: 'writer', source: 'workspace', consent: 'not given', asks: ['writes to src'] },
      { name: 'reviewer', source: 'workspace', consent: 'not needed', asks: [] },
      {
        name: 'mine',
        source: 'user',
        consent: 'not needed',
        asks: ['writes wherever you may', 'the network'],
      },
    ]);
    expect(before[0]).toMatchObject({ isolation: 'worktree' });
    expect(before[1]).toMatchObject({ tools: ['read_file', 'grep'] });

    // The text form shows a hostile description inert: no escape sequence reaches the terminal.
    const text = await runCli(['agents', 'list', '--workspace', ws.path], { env: env(home.path) });
    expect(text.code, text.stderr).toBe(0);
    expect(text.stdout).toContain('writer: not usable without consent');
    expect(text.stdout).toContain('asks: writes to src; isolation worktree');
    expect(text.stdout).not.toContain('\u001b');

    const trust = await runCli(['agents', 'trust', 'writer', '--workspace', ws.path], {
      env: env(home.path),
    });
    expect(trust.code, trust.stderr).toBe(0);
    expect(trust.stderr).toContain('the agent "writer"');
    expect((await list())[0]?.consent).toBe('given');

    // Consent is to this version of the file: an edit needs a new one.
    await agentFile(
      ws.path,
      '.skate/agents',
      'writer',
      WRITER.replace('You write code.', 'You write more code.'),
    );
    expect((await list())[0]?.consent).toBe('not given');
    await runCli(['agents', 'trust', 'writer', '--workspace', ws.path], { env: env(home.path) });
    expect((await list())[0]?.consent).toBe('given');

    const revoke = await runCli(['agents', 'revoke', 'writer', '--workspace', ws.path], {
      env: env(home.path),
    });
    expect(revoke.code, revoke.stderr).toBe(0);
    expect((await list())[0]?.consent).toBe('not given');

    // Only a workspace's definitions take consent; an unknown name is a usage error.
    const mine = await runCli(['agents', 'trust', 'mine', '--workspace', ws.path], { env: env(home.path) });
    expect(mine.code).not.toBe(0);
    expect(mine.stderr).toContain('no workspace agent file');
  });
});
