/**
 * js_eval on an install where isolated-vm cannot be loaded: the package for this
 * Node is missing (npm drops an optional dependency whose native build failed) or
 * its native binary does not load. The CLI and executor run from a real copy of
 * the built Skate whose node_modules links every package of this checkout but
 * that one; the executor must start, serve the other tools and answer js_eval
 * with a clear error.
 */
import { cp, mkdir, readdir, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { projectRoot } from '../../harness/project-paths.js';
import { isolatedVmBuildFor } from '../../shared/js-eval-runtime.js';
import { ToolDefinition, ToolResult } from '../../shared/tool.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';
import type { TempDir } from '../support/temp-dir.js';
import { tempDir } from '../support/temp-dir.js';

const build = isolatedVmBuildFor(process.versions.node);

/**
 * A Skate install at `root`: package.json, the built CLI, executor and helper,
 * the policies, and node_modules with links to this checkout's packages except
 * this Node's isolated-vm build. With `brokenBinary`, that package is a copy
 * whose native binaries are not loadable.
 */
async function installWithoutIsolatedVm(root: string, brokenBinary: boolean): Promise<string> {
  const source = projectRoot();
  await cp(path.join(source, 'package.json'), path.join(root, 'package.json'));
  // The tools' definitions (dist/executor/tool-definitions.json) are read at start, their
  // descriptions (dist/executor/tools/*.md) when a tool first runs.
  for (const part of [
    'dist/cli',
    'dist/executor/bundle',
    'dist/executor/tools',
    'dist/executor/tool-definitions.json',
    'dist/bin',
    'sandbox-policies',
  ]) {
    await cp(path.join(source, part), path.join(root, part), { recursive: true });
  }
  const modules = path.join(root, 'node_modules');
  await mkdir(modules);
  for (const name of await readdir(path.join(source, 'node_modules'))) {
    if (name === build?.packageName) continue;
    await symlink(path.join(source, 'node_modules', name), path.join(modules, name));
  }
  if (brokenBinary && build) {
    const installed = path.join(source, 'node_modules', build.packageName);
    const copy = path.join(modules, build.packageName);
    // The JavaScript and binaries only: the C++ sources and vendored headers are not needed to load it.
    await cp(installed, copy, {
      recursive: true,
      filter: (file) => !/\/(src|vendor|include)$|\.tgz$/.test(file),
    });
    for (const file of await readdir(copy, { recursive: true })) {
      if (file.endsWith('.node')) await writeFile(path.join(copy, file), 'not a shared object\n');
    }
  }
  return path.join(root, 'dist', 'cli', 'skate.js');
}

describe.skipIf(!build)('js_eval without a loadable isolated-vm', () => {
  let missing: TempDir;
  let broken: TempDir;
  let missingCli: string;
  let brokenCli: string;

  beforeAll(async () => {
    // Outside /tmp: the executor's sandbox has its own /tmp and must see the install.
    missing = await hostDir('install-');
    broken = await hostDir('install-');
    missingCli = await installWithoutIsolatedVm(missing.path, false);
    brokenCli = await installWithoutIsolatedVm(broken.path, true);
  });
  afterAll(async () => {
    await missing?.[Symbol.asyncDispose]();
    await broken?.[Symbol.asyncDispose]();
  });

  it('skate tools lists js_eval as unavailable, with why and the fix, next to the other tools', async () => {
    await using dir = await tempDir();
    const json = await runCli(['tools', '--json', '--workspace', dir.path], { cli: missingCli });
    expect(json.code).toBe(0);
    const tools = ToolDefinition.array().parse(JSON.parse(json.stdout));
    expect(tools.find((tool) => tool.name === 'read_file')?.unavailable).toBeUndefined();
    const jsEval = tools.find((tool) => tool.name === 'js_eval');
    expect(jsEval?.unavailable).toContain(`is not installed (the package ${build!.packageName})`);
    expect(jsEval?.unavailable).toContain('npm install');

    const text = await runCli(['tools', '--workspace', dir.path], { cli: missingCli });
    expect(text.stdout).toMatch(/^js_eval\s+read\s+unavailable: .*is not installed/m);
  });

  it('skate policy show says js_eval is unavailable and how to fix it', async () => {
    await using dir = await tempDir();
    const text = await runCli(['policy', 'show', 'execute', '--workspace', dir.path], { cli: missingCli });
    expect(text.code).toBe(0);
    expect(text.stdout).toMatch(/^js_eval\s+unavailable: .*is not installed/m);
    expect(text.stdout).toMatch(/^ {2}fix\s+run `npm install`/m);

    const json = await runCli(['policy', 'show', 'execute', '--workspace', dir.path, '--json'], {
      cli: missingCli,
    });
    expect(JSON.parse(json.stdout).jsEval).toMatchObject({ status: 'unavailable' });
    // This checkout has the build installed: the same command says so.
    const here = await runCli(['policy', 'show', 'execute', '--workspace', dir.path, '--json']);
    expect(JSON.parse(here.stdout).jsEval).toMatchObject({ status: 'available' });
  });

  it('a missing package: js_eval returns an unavailable error while the other tools work', async () => {
    await using dir = await tempDir();
    await writeFile(path.join(dir.path, 'a.txt'), 'still served\n');
    const read = await runCli(['tool', 'read_file', '--input', '{"path":"a.txt"}', '--workspace', dir.path], {
      cli: missingCli,
    });
    expect(JSON.parse(read.stdout)).toMatchObject({ isError: false, output: '1\tstill served' });

    const result = await runCli(['tool', 'js_eval', '--input', '{"code":"6*7"}', '--workspace', dir.path], {
      cli: missingCli,
    });
    expect(result.code).toBe(1);
    const parsed = ToolResult.parse(JSON.parse(result.stdout));
    expect(parsed).toMatchObject({ isError: true, code: 'unavailable' });
    expect(parsed.output).toContain('js_eval is unavailable on this machine');
    expect(parsed.output).toContain('To fix it, run `npm install`');
  });

  it('a binary that does not load: the worker reports it, js_eval returns an unavailable error', async () => {
    await using dir = await tempDir();
    // Listed as available: only loading the module finds the fault.
    const tools = await runCli(['tools', '--json', '--workspace', dir.path], { cli: brokenCli });
    const listed = ToolDefinition.array().parse(JSON.parse(tools.stdout));
    expect(listed.find((tool) => tool.name === 'js_eval')?.unavailable).toBeUndefined();

    const result = await runCli(['tool', 'js_eval', '--input', '{"code":"6*7"}', '--workspace', dir.path], {
      cli: brokenCli,
    });
    expect(result.code).toBe(1);
    const parsed = ToolResult.parse(JSON.parse(result.stdout));
    expect(parsed).toMatchObject({ isError: true, code: 'unavailable' });
    expect(parsed.output).toContain('is installed but does not load');
    expect(parsed.output).toContain(`npm rebuild ${build!.packageName}`);
    // The executor answered and shut down normally: no crash report on stderr.
    expect(result.stderr).not.toMatch(/executor (exited|crashed)/i);
  });

  it('this checkout loads its build and evaluates', async () => {
    await using dir = await tempDir();
    const result = await runCli(['tool', 'js_eval', '--input', '{"code":"6*7"}', '--workspace', dir.path]);
    expect(JSON.parse(result.stdout)).toMatchObject({ isError: false, output: '42' });
  });
});
