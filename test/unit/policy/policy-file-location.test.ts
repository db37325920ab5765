import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPolicy } from '../../../harness/policy/load-policy.js';
import { projectRoot } from '../../../harness/project-paths.js';
import type { PolicyFile } from '../../../shared/policy.js';
import { tempDir } from '../../support/temp-dir.js';

async function policyFile(file: string, change: (policy: PolicyFile) => void): Promise<string> {
  const { $schema: _schema, ...policy } = JSON.parse(
    await readFile(path.join(projectRoot(), 'sandbox-policies', 'execute.json'), 'utf8'),
  );
  change(policy);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, JSON.stringify(policy));
  return file;
}

const networkOn = (policy: PolicyFile): void => {
  policy.name = 'net';
  policy.network = { mode: 'on' };
};

describe('a policy file given by path where a sandbox can write', () => {
  it('may only narrow execute inside the workspace; outside it, or in ~/.skate, it is the user’s', async () => {
    await using home = await tempDir();
    await using ws = await tempDir();
    await using elsewhere = await tempDir();
    const places = { workspace: ws.path, home: home.path };
    const inside = await policyFile(path.join(ws.path, 'tools', 'net.json'), networkOn);
    const refused = await loadPolicy(inside, places);
    expect(refused).toMatchObject({
      ok: false,
      problem: { errorType: 'writable_location', source: inside, message: expect.stringContaining(ws.path) },
    });
    expect(refused.ok || refused.problem.suggestion).toContain(path.join(home.path, '.skate', 'policies'));
    // Narrower than execute, it is fine where it is.
    const narrow = await policyFile(path.join(ws.path, 'tools', 'narrow.json'), (policy) => {
      policy.name = 'narrow';
      policy.filesystem.write.allow = [];
    });
    expect((await loadPolicy(narrow, places)).ok).toBe(true);
    // The same wide file outside the workspace, or in ~/.skate (which every sandbox keeps read-only).
    expect(
      (await loadPolicy(await policyFile(path.join(elsewhere.path, 'net.json'), networkOn), places)).ok,
    ).toBe(true);
    const userPolicy = await policyFile(path.join(home.path, '.skate', 'policies', 'net.json'), networkOn);
    expect((await loadPolicy(userPolicy, places)).ok).toBe(true);
    expect((await loadPolicy('net', places)).ok).toBe(true);
  });

  it('follows a name in ~/.skate/policies to where its file lies: a link into the workspace only narrows', async () => {
    await using home = await tempDir();
    await using ws = await tempDir();
    const places = { workspace: ws.path, home: home.path };
    const target = await policyFile(path.join(ws.path, 'net.json'), networkOn);
    await mkdir(path.join(home.path, '.skate', 'policies'), { recursive: true });
    await symlink(target, path.join(home.path, '.skate', 'policies', 'net.json'));
    expect(await loadPolicy('net', places)).toMatchObject({
      ok: false,
      problem: { errorType: 'writable_location' },
    });
    // Even a user's own execute.json, measured against the shipped one.
    await symlink(target, path.join(home.path, '.skate', 'policies', 'execute.json'));
    expect(await loadPolicy('execute', places)).toMatchObject({
      ok: false,
      problem: { errorType: 'writable_location' },
    });
  });

  it('counts the policy’s own write roots as places a sandbox can write', async () => {
    await using home = await tempDir();
    await using ws = await tempDir();
    await using shared = await tempDir();
    const file = await policyFile(path.join(shared.path, 'wide.json'), (policy) => {
      policy.name = 'wide';
      policy.filesystem.write.allow = ['${workspace}', shared.path];
    });
    expect(await loadPolicy(file, { workspace: ws.path, home: home.path })).toMatchObject({
      ok: false,
      problem: { errorType: 'writable_location', message: expect.stringContaining(shared.path) },
    });
  });
});
