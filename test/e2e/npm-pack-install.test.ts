import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { tempDir } from '../support/temp-dir.js';

const run = promisify(execFile);

describe('npm pack → npm install -g', () => {
  it('gives a skate that runs from any directory: finds its bundles, policies and skate-confine', async () => {
    await using packed = await tempDir('skate-pack-');
    await using prefix = await tempDir('skate-prefix-');
    await using elsewhere = await tempDir('skate-elsewhere-');
    const root = projectRoot();
    const { version } = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')) as {
      version: string;
    };
    // dist/ is already built (npm test builds first); prepack would build it again.
    const pack = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', packed.path], {
      cwd: root,
    });
    const [info] = JSON.parse(pack.stdout) as [{ filename: string; files: { path: string }[] }];
    const files = info.files.map((file) => file.path);
    expect(files).toEqual(
      expect.arrayContaining([
        'dist/cli/skate.js',
        'dist/executor/bundle/executor.js',
        'dist/executor/bundle/js-eval-worker.js',
        'dist/bin/skate-confine',
        'sandbox-policies/execute.json',
        'sandbox-policies/settings.schema.json',
      ]),
    );
    expect(files.filter((file) => file.startsWith('dist/test') || file.endsWith('.ts'))).toEqual([]);

    // --ignore-scripts keeps this fast: isolated-vm (js_eval) compiles at a real install, and
    // nothing here needs it. The bundles carry every other dependency.
    await run(
      'npm',
      [
        'install',
        '--global',
        '--prefix',
        prefix.path,
        path.join(packed.path, info.filename),
        '--prefer-offline',
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
      ],
      { cwd: elsewhere.path, timeout: 120_000 },
    );
    const skate = path.join(prefix.path, 'bin', 'skate');
    const versionOut = await run(skate, ['--version'], { cwd: elsewhere.path });
    expect(versionOut.stdout.trim()).toBe(`skate ${version}`);
    // `skate tools` starts an executor in the kernel sandbox: the bundle, skate-confine and the
    // built-in policy all come from the installed package, whatever the current directory.
    const tools = await run(skate, ['tools', '--json'], { cwd: elsewhere.path });
    const names = (JSON.parse(tools.stdout) as { name: string }[]).map((tool) => tool.name);
    expect(names).toEqual(expect.arrayContaining(['read_file', 'write_file', 'shell']));
  }, 180_000);
});
