import { mkdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { AnyTool, ToolContext } from '../../../executor/define-tool.js';
import { compileLinePattern, matchingLines, requiredLiteral } from '../../../executor/fs/line-search.js';
import { findRipgrep } from '../../../executor/fs/ripgrep.js';
import { PathGuard } from '../../../executor/path-guard.js';
import { grepTool } from '../../../executor/tools/grep.js';
import type { ResolvedPolicy } from '../../../shared/policy.js';
import { testPolicy } from '../../support/policies.js';
import { type RunToolOptions, runTool as runToolWith } from '../../support/run-tool.js';
import { tempDir } from '../../support/temp-dir.js';

async function files(root: string, contents: Record<string, string | Buffer>): Promise<void> {
  for (const [name, content] of Object.entries(contents)) {
    const full = path.join(root, name);
    await mkdir(path.dirname(full), { recursive: true });
    await writeFile(full, content);
  }
}

const engines = [
  ['ripgrep', findRipgrep()],
  ['javascript', undefined],
] as const;

describe.each(engines)('grep (%s)', (engine, ripgrep) => {
  const runTool = (tool: AnyTool, policy: ResolvedPolicy, input: unknown, options: RunToolOptions = {}) =>
    runToolWith(tool, policy, input, { ...options, ripgrep });
  it('finds ripgrep on this machine (setup installs it)', () => {
    if (engine === 'ripgrep') expect(ripgrep).toMatch(/\/rg$/);
  });

  it('refuses a pattern longer than ripgrep can take in argv with a clear error, not E2BIG', async () => {
    await using dir = await tempDir();
    await files(dir.path, { 'a.txt': 'hello\n' });
    const result = await runTool(grepTool, testPolicy(dir.path), { pattern: 'a'.repeat(300_000) });
    expect(result).toMatchObject({ isError: true, code: 'invalid_input' });
    expect(result.output).toContain('at most 10000 characters');
    expect(result.output).not.toContain('E2BIG');
    expect(result.output.length).toBeLessThan(2000);
  });

  it('lists matching files by default, in path order', async () => {
    await using dir = await tempDir();
    await files(dir.path, {
      'b.ts': 'const needle = 1;\n',
      'a.ts': 'no match here\n',
      'src/c.ts': 'x\nneedle again\nneedle\n',
      'src/d.md': 'needle in docs\n',
    });
    const result = await runTool(grepTool, testPolicy(dir.path), { pattern: 'needle' });
    expect(result).toMatchObject({ isError: false, output: 'b.ts\nsrc/c.ts\nsrc/d.md' });
    expect(result.display).toEqual({ type: 'matches', files: 3, matches: 3, truncated: false });
  });

  it('shows path:line:text in content mode and path:count in count mode, prefixed with the path given', async () => {
    await using dir = await tempDir();
    await files(dir.path, { 'src/c.ts': 'x\nneedle again\r\nneedle\n', 'src/e.ts': 'Needle\n' });
    const policy = testPolicy(dir.path);
    const content = await runTool(grepTool, policy, {
      pattern: 'needle',
      path: 'src',
      output_mode: 'content',
    });
    expect(content.output).toBe('src/c.ts:2:needle again\nsrc/c.ts:3:needle');
    expect(content.display).toEqual({ type: 'matches', files: 1, matches: 2, truncated: false });
    const count = await runTool(grepTool, policy, {
      pattern: 'needle',
      output_mode: 'count',
      case_insensitive: true,
    });
    expect(count.output).toBe('src/c.ts:2\nsrc/e.ts:1\n[3 matching lines in 2 files]');
    const single = await runTool(grepTool, policy, {
      pattern: '^needle$',
      path: 'src/c.ts',
      output_mode: 'content',
    });
    expect(single.output).toBe('src/c.ts:3:needle');
  });

  it('adds context lines with - separators and -- between groups', async () => {
    await using dir = await tempDir();
    const lines = Array.from({ length: 12 }, (_, i) =>
      i === 2 || i === 3 || i === 9 ? `hit ${i + 1}` : `line ${i + 1}`,
    );
    await files(dir.path, { 'f.txt': `${lines.join('\n')}\n`, 'g.txt': 'hit\n' });
    const result = await runTool(grepTool, testPolicy(dir.path), {
      pattern: 'hit',
      output_mode: 'content',
      context: 1,
    });
    expect(result.output).toBe(
      [
        'f.txt-2-line 2',
        'f.txt:3:hit 3',
        'f.txt:4:hit 4',
        'f.txt-5-line 5',
        '--',
        'f.txt-9-line 9',
        'f.txt:10:hit 10',
        'f.txt-11-line 11',
        '--',
        'g.txt:1:hit',
      ].join('\n'),
    );
  });

  it('keeps file names with newlines and colons whole, and names a single file in count mode', async () => {
    await using dir = await tempDir();
    await files(dir.path, { 'new\nline.txt': 'x\nhit\n', 'a:1:b.txt': 'hit\nhit\n', 'c.txt': 'x\n' });
    const policy = testPolicy(dir.path);
    const content = await runTool(grepTool, policy, { pattern: 'hit', output_mode: 'content', context: 1 });
    expect(content.output).toBe(
      ['a:1:b.txt:1:hit', 'a:1:b.txt:2:hit', '--', 'new\nline.txt-1-x', 'new\nline.txt:2:hit'].join('\n'),
    );
    const count = await runTool(grepTool, policy, { pattern: 'hit', output_mode: 'count' });
    expect(count.output).toBe('a:1:b.txt:2\nnew\nline.txt:1\n[3 matching lines in 2 files]');
    const listed = await runTool(grepTool, policy, { pattern: 'hit' });
    expect(listed.output).toBe('a:1:b.txt\nnew\nline.txt');
    const single = await runTool(grepTool, policy, {
      pattern: 'hit',
      path: 'a:1:b.txt',
      output_mode: 'count',
    });
    expect(single.output).toBe('a:1:b.txt:2\n[2 matching lines in 1 files]');
  });

  it('cuts long lines, multi-byte ones too, at the same place', async () => {
    await using dir = await tempDir();
    // 3,000 two-byte characters and a match past the first 2,000 bytes; a 4-byte character line.
    const accented = `${'é'.repeat(3000)} hit`;
    const astral = `hit ${'𝄞'.repeat(1500)}`;
    await files(dir.path, { 'long.txt': `${accented}\nctx ${'z'.repeat(3000)}\n${astral}\n` });
    const result = await runTool(grepTool, testPolicy(dir.path), {
      pattern: 'hit',
      output_mode: 'content',
      context: 1,
    });
    const cut = (line: string) => `${line.slice(0, 500)}… [line cut]`;
    expect(result.output).toBe(
      [
        `long.txt:1:${cut(accented)}`,
        `long.txt-2-${cut(`ctx ${'z'.repeat(3000)}`)}`,
        `long.txt:3:${cut(astral)}`,
      ].join('\n'),
    );
  });

  it('filters files with glob: a bare pattern matches names anywhere, one with / matches paths', async () => {
    await using dir = await tempDir();
    await files(dir.path, {
      'a.ts': 'x',
      'src/b.ts': 'x',
      'src/ui/c.tsx': 'x',
      'lib/d.tsx': 'x',
      'e.js': 'x',
    });
    const policy = testPolicy(dir.path);
    expect((await runTool(grepTool, policy, { pattern: 'x', glob: '*.ts' })).output).toBe('a.ts\nsrc/b.ts');
    expect((await runTool(grepTool, policy, { pattern: 'x', glob: 'src/**/*.tsx' })).output).toBe(
      'src/ui/c.tsx',
    );
    expect((await runTool(grepTool, policy, { pattern: 'x', glob: '*.{js,tsx}' })).output).toBe(
      'e.js\nlib/d.tsx\nsrc/ui/c.tsx',
    );
  });

  it('respects nested .gitignore files and skips .git, binary and oversized files', async () => {
    await using dir = await tempDir();
    await files(dir.path, {
      '.gitignore': 'dist/\n*.log\n',
      'dist/out.js': 'needle',
      'debug.log': 'needle',
      'pkg/.gitignore': 'gen.ts\n!keep.log\n',
      'pkg/gen.ts': 'needle',
      'pkg/keep.log': 'needle',
      'pkg/main.ts': 'needle',
      '.git/config': 'needle',
      'image.png': Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0x6e, 0x65, 0x65, 0x64, 0x6c, 0x65]),
      'huge.txt': `needle\n${'x'.repeat(11 * 1024 * 1024)}`,
    });
    const result = await runTool(grepTool, testPolicy(dir.path), { pattern: 'needle' });
    // ripgrep skips the big file too (--max-filesize) but does not say so.
    const skipped = engine === 'javascript' ? '\n[skipped 1 file over 10 MB; use shell to search them]' : '';
    expect(result.output).toBe(`pkg/keep.log\npkg/main.ts${skipped}`);
    // Named explicitly, an ignored directory is searched.
    const named = await runTool(grepTool, testPolicy(dir.path), { pattern: 'needle', path: 'dist' });
    expect(named.output).toBe('dist/out.js');
  });

  it('never reads denied files, whether walked, linked or named', async () => {
    await using dir = await tempDir();
    await files(dir.path, {
      '.env': 'TOKEN=needle',
      'app/.env': 'TOKEN=needle',
      'app/main.ts': 'needle',
      'secrets/key': 'needle',
    });
    await symlink(path.join(dir.path, 'secrets', 'key'), path.join(dir.path, 'app', 'key-link'));
    const policy = testPolicy(dir.path, {
      read: { allow: ['/'], deny: ['**/.env', path.join(dir.path, 'secrets')] },
    });
    for (const output_mode of ['files_with_matches', 'content', 'count'] as const) {
      const result = await runTool(grepTool, policy, { pattern: 'needle', output_mode });
      expect(result.output).not.toMatch(/\.env|secrets|key|TOKEN/);
      expect(result.output.split('\n')[0]).toMatch(/^app\/main\.ts/);
    }
    expect(await runTool(grepTool, policy, { pattern: 'needle', path: 'app/.env' })).toMatchObject({
      code: 'denied',
    });
  });

  it('stops at max_results and says there may be more', async () => {
    await using dir = await tempDir();
    await files(dir.path, { 'a.txt': 'hit\nhit\nhit\n', 'b.txt': 'hit\n', 'c.txt': 'hit\n' });
    const policy = testPolicy(dir.path);
    const content = await runTool(grepTool, policy, {
      pattern: 'hit',
      output_mode: 'content',
      max_results: 2,
      // ripgrep may reach b.txt and c.txt first; within one file the first matches are certain.
      path: engine === 'ripgrep' ? 'a.txt' : '.',
    });
    expect(content.output).toBe(
      'a.txt:1:hit\na.txt:2:hit\n[stopped at 2 matching lines; there may be more. Narrow the pattern, path or glob, or raise max_results]',
    );
    expect(content.display).toEqual({ type: 'matches', files: 1, matches: 2, truncated: true });
    const listed = await runTool(grepTool, policy, { pattern: 'hit', max_results: 2 });
    const [first, second, note] = listed.output.split('\n');
    // ripgrep searches in parallel: which two of the three it reaches first varies, their order does not.
    if (engine === 'javascript') expect([first, second]).toEqual(['a.txt', 'b.txt']);
    else expect([first, second].every((name) => /^[abc]\.txt$/.test(name!)) && first! < second!).toBe(true);
    expect(note).toBe(
      '[stopped at 2 files; there may be more. Narrow the pattern, path or glob, or raise max_results]',
    );
  });

  it('reports no matches as a plain result', async () => {
    await using dir = await tempDir();
    await files(dir.path, { 'a.txt': 'nothing\n', '.gitignore': 'dist/\n', 'dist/x.txt': 'absent\n' });
    const result = await runTool(grepTool, testPolicy(dir.path), { pattern: 'absent', glob: '*.txt' });
    expect(result).toMatchObject({
      isError: false,
      output: 'no matches for /absent/ in . (files matching *.txt); 1 gitignored entry not searched',
    });
    expect(result.display).toEqual({ type: 'matches', files: 0, matches: 0, truncated: false });
  });

  it('says what it did not search when nothing matched: gitignored entries, files over 10 MB', async () => {
    await using dir = await tempDir();
    await files(dir.path, {
      '.gitignore': '*.log\n',
      'debug.log': 'needle',
      'huge.txt': `needle\n${'x'.repeat(11 * 1024 * 1024)}`,
      'small.txt': 'nothing here\n',
    });
    const result = await runTool(grepTool, testPolicy(dir.path), { pattern: 'needle' });
    expect(result.output).toBe(
      'no matches for /needle/ in .; 1 gitignored entry not searched\n[skipped 1 file over 10 MB; use shell to search them]',
    );
    // Only what was skipped: no gitignore, nothing big, nothing said.
    await files(dir.path, { '.gitignore': '', 'debug.log': 'no\n', 'huge.txt': 'small now\n' });
    const plain = await runTool(grepTool, testPolicy(dir.path), { pattern: 'needle' });
    expect(plain.output).toBe('no matches for /needle/ in .');
  });

  it('rejects an invalid regular expression quoting the engine, and a missing path', async () => {
    await using dir = await tempDir();
    const policy = testPolicy(dir.path);
    const invalid = await runTool(grepTool, policy, { pattern: 'foo(' });
    expect(invalid).toMatchObject({
      code: 'invalid_input',
      output:
        'pattern is not a valid JavaScript regular expression (Invalid regular expression: /foo(/: Unterminated group). Escape characters such as ( [ { . * + ? with a backslash to match them literally.',
    });
    const inline = await runTool(grepTool, policy, { pattern: '(?i)foo' });
    expect(inline).toMatchObject({
      code: 'invalid_input',
      output: expect.stringContaining('case_insensitive: true'),
    });
    const missing = await runTool(grepTool, policy, { pattern: 'x', path: 'nope' });
    expect(missing).toMatchObject({ code: 'not_found', output: 'nope does not exist' });
  });

  it('accepts legacy escapes that unicode mode rejects, and unicode classes', async () => {
    await using dir = await tempDir();
    await files(dir.path, { 'a.txt': 'a-b\n', 'b.txt': 'héllo\n' });
    const policy = testPolicy(dir.path);
    expect((await runTool(grepTool, policy, { pattern: 'a\\-b' })).output).toBe('a.txt');
    expect((await runTool(grepTool, policy, { pattern: 'h\\p{L}llo' })).output).toBe('b.txt');
  });

  it('is cancelled by an aborted signal', async () => {
    await using dir = await tempDir();
    await files(dir.path, { 'a.txt': 'x\n' });
    const controller = new AbortController();
    controller.abort();
    const result = await runTool(
      grepTool,
      testPolicy(dir.path),
      { pattern: 'x' },
      { signal: controller.signal },
    );
    expect(result).toMatchObject({ isError: true, code: 'cancelled' });
  });

  it('stops walking as soon as the call is cancelled', async () => {
    await using dir = await tempDir();
    const many: Record<string, string> = {};
    for (let i = 0; i < 300; i++) many[`d${i % 10}/f${i}.txt`] = 'needle\n';
    await files(dir.path, many);
    const controller = new AbortController();
    const guard = new AbortingGuard(
      testPolicy(dir.path),
      () => controller.abort(new Error('cancelled by test')),
      20,
    );
    const ctx: ToolContext = {
      callId: 'c1',
      workspace: dir.path,
      policy: testPolicy(dir.path),
      signal: controller.signal,
      paths: guard,
      emit: () => undefined,
      commandWrapper: [],
    };
    const run = grepTool.run(grepTool.input.parse({ pattern: 'needle' }), ctx);
    await expect(run).rejects.toThrow('cancelled by test');
    expect(guard.checks).toBeLessThan(25);
  });
});

