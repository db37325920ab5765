import { existsSync } from 'node:fs';
import { mkdir, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { methods } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import type { PromptJsonResponse, ServeErrorBody, SessionInfo, Transcript } from '../../shared/serve-api.js';
import { startAcpEditor } from '../support/acp-editor.js';
import { type FakeReply, fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { type SkateServe, startSkateServe } from '../support/skate-serve.js';

const KEY = 'sk-ant-test-key-for-workspaces';
const JSON_BODY = { 'content-type': 'application/json' };

function agentEnv(baseUrl: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { ...process.env, ANTHROPIC_API_KEY: KEY, ANTHROPIC_BASE_URL: baseUrl, ...extra };
}

/** A model turn that runs one shell command, then a turn that ends the run. */
function shellThenDone(id: string, command: string): FakeReply[] {
  return [
    { type: 'message', blocks: [{ type: 'tool_use', id, name: 'shell', input: { command } }] },
    { type: 'message', blocks: [{ type: 'text', text: 'done' }] },
  ];
}

const ok: FakeReply = { type: 'message', blocks: [{ type: 'text', text: 'ok' }] };

async function create(
  server: SkateServe,
  body: Record<string, unknown>,
): Promise<{ status: number; session?: SessionInfo; error?: ServeErrorBody['error'] }> {
  const response = await server.request('/v1/sessions', {
    method: 'POST',
    headers: JSON_BODY,
    body: JSON.stringify(body),
  });
  const json = (await response.json()) as SessionInfo & ServeErrorBody;
  return response.status === 201
    ? { status: 201, session: json }
    : { status: response.status, error: json.error };
}

/** Runs a prompt to its end; resolves to the outputs of the run's tool calls. */
async function runPrompt(server: SkateServe, id: string, text: string): Promise<string[]> {
  const response = await server.request(`/v1/sessions/${id}/prompt`, {
    method: 'POST',
    headers: { ...JSON_BODY, accept: 'application/json' },
    body: JSON.stringify({ text }),
  });
  expect(response.status).toBe(200);
  const { events, result } = (await response.json()) as PromptJsonResponse;
  expect(result.status).toBe('complete');
  return events.flatMap((event) => (event.type === 'tool_call_result' ? [event.output] : []));
}

const logOf = (workspace: string, id: string): string =>
  path.join(workspace, '.skate', 'sessions', `${id}.jsonl`);

// Workspaces outside /tmp: sandboxes get a private /tmp, so the host could not see writes there.
describe("skate serve: a session can never write another session's log", () => {
  it('refuses a workspace with a protected name at any depth (sub/.skate/sessions): the other log stays as written', async () => {
    await using root = await hostDir('ws-protected-');
    await mkdir(path.join(root.path, 'sub'));
    await mkdir(path.join(root.path, 'lib', '.git', 'hooks'), { recursive: true });
    await mkdir(path.join(root.path, 'lib', '.vscode'), { recursive: true });
    await using api = await fakeMessagesApi([ok]);
    await using server = await startSkateServe(
      ['--workspace', root.path, '--approval', 'auto'],
      agentEnv(api.url),
    );
    const a = (await create(server, { workspace: 'sub' })).session!;
    await runPrompt(server, a.id, 'hello');
    const aLog = logOf(path.join(root.path, 'sub'), a.id);
    const written = await readFile(aLog, 'utf8');

    const inside = await create(server, { workspace: 'sub/.skate/sessions' });
    if (inside.session) {
      // Accepted (as on main before this fix): its shell rewrites session A's log.
      api.enqueue(...shellThenDone('tu_forge', `printf '{"forged":true}\\n' > ${a.id}.jsonl`));
      await runPrompt(server, inside.session.id, 'forge');
    }
    // On the host: A's log is as A wrote it, and its transcript serves nothing forged.
    expect(await readFile(aLog, 'utf8')).toBe(written);
    const transcript = (await (await server.request(`/v1/sessions/${a.id}/transcript`)).json()) as Transcript;
    expect(JSON.stringify(transcript)).not.toContain('forged');
    expect(inside.status).toBe(403);
    expect(inside.error).toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('inside .skate'),
    });
    for (const workspace of ['lib/.git/hooks', 'lib/.vscode', './sub/../sub/.skate']) {
      const refused = await create(server, { workspace });
      expect(refused.status, workspace).toBe(403);
    }
  });

  it("refuses a session nested in, or around, an open session's workspace: neither can reach the other's .skate", async () => {
    await using root = await hostDir('ws-nested-');
    for (const dir of ['app/sub', 'lib/sub', 'same'])
      await mkdir(path.join(root.path, dir), { recursive: true });
    // Replies are queued before each prompt, in the order the prompts run.
    await using api = await fakeMessagesApi();
    await using server = await startSkateServe(
      ['--workspace', root.path, '--approval', 'auto'],
      agentEnv(api.url),
    );

    // Outer first: its sandbox runs before the inner session's .skate is made.
    const outer = (await create(server, { workspace: 'app' })).session!;
    const inner = await create(server, { workspace: 'app/sub' });
    if (inner.session) {
      api.enqueue(ok);
      await runPrompt(server, inner.session.id, 'hello');
      const innerLog = logOf(path.join(root.path, 'app', 'sub'), inner.session.id);
      const written = await readFile(innerLog, 'utf8');
      api.enqueue(
        ...shellThenDone(
          'tu_outer',
          `printf '{"forged":true}\\n' >> sub/.skate/sessions/${inner.session.id}.jsonl`,
        ),
      );
      await runPrompt(server, outer.id, 'forge');
      expect(await readFile(innerLog, 'utf8')).toBe(written);
    }
    expect(inner.status).toBe(409);
    expect(inner.error).toMatchObject({
      code: 'workspace_in_use',
      message: expect.stringContaining('lies inside app'),
    });

    // Inner first: its .skate exists when the outer one's sandbox starts.
    const first = (await create(server, { workspace: 'lib/sub' })).session!;
    api.enqueue(ok);
    await runPrompt(server, first.id, 'hello');
    const firstLog = logOf(path.join(root.path, 'lib', 'sub'), first.id);
    const firstWritten = await readFile(firstLog, 'utf8');
    const around = await create(server, { workspace: 'lib' });
    if (around.session) {
      api.enqueue(
        ...shellThenDone('tu_around', `printf '{"forged":true}\\n' >> sub/.skate/sessions/${first.id}.jsonl`),
      );
      await runPrompt(server, around.session.id, 'forge');
    }
    expect(await readFile(firstLog, 'utf8')).toBe(firstWritten);
    expect(around.status).toBe(409);
    expect(around.error).toMatchObject({
      code: 'workspace_in_use',
      message: expect.stringContaining('contains lib/sub'),
    });

    // The same workspace is shared as before: its .skate is read-only to both sandboxes.
    const one = (await create(server, { workspace: 'same' })).session!;
    const two = (await create(server, { workspace: 'same' })).session!;
    api.enqueue(ok);
    await runPrompt(server, two.id, 'hello');
    const twoLog = logOf(path.join(root.path, 'same'), two.id);
    const twoWritten = await readFile(twoLog, 'utf8');
    api.enqueue(
      ...shellThenDone('tu_same', `printf '{"forged":true}\\n' >> .skate/sessions/${two.id}.jsonl`),
    );
    // Refused by the create guard (an open for writing under .skate) or, past it, by the read-only mount.
    expect((await runPrompt(server, one.id, 'forge')).join('\n')).toMatch(
      /Permission denied|Read-only file system/,
    );
    expect(await readFile(twoLog, 'utf8')).toBe(twoWritten);

    // Once the outer session is deleted, the inner one may open.
    expect((await server.request(`/v1/sessions/${outer.id}`, { method: 'DELETE' })).status).toBe(204);
    expect((await create(server, { workspace: 'app/sub' })).status).toBe(201);
  });
});

