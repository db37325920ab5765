import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../../harness/policy/load-policy.js';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { hostDir } from '../support/host-dir.js';
import { runCli } from '../support/run-cli.js';
import { sandboxedExecutor } from '../support/sandboxed-executor.js';

const support = await probeSandbox();
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;

async function shippedPolicy(name: string, workspace: string): Promise<ResolvedPolicy> {
  const loaded = await loadPolicy(name, { workspace });
  if (!loaded.ok) throw new Error(loaded.problem.message);
  return loaded.policy;
}

/** `ls -a` of a directory on the host, sorted. */
async function listing(dir: string): Promise<string[]> {
  return (await readdir(dir)).sort();
}

/** Every entry under `dir` with a hash of its content: a fingerprint of the host's tree. */
async function snapshot(dir: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  for (const entry of await readdir(dir, { recursive: true, withFileTypes: true })) {
    const full = path.join(entry.parentPath, entry.name);
    result[path.relative(dir, full)] = entry.isFile()
      ? createHash('sha256')
          .update(await readFile(full))
          .digest('hex')
      : entry.isDirectory()
        ? 'dir'
        : 'other';
  }
  return result;
}

/** Protected names of the shipped policies that a fresh workspace does not have. */
const PLANTED = ['.git', '.vscode', '.envrc', '.skate', '.claude', '.bashrc'];

/**
 * A thread rewrites the path a second thread is passing to mkdir and open(O_CREAT), one byte
 * flipping `xgit`/`.git` and `xenvrc`/`.envrc`: a guard that checked the string and let the
 * kernel read it again would lose this race. Prints how often the harmless names were made.
 */
const RACER = `
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
static char dir[] = "xgit", file[] = "xenvrc";
static volatile int stop;
static void *flip(void *arg) {
  volatile char *d = dir, *f = file;
  (void)arg;
  while (!stop) { d[0] = '.'; f[0] = '.'; d[0] = 'x'; f[0] = 'x'; }
  return NULL;
}
int main(void) {
  pthread_t t;
  pthread_create(&t, NULL, flip, NULL);
  long made = 0, refused = 0, tries = 0;
  time_t end = time(NULL) + 2;
  while (time(NULL) < end) {
    tries++;
    if (mkdir(dir, 0755) == 0) { made++; rmdir("xgit"); rmdir(".git"); } else refused++;
    int fd = open(file, O_CREAT | O_WRONLY, 0644);
    if (fd >= 0) { close(fd); unlink("xenvrc"); unlink(".envrc"); }
  }
  stop = 1;
  pthread_join(t, NULL);
  printf("tries=%ld made=%ld refused=%ld\\n", tries, made, refused);
  return 0;
}
`;

/**
 * Protected names that do not exist (issue #20, item 5, and the kernel half of items 2 and 4):
 * no sandbox may create one, by any call, and a run still leaves no entry in the workspace.
 * Every test drives real executors or the real CLI inside the real sandbox, then looks at the host.
 */