/** A path guard that cancels the call after a number of readability checks (one per walked entry). */
class AbortingGuard extends PathGuard {
  checks = 0;
  constructor(
    policy: ResolvedPolicy,
    private readonly cancel: () => void,
    private readonly after: number,
  ) {
    super(policy);
  }

  override readable(real: string): boolean {
    if (++this.checks === this.after) this.cancel();
    return super.readable(real);
  }
}

describe('line search', () => {
  it('finds the literal every match must contain, or none when unsure', () => {
    expect(requiredLiteral('function\\s+\\w+')).toBe('function');
    expect(requiredLiteral('colou?r')).toBe('colo');
    expect(requiredLiteral('a.b\\.cde')).toBe('b.cde');
    expect(requiredLiteral('ab{0,2}cd{3}')).toBe('cd');
    expect(requiredLiteral('(foo|bar)baz')).toBe('baz');
    expect(requiredLiteral('foo|bar')).toBeUndefined();
    expect(requiredLiteral('\\p{L}+')).toBeUndefined();
    expect(requiredLiteral('[abc]+')).toBeUndefined();
  });

  it('never screens out a line the regular expression matches', () => {
    const token = fc.constantFrom(
      'a',
      'b',
      'ab',
      '.',
      '\\.',
      '\\s',
      '\\w',
      '\\d',
      '?',
      '*',
      '+',
      '{0,2}',
      '{2}',
      '[ab]',
      '[^a]',
      '(a|b)',
      '(?:ab)?',
      '^',
      '$',
      '\\b',
      '|',
      '-',
      ' ',
      '\\-',
      '{',
      '}',
      ']',
      's',
      'k',
      'é',
    );
    fc.assert(
      fc.property(
        fc.array(token, { minLength: 1, maxLength: 8 }),
        // ſ and the Kelvin sign fold to s and k without case: the Latin-1 screen must not miss them.
        fc.stringMatching(/^[abSKé .\-{}\]\n1\u017f\u212a]{0,24}$/),
        fc.boolean(),
        (tokens, text, caseInsensitive) => {
          let pattern: ReturnType<typeof compileLinePattern>;
          try {
            pattern = compileLinePattern(tokens.join(''), caseInsensitive);
          } catch {
            return; // not a valid expression; grep rejects it before searching
          }
          const expected = text
            .split('\n')
            .flatMap((line, i) =>
              pattern.line.test(line) && !(i > 0 && line === '' && i === text.split('\n').length - 1)
                ? [i + 1]
                : [],
            );
          const data = Buffer.from(text);
          const found = pattern.mayMatch(data) ? matchingLines(text, pattern, 1000).map((m) => m.number) : [];
          expect(found).toEqual(expected);
          if (pattern.matchesQuickly(data)) expect(expected.length).toBeGreaterThan(0);
        },
      ),
      { numRuns: 3000 },
    );
  });
});