describe("skate acp: the editor's cwd is a workspace as the CLI takes one", () => {
  it('refuses cwd "/" (however spelt) and makes no /.skate; takes $HOME, whose .skate stays read-only', async () => {
    await using home = await hostDir('acp-home-');
    await using api = await fakeMessagesApi(
      shellThenDone(
        'tu_home',
        'echo \'{"network":"on"}\' > ~/.skate/settings.json; echo planted > ~/.skate/AGENTS.md',
      ),
    );
    const hadRootSkate = existsSync('/.skate');
    await using editor = startAcpEditor(['--approval', 'auto'], agentEnv(api.url, { HOME: home.path }));
    try {
      await editor.run(async (ctx) => {
        for (const cwd of ['/', '/tmp/..', `${home.path}/../../../../../..`]) {
          const refused = await ctx.request(methods.agent.session.new, { cwd, mcpServers: [] }).then(
            () => 'accepted',
            (error: Error) => error.message,
          );
          expect(refused, cwd).not.toBe('accepted');
        }
        const { sessionId } = await ctx.request(methods.agent.session.new, {
          cwd: home.path,
          mcpServers: [],
        });
        await ctx.request(methods.agent.session.prompt, {
          sessionId,
          prompt: [{ type: 'text', text: 'plant settings' }],
        });
      });
      // On the host: nothing at /.skate, nothing planted in ~/.skate.
      expect(existsSync('/.skate')).toBe(hadRootSkate);
      expect(existsSync(path.join(home.path, '.skate', 'settings.json'))).toBe(false);
      expect(existsSync(path.join(home.path, '.skate', 'AGENTS.md'))).toBe(false);
      expect(existsSync(path.join(home.path, '.skate', 'sessions'))).toBe(true);
    } finally {
      // Left by a build without this fix: remove what the test made.
      if (!hadRootSkate) await rm('/.skate', { recursive: true, force: true });
    }
  });
});
