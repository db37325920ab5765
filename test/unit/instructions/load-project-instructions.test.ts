import { mkdir, symlink, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { systemPromptFor } from '../../../harness/engine/system-prompt.js';
import {
  type LoadInstructionsOptions,
  loadProjectInstructions,
  type ProjectInstructions,
} from '../../../harness/instructions/load-project-instructions.js';
import { loadPolicy } from '../../../harness/policy/load-policy.js';
import { tempDir } from '../../support/temp-dir.js';

async function put(file: string, text: string): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, text);
}

/** Loads them as an agent under the shipped `execute` policy would get them. */
async function load(
  options: Omit<LoadInstructionsOptions, 'policy'> & { home: string },
): Promise<ProjectInstructions> {
  const loaded = await loadPolicy('execute', { workspace: options.workspace, home: options.home });
  if (!loaded.ok) throw new Error(loaded.problem.message);
  return loadProjectInstructions({ ...options, policy: loaded.policy });
}

describe('loadProjectInstructions', () => {
  it('loads ~/.skate/AGENTS.md, then AGENTS.md (else CLAUDE.md) from the repository root down to the workspace', async () => {
    await using home = await tempDir();
    await using outer = await tempDir();
    const repo = path.join(outer.path, 'repo');
    const ws = path.join(repo, 'packages', 'app');
    await put(path.join(outer.path, 'AGENTS.md'), 'above the repository: never loaded');
    await mkdir(path.join(repo, '.git'), { recursive: true });
    await put(path.join(home.path, '.skate', 'AGENTS.md'), 'user: answer in English');
    await put(path.join(repo, 'AGENTS.md'), 'repo: run npm test');
    await put(path.join(repo, 'packages', 'CLAUDE.md'), 'packages: claude file, no AGENTS.md here');
    await put(path.join(ws, 'AGENTS.md'), 'app: use pnpm');
    await put(path.join(ws, 'CLAUDE.md'), 'app claude: shadowed by AGENTS.md');

    const loaded = await load({ workspace: ws, home: home.path });
    expect(loaded.files.map((file) => file.path)).toEqual([
      path.join(home.path, '.skate', 'AGENTS.md'),
      path.join(repo, 'AGENTS.md'),
      path.join(repo, 'packages', 'CLAUDE.md'),
      path.join(ws, 'AGENTS.md'),
    ]);
    const text = loaded.text ?? '';
    const order = ['user: answer', 'repo: run', 'packages: claude', 'app: use pnpm'].map((part) =>
      text.indexOf(part),
    );
    expect(order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1]!))).toBe(true);
    expect(text).not.toContain('above the repository');
    expect(text).not.toContain('shadowed');
    expect(text).toContain('## ~/.skate/AGENTS.md');
    // Same files, same text: the prompt cache stays warm from run to run.
    expect((await load({ workspace: ws, home: home.path })).text).toBe(text);
  });

  it('reads only the workspace outside a repository, and nothing when there is nothing', async () => {
    await using home = await tempDir();
    await using outer = await tempDir();
    const ws = path.join(outer.path, 'ws');
    await put(path.join(outer.path, 'AGENTS.md'), 'parent, no repository');
    await mkdir(ws);
    expect(await load({ workspace: ws, home: home.path })).toEqual({
      text: undefined,
      files: [],
      refused: [],
    });
    await put(path.join(ws, 'CLAUDE.md'), 'ws claude');
    expect((await load({ workspace: ws, home: home.path })).text).toContain('ws claude');
  });

  it('follows a symlink only inside the tree, and bounds what it reads', async () => {
    await using home = await tempDir();
    await using ws = await tempDir();
    await using secrets = await tempDir();
    await put(path.join(secrets.path, 'id_ed25519'), 'PRIVATE KEY');
    await symlink(path.join(secrets.path, 'id_ed25519'), path.join(ws.path, 'AGENTS.md'));
    await put(path.join(ws.path, 'docs', 'agents.md'), 'linked inside');
    await symlink(path.join(ws.path, 'docs', 'agents.md'), path.join(ws.path, 'CLAUDE.md'));
    const loaded = await load({ workspace: ws.path, home: home.path });
    expect(loaded.text).not.toContain('PRIVATE KEY');
    expect(loaded.text).toContain('linked inside');

    await put(
      path.join(ws.path, 'docs', 'agents.md'),
      `${'a line of forty bytes, give or take it.\n'.repeat(100)}`,
    );
    const cut = await load({ workspace: ws.path, home: home.path, maxFileBytes: 1000 });
    expect(cut.files[0]).toMatchObject({ truncated: true });
    expect(cut.files[0]!.bytes).toBeLessThanOrEqual(1000);
    expect(cut.text).toContain('[… cut at');
  });
});

describe('loadProjectInstructions under the agent policy', () => {
  it('leaves out a file the policy denies or that leads out of its tree, and says so', async () => {
    await using home = await tempDir();
    await using outer = await tempDir();
    const repo = path.join(outer.path, 'repo');
    const ws = path.join(repo, 'app');
    await mkdir(path.join(repo, '.git'), { recursive: true });
    await put(path.join(repo, 'docs', 'agents.md'), 'repo docs: shared rules');
    await put(path.join(ws, '.env'), 'TOKEN=secret-value');
    await put(path.join(ws, 'CLAUDE.md'), 'app claude: the fallback');
    // Above the workspace a link may stay in the repository; the workspace's own must stay in it.
    await symlink('docs/agents.md', path.join(repo, 'AGENTS.md'));
    await symlink('.env', path.join(ws, 'AGENTS.md'));
    let loaded = await load({ workspace: ws, home: home.path });
    expect(loaded.text).toContain('repo docs: shared rules');
    expect(loaded.text).toContain('app claude: the fallback');
    expect(loaded.text).not.toContain('secret-value');
    expect(loaded.refused).toEqual([
      { path: path.join(ws, 'AGENTS.md'), reason: expect.stringContaining('denies the agent') },
    ]);
    await unlink(path.join(ws, 'AGENTS.md'));
    await symlink('../docs/agents.md', path.join(ws, 'AGENTS.md'));
    loaded = await load({ workspace: ws, home: home.path });
    expect(loaded.refused).toEqual([
      { path: path.join(ws, 'AGENTS.md'), reason: expect.stringContaining(`outside ${ws}`) },
    ]);
  });
});

describe('systemPromptFor', () => {
  it('puts the project instructions after the base prompt and before what is appended', () => {
    const prompt = systemPromptFor({
      prompt: { text: 'x' },
      model: 'm',
      maxTokens: 1,
      maxTurns: 1,
      approval: 'auto',
      systemPrompt: 'BASE',
      projectInstructions: 'INSTRUCTIONS',
      appendSystemPrompt: 'PLAN',
    });
    expect(prompt).toBe('BASE\n\nINSTRUCTIONS\n\nPLAN');
  });
});
