import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  loadAgentDefinitions,
  parseAgentFile,
  widerThanReadOnly,
} from '../../../harness/agents/load-agent-definitions.js';
import { parseFrontMatter } from '../../../harness/agents/parse-front-matter.js';
import { SettingsError } from '../../../harness/settings/settings-error.js';
import { hostDir } from '../../support/host-dir.js';
import { testPolicy } from '../../support/policies.js';

const read = (text: string) => ({
  status: 'read' as const,
  data: Buffer.from(text),
  truncated: false,
  real: '/ws/a.md',
});
const skate = { scope: 'workspace' as const, dialect: 'skate' as const };
const claude = { scope: 'workspace' as const, dialect: 'claude' as const };

function errorOf(attempt: () => unknown): SettingsError {
  try {
    attempt();
  } catch (error) {
    if (error instanceof SettingsError) return error;
    throw error;
  }
  throw new Error('expected a SettingsError');
}

describe('parseFrontMatter', () => {
  it('reads scalars, inline and block lists, one-level maps, comments and the body', () => {
    const parsed = parseFrontMatter(
      [
        '---',
        '# a comment',
        'name: helper',
        'description: "Finds: things"',
        "model: 'claude-x'",
        'tools: [read_file, grep]',
        'write_paths:',
        '  - src',
        '  - "docs/x y"',
        'max_turns: 7',
        'flag: true',
        'budget:',
        '  total: 1000',
        '  output_per_response: 200',
        '---',
        'You help.',
        '',
      ].join('\n'),
    );
    expect(parsed).toEqual({
      ok: true,
      fields: {
        name: 'helper',
        description: 'Finds: things',
        model: 'claude-x',
        tools: ['read_file', 'grep'],
        write_paths: ['src', 'docs/x y'],
        max_turns: 7,
        flag: true,
        budget: { total: 1000, output_per_response: 200 },
      },
      body: 'You help.',
    });
  });

  it('refuses what it does not read, naming the key', () => {
    expect(parseFrontMatter('no front matter')).toMatchObject({ ok: false, key: undefined });
    expect(parseFrontMatter('---\nname: a\n')).toMatchObject({
      ok: false,
      message: expect.stringContaining('closing'),
    });
    expect(parseFrontMatter('---\nname: a\nname: b\n---\n')).toMatchObject({ ok: false, key: 'name' });
    expect(parseFrontMatter('---\ndescription: |\n---\n')).toMatchObject({ ok: false, key: 'description' });
    expect(parseFrontMatter('---\nx: &anchor y\n---\n')).toMatchObject({ ok: false, key: 'x' });
    expect(parseFrontMatter('---\nbudget: {total: 1}\n---\n')).toMatchObject({ ok: false, key: 'budget' });
    expect(parseFrontMatter('---\nbudget:\n  total: 1\n  total: 2\n---\n')).toMatchObject({
      ok: false,
      key: 'budget.total',
    });
    expect(parseFrontMatter('---\n  indented: 1\n---\n')).toMatchObject({ ok: false });
  });
});

describe('parseAgentFile', () => {
  it('checks keys and values, naming the file and key', () => {
    const bad = errorOf(() =>
      parseAgentFile('/ws/a.md', read('---\nname: a\ndescription: d\nmax_turns: many\n---\nx'), skate),
    );
    expect(bad.message).toMatch(/^\/ws\/a\.md: max_turns: /);
    const unknown = errorOf(() =>
      parseAgentFile('/ws/a.md', read('---\nname: a\ndescription: d\ncolour: red\n---\nx'), skate),
    );
    expect(unknown.message).toBe('/ws/a.md: colour: is not a key of an agent file');
    const network = errorOf(() =>
      parseAgentFile('/ws/a.md', read('---\nname: a\ndescription: d\nnetwork: wide\n---\nx'), skate),
    );
    expect(network.key).toBe('network');
    const body = errorOf(() =>
      parseAgentFile('/ws/a.md', read('---\nname: a\ndescription: d\n---\n'), skate),
    );
    expect(body.message).toContain('no body');
    const budget = errorOf(() =>
      parseAgentFile('/ws/a.md', read('---\nname: a\ndescription: d\nbudget:\n  totl: 5\n---\nx'), skate),
    );
    expect(budget.key).toBe('budget.totl');
  });

  it("reads a Claude Code agent file as it is: comma-separated tools in Claude Code's names, its own keys dropped", () => {
    const definition = parseAgentFile(
      '/ws/.claude/agents/r.md',
      read(
        '---\nname: code-reviewer\ndescription: Reviews code\ntools: Read, Grep, Glob, Bash\nmodel: inherit\ncolor: blue\n---\nReview.',
      ),
      claude,
    );
    expect(definition).toMatchObject({
      name: 'code-reviewer',
      tools: ['read_file', 'grep', 'glob', 'shell'],
      prompt: 'Review.',
      scope: 'workspace',
    });
    expect(definition.model).toBeUndefined();
    expect(definition.sha256).toMatch(/^[0-9a-f]{64}$/);
  });

  it('tells a read-only definition from one asking for writes or the network', () => {
    const of = (front: string) =>
      parseAgentFile('/ws/a.md', read(`---\nname: a\ndescription: d\n${front}---\nx`), skate);
    expect(widerThanReadOnly(of('write_paths: []\n'))).toEqual([]);
    expect(widerThanReadOnly(of('tools: [read_file, grep]\n'))).toEqual([]);
    expect(widerThanReadOnly(of(''))).toEqual(['writes wherever you may']);
    expect(widerThanReadOnly(of('write_paths: [src]\ntools: [edit_file]\n'))).toEqual(['writes to src']);
    expect(widerThanReadOnly(of('write_paths: []\nnetwork: on\n'))).toEqual(['the network']);
  });
});

describe('loadAgentDefinitions', () => {
  it('reads no workspace agent folder reached through a link, and says so', async () => {
    await using root = await hostDir('agent-links-');
    const ws = path.join(root.path, 'ws');
    const home = path.join(root.path, 'home');
    const file = '---\nname: NAME\ndescription: d\ntools: read_file\n---\nBody.\n';
    await mkdir(path.join(ws, 'notes'), { recursive: true });
    await mkdir(path.join(ws, '.skate', 'agents'), { recursive: true });
    await mkdir(home);
    await writeFile(path.join(ws, 'notes', 'linked.md'), file.replace('NAME', 'linked'));
    await writeFile(path.join(ws, '.skate', 'agents', 'own.md'), file.replace('NAME', 'own'));
    // `.claude` is a link into the workspace: what a sandbox may write under another name.
    await mkdir(path.join(ws, 'claude-real'));
    await symlink('../notes', path.join(ws, 'claude-real', 'agents'));
    await symlink('claude-real', path.join(ws, '.claude'));
    const notes: string[] = [];
    const found = await loadAgentDefinitions({
      workspace: ws,
      home,
      policy: async () => testPolicy(ws),
      note: (line) => notes.push(line),
    });
    expect(found.map((definition) => definition.name)).toEqual(['own']);
    expect(notes).toEqual([expect.stringContaining('is reached through a link')]);
  });
});