describe.skipIf(noSandbox)('security: protected names that do not exist yet', () => {
  it('refuses .git, .vscode/tasks.json, .envrc and .skate/settings.json made by shell commands, git, python and node', async () => {
    await using root = await hostDir();
    const ws = path.join(root.path, 'ws');
    await mkdir(ws);
    await writeFile(path.join(ws, 'main.ts'), 'export {};\n');
    const before = await listing(ws);
    {
      await using executor = await sandboxedExecutor(await shippedPolicy('execute', ws));
      const attempts = [
        'git init -q',
        'mkdir .git',
        'mkdir -p .git/hooks && echo "#!/bin/sh" > .git/hooks/pre-commit',
        'mkdir -p .vscode && echo \'{"tasks":[]}\' > .vscode/tasks.json',
        'echo "export X=1" > .envrc',
        'touch .bashrc',
        'mkdir -p .skate && echo \'{"network":"on"}\' > .skate/settings.json',
        'mkdir -p .claude/commands',
        `python3 -c "open('.envrc', 'w').write('x')"`,
        `python3 -c "import os; os.makedirs('.skate/policies')"`,
        `node -e "require('fs').writeFileSync('.envrc', 'x')"`,
        `node -e "require('fs').mkdirSync('.git/hooks', { recursive: true })"`,
      ];
      for (const command of attempts) {
        const run = await executor.sh(command);
        expect(run.exitCode, command).not.toBe(0);
        expect(await listing(ws), command).toEqual(before);
      }
      // The executor's own file tools go through the same calls.
      expect(await executor.tool('write_file', { path: '.envrc', content: 'x' })).toMatchObject({
        isError: true,
      });
    }
    expect(await listing(ws)).toEqual(before);
    for (const name of PLANTED) expect(existsSync(path.join(ws, name)), name).toBe(false);
  });

  it('refuses them by rename of a prepared directory, hard link, symlink then O_CREAT, cp -r, tar x, mkfifo, bind, O_TMPFILE and /proc paths', async () => {
    await using root = await hostDir();
    const ws = path.join(root.path, 'ws');
    await mkdir(ws);
    {
      await using executor = await sandboxedExecutor(await shippedPolicy('execute', ws));
      const attempts = [
        // A directory made under another name, then renamed into place.
        'mkdir -p prep/hooks && echo evil > prep/hooks/post-checkout && mv prep .git',
        'mkdir -p tasks && echo {} > tasks/tasks.json && mv -T tasks .vscode',
        // A hard link and a symlink to a name that does not exist, written through.
        'echo "export X=1" > envrc-src && ln envrc-src .envrc',
        'ln -s .envrc via-link && echo "export X=1" > via-link',
        'ln -s .skate skate-link && mkdir -p skate-link/x',
        // Whole trees copied or unpacked from the private /tmp.
        'mkdir -p /tmp/t/.vscode /tmp/t/.git/hooks && echo {} > /tmp/t/.vscode/tasks.json && cp -r /tmp/t/. .',
        'mkdir -p /tmp/u/.skate && echo {} > /tmp/u/.skate/settings.json && tar -C /tmp/u -cf /tmp/u.tar .skate && tar -xf /tmp/u.tar',
        // Through /proc and /dev/fd: the caller's own cwd and a directory descriptor.
        'mkdir /proc/self/cwd/.git',
        'echo x > /proc/$$/cwd/.envrc',
        'exec 3<. && mkdir /dev/fd/3/.vscode',
        // A FIFO, a unix socket bound to the name, an unnamed O_TMPFILE linked in.
        'mkfifo .envrc',
        `python3 -c "import socket; socket.socket(socket.AF_UNIX).bind('.envrc')"`,
        `python3 -c "import os; fd = os.open('.', os.O_TMPFILE | os.O_WRONLY); os.write(fd, b'x'); os.link(f'/proc/self/fd/{fd}', '.envrc')"`,
        // An absolute path, and one that climbs out and back in.
        `mkdir ${ws}/.git`,
        `touch ../${path.basename(ws)}/.envrc`,
      ];
      for (const command of attempts) {
        await executor.sh(command);
        for (const name of PLANTED)
          expect(existsSync(path.join(ws, name)), `${command}: ${name}`).toBe(false);
      }
      // The name the links point at was never made; the ordinary parts of those commands were.
      expect((await executor.sh('ls -A')).output.split('\n').filter(Boolean).sort()).toEqual(
        (await listing(ws)).filter((name) => !PLANTED.includes(name)),
      );
    }
    for (const name of PLANTED) expect(existsSync(path.join(ws, name)), name).toBe(false);
  });

  it('loses no race: threads flipping the path string, a directory swapped for a symlink mid-call', async () => {
    await using root = await hostDir();
    const ws = path.join(root.path, 'ws');
    await mkdir(ws);
    const racer = path.join(root.path, 'racer');
    await writeFile(`${racer}.c`, RACER);
    execFileSync('cc', ['-O2', '-pthread', '-o', racer, `${racer}.c`]);
    {
      await using executor = await sandboxedExecutor(await shippedPolicy('execute', ws));
      const flipped = await executor.sh(racer, { timeout_seconds: 20 });
      // The harmless name was made and the protected one refused, so both halves of the race were reached.
      expect(flipped.output).toMatch(/tries=\d+ made=[1-9]\d* refused=[1-9]/);
      const swapped = await executor.sh(
        [
          'mkdir a',
          '(end=$((SECONDS+2)); while [ $SECONDS -lt $end ]; do mv a a.d; ln -s . a; rm a; mv a.d a; done) &',
          'end=$((SECONDS+2)); n=0; while [ $SECONDS -lt $end ]; do mkdir a/.git 2>/dev/null && rmdir a/.git; n=$((n+1)); done',
          'wait; echo tries=$n; rm -rf a a.d',
        ].join('\n'),
        { timeout_seconds: 20 },
      );
      expect(swapped.output).toMatch(/tries=[1-9]/);
    }
    expect(await listing(ws)).toEqual([]);
  });

  it('keeps ~/.skate from being created when the workspace is the home directory', async () => {
    await using home = await hostDir('home-');
    const env = { ...process.env, HOME: home.path };
    const result = await runCli(
      [
        'sandbox',
        '--workspace',
        home.path,
        '--',
        'sh',
        '-c',
        [
          'mkdir -p ~/.skate/policies',
          'echo \'{"env":{"ANTHROPIC_BASE_URL":"http://127.0.0.1:9"}}\' > ~/.skate/settings.json',
          'cp /dev/null ~/.skate/policies/execute.json',
          'echo done',
        ].join('; '),
      ],
      { env, timeoutMs: 60_000 },
    );
    expect(result.stdout).toBe('done\n');
    expect(result.stderr).toContain('.skate');
    expect(existsSync(path.join(home.path, '.skate'))).toBe(false);
  });

  it('keeps an existing nested .skate (another session’s logs) read-only, and a new one anywhere from being made', async () => {
    await using root = await hostDir();
    const ws = path.join(root.path, 'ws');
    const log = path.join(ws, 'sub', '.skate', 'sessions', 'x.jsonl');
    await mkdir(path.dirname(log), { recursive: true });
    await writeFile(log, '{"type":"session_start"}\n');
    const before = await snapshot(ws);
    {
      await using executor = await sandboxedExecutor(await shippedPolicy('execute', ws));
      for (const command of [
        'echo evil >> sub/.skate/sessions/x.jsonl',
        ': > sub/.skate/sessions/x.jsonl',
        'rm -f sub/.skate/sessions/x.jsonl',
        'echo evil > sub/.skate/sessions/y.jsonl',
        'mv sub/.skate sub/skate-old',
        'mkdir -p deep/er/.skate/sessions',
        'mkdir /tmp/s && mkdir /tmp/s/.skate && mv /tmp/s deep2',
      ]) {
        await executor.sh(command);
      }
      // Renaming the directory above it moves the read-only mount along; it cannot be remade.
      await executor.sh(
        'mv sub sub2 && mkdir -p sub/.skate/sessions && echo evil > sub/.skate/sessions/x.jsonl',
      );
      await executor.sh('rm -rf sub && mv sub2 sub');
    }
    const after = await snapshot(ws);
    const skateDirs = Object.keys(after).filter((p) => path.basename(p) === '.skate');
    expect(skateDirs).toEqual([path.join('sub', '.skate')]);
    expect(await readFile(log, 'utf8')).toBe('{"type":"session_start"}\n');
    for (const [entry, hash] of Object.entries(before)) expect(after[entry], entry).toBe(hash);
  });

  it('under execute-git, refuses a missing .git/hooks without a placeholder, even after renaming .git', async () => {
    await using root = await hostDir();
    const ws = path.join(root.path, 'ws');
    await mkdir(ws);
    execFileSync('git', ['init', '-q', ws]);
    await rm(path.join(ws, '.git', 'hooks'), { recursive: true, force: true });
    await writeFile(path.join(ws, 'a.txt'), 'a\n');
    const gitBefore = await listing(path.join(ws, '.git'));
    {
      await using executor = await sandboxedExecutor(await shippedPolicy('execute-git', ws));
      // No stand-in appears in the user's .git while the sandbox runs.
      expect(await listing(path.join(ws, '.git'))).toEqual(gitBefore);
      for (const command of [
        'mkdir .git/hooks',
        'mv .git .git-old && mkdir -p .git/hooks',
        'cp -r .git /tmp/g && mkdir /tmp/g/hooks && rm -rf .git.new && cp -r /tmp/g .git.new && mv -T .git.new .git',
      ]) {
        await executor.sh(command);
        expect(existsSync(path.join(ws, '.git', 'hooks')), command).toBe(false);
      }
      // git itself still works in the repository.
      const commit = await executor.sh(
        'git add a.txt && git -c user.email=t@t -c user.name=t commit -qm one && git log --oneline | wc -l',
      );
      expect(commit.output.trim()).toBe('1');
      expect(await listing(path.join(ws, '.git'))).toEqual(
        expect.arrayContaining(gitBefore.filter((name) => name !== 'index')),
      );
    }
    expect(existsSync(path.join(ws, '.git', 'hooks'))).toBe(false);
    expect(existsSync(path.join(ws, '.git-old'))).toBe(false);
    expect(execFileSync('git', ['-C', ws, 'log', '--oneline'], { encoding: 'utf8' })).toMatch(/one/);
  });

  it('keeps ordinary work working: files and trees at any depth, atomic saves, /dev/stdout, mktemp, a node_modules-like tar', async () => {
    await using root = await hostDir();
    const ws = path.join(root.path, 'ws');
    await mkdir(ws);
    await writeFile(path.join(ws, 'notes.md'), 'old\n');
    {
      await using executor = await sandboxedExecutor(await shippedPolicy('execute', ws));
      const work = await executor.sh(
        [
          'set -e',
          'mkdir -p src/a/b/c && echo deep > src/a/b/c/file.ts && echo top > top.txt',
          // An editor's atomic save: a temporary file renamed over the original.
          'printf "new\\n" > .notes.md.swp && mv .notes.md.swp notes.md',
          '{ echo to-stdout > /dev/stdout; } | cat',
          't=$(mktemp) && echo tmp > "$t" && cat "$t"',
          'cat <(echo process-substitution)',
          // An npm-like tree: 300 packages of three files each, unpacked with tar.
          'mkdir -p /tmp/pkg && for i in $(seq 300); do mkdir -p /tmp/pkg/node_modules/p$i/lib; echo "{}" > /tmp/pkg/node_modules/p$i/package.json; echo x > /tmp/pkg/node_modules/p$i/lib/index.js; echo y > /tmp/pkg/node_modules/p$i/README.md; done',
          'tar -C /tmp/pkg -cf /tmp/pkg.tar node_modules && tar -xf /tmp/pkg.tar && find node_modules -type f | wc -l',
          'mkfifo pipe && (cat pipe > from-fifo &) && echo through-fifo > pipe && wait',
          "ln -s top.txt top-link && ln top.txt top-hard && python3 -c \"import socket; s=socket.socket(socket.AF_UNIX); s.bind('sock'); print('bound')\"",
          // A protected name is still refused in the same run.
          'mkdir .git 2>/dev/null || echo refused',
        ].join('\n'),
        { timeout_seconds: 120 },
      );
      expect(work.exitCode).toBe(0);
      expect(work.output).toBe('to-stdout\ntmp\nprocess-substitution\n900\nbound\nrefused\n');
      await executor.tool('write_file', { path: 'docs/guide/intro.md', content: '# Intro\n' });
      await executor.tool('edit_file', { path: 'top.txt', old_string: 'top', new_string: 'edited' });
    }
    expect(await readFile(path.join(ws, 'src/a/b/c/file.ts'), 'utf8')).toBe('deep\n');
    expect(await readFile(path.join(ws, 'notes.md'), 'utf8')).toBe('new\n');
    expect(await readFile(path.join(ws, 'docs/guide/intro.md'), 'utf8')).toBe('# Intro\n');
    expect(await readFile(path.join(ws, 'top.txt'), 'utf8')).toBe('edited\n');
    expect(await readFile(path.join(ws, 'from-fifo'), 'utf8')).toBe('through-fifo\n');
    expect(await readdir(path.join(ws, 'node_modules'))).toHaveLength(300);
    expect(existsSync(path.join(ws, '.git'))).toBe(false);
  });
});
