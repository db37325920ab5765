/**
 * The provider class (issue #26): a settings provider's key, under whatever variable its
 * `apiKeyEnv` names, and the cloud credentials the Bedrock and Vertex SDKs read, stay in the
 * harness. Checked as a hostile model would probe (a shell command reading every environment it
 * can) and on the host (the `/proc/<pid>/environ` and argv of the harness, its executor and the
 * command, read from outside while the command runs); and the executor reaches the provider's
 * server only where its policy turns the network on.
 */

import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { fakeOpenAiApi } from '../support/fake-openai-api.js';
import { hostDir } from '../support/host-dir.js';
import { commandLine, processDescendants } from '../support/process-descendants.js';
import { eventually } from '../support/processes.js';
import { runCli } from '../support/run-cli.js';
import { writeSkateSettings } from '../support/skate-settings.js';

const support = await probeSandbox();
const noSandbox = support.available ? undefined : `no kernel sandbox here: ${support.problem}`;

const run = randomBytes(6).toString('hex');
/** The provider's key, under a name no list knows: only the settings' `apiKeyEnv` makes it secret. */
const PROVIDER_KEY = `local-llm-key-${run}-secret`;
/** What the SDKs of the other providers would read, set in the same harness. */
const CLOUD = {
  OPENAI_API_KEY: `openai-${run}-secret`,
  AWS_ACCESS_KEY_ID: `AKIA${run.toUpperCase()}SECRET`,
  AWS_SECRET_ACCESS_KEY: `aws-secret-${run}-secret`,
  AWS_BEARER_TOKEN_BEDROCK: `bedrock-${run}-secret`,
  GOOGLE_APPLICATION_CREDENTIALS: `/home/nobody/gcp-${run}-secret.json`,
};
const NEVER_INSIDE = [PROVIDER_KEY, ...Object.values(CLOUD)];

/** Reads every environment it can, then knocks on the provider's server from inside the sandbox. */
function probe(port: number): string {
  return [
    'touch probe-running',
    // Long enough for the host to read every process's environ while this one lives.
    'for i in $(seq 1 40); do [ -e host-looked ] && break; sleep 0.1; done',
    'echo "== env"; /usr/bin/env',
    'echo "== self"; /usr/bin/tr "\\0" "\\n" < /proc/self/environ',
    'echo "== all"; /usr/bin/cat /proc/[0-9]*/environ 2>/dev/null | /usr/bin/tr "\\0" "\\n"',
    `echo "== net"; (exec 3<>/dev/tcp/127.0.0.1/${port} && printf 'GET /from-sandbox HTTP/1.0\\r\\n\\r\\n' >&3 && head -1 <&3) 2>&1 | head -2`,
    // Under an allowlist the one way out is the proxy: ask it for the provider's server too.
    `[ -n "$HTTP_PROXY" ] && curl -sS --max-time 5 --noproxy '' -x "$HTTP_PROXY" -o /dev/null -w 'proxy %{http_code}\\n' http://127.0.0.1:${port}/through-proxy 2>&1 | head -2`,
    'echo "== end"',
  ].join('\n');
}

describe.skipIf(noSandbox)('provider credentials stay in the harness', () => {
  it.each([
    ['execute', [], false],
    ['full', [], true],
    // An allowlist that does not name the provider's host: the proxy refuses it like any other.
    ['execute', ['--network', 'registry.npmjs.org'], false],
  ] as const)(
    'under %s %j: no process below the harness holds a key; the server is reachable only if the policy lets it',
    async (policy, extra, networkOn) => {
      await using home = await hostDir('provider-home-');
      await using ws = await hostDir('provider-ws-');
      await using api = await fakeOpenAiApi([]);
      const port = Number(new URL(api.url).port);
      await writeFile(path.join(ws.path, 'probe.sh'), probe(port));
      api.enqueue(
        {
          type: 'reply',
          toolCalls: [{ id: 'call_probe', name: 'shell', arguments: { command: '/bin/bash probe.sh' } }],
        },
        { type: 'reply', text: 'Probed.' },
      );
      await writeSkateSettings(home.path, {
        providers: {
          local: {
            type: 'openai-chat',
            baseURL: api.url,
            apiKeyEnv: 'MY_LOCAL_LLM_TOKEN',
            models: { m: { contextWindow: 32_000 } },
          },
        },
      });
      const { ANTHROPIC_API_KEY: _key, ...rest } = process.env;
      const running = runCli(
        [
          '-p',
          'probe',
          '--policy',
          policy,
          '--workspace',
          ws.path,
          '--model',
          'local/m',
          '--output-format',
          'stream-json',
          ...extra,
        ],
        {
          env: {
            ...rest,
            ...CLOUD,
            HOME: home.path,
            MY_LOCAL_LLM_TOKEN: PROVIDER_KEY,
            COPY_OF_IT: PROVIDER_KEY,
          },
          timeoutMs: 60_000,
        },
      );
      // While the command runs: the harness (its own environ scrubbed), its executor, bwrap, the command.
      expect(await eventually(() => existsSync(path.join(ws.path, 'probe-running')), 30_000)).toBe(true);
      const pids = await processDescendants(process.pid);
      const seen: string[] = [];
      for (const pid of pids) {
        const environ = await readFile(`/proc/${pid}/environ`, 'latin1').catch(() => '');
        const argv = await commandLine(pid);
        seen.push(argv);
        for (const secret of NEVER_INSIDE) {
          expect(environ, `environ of ${pid} (${argv})`).not.toContain(secret);
          expect(argv, `argv of ${pid}`).not.toContain(secret);
        }
      }
      // The processes looked at include the harness and the probe itself.
      expect(seen.some((argv) => argv.includes('skate.js'))).toBe(true);
      expect(seen.some((argv) => argv.includes('probe.sh'))).toBe(true);
      await writeFile(path.join(ws.path, 'host-looked'), '');
      const result = await running;
      expect(result.code, result.stderr).toBe(0);

      const output = result.stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as { type: string; output?: string })
        .find((event) => event.type === 'tool_call_result')?.output;
      expect(output).toContain('== end');
      expect(output).toMatch(/^HOME=/m);
      for (const secret of NEVER_INSIDE) expect(output).not.toContain(secret);
      // Under `full` the command shares the host's /proc: the harness's own environ shows the names
      // with their values blanked (scrubOwnEnviron); never a value.
      for (const name of ['MY_LOCAL_LLM_TOKEN', 'COPY_OF_IT', ...Object.keys(CLOUD)]) {
        expect(output).not.toMatch(new RegExp(`^${name}=(?!\\*+$)`, 'm'));
      }
      const own = output!.slice(0, output!.indexOf('== all'));
      expect(own).not.toMatch(/^(MY_LOCAL_LLM_TOKEN|COPY_OF_IT)=/m);
      // The key went where it belongs: to the provider, from the harness.
      const modelTurns = api.requests.filter((request) => request.path === '/v1/chat/completions');
      expect(modelTurns).toHaveLength(2);
      for (const turn of modelTurns) expect(turn.headers.authorization).toBe(`Bearer ${PROVIDER_KEY}`);
      // Nothing the model sees carries it either.
      expect(JSON.stringify(modelTurns.at(-1)?.body)).not.toContain(PROVIDER_KEY);
      // The server, on the host, saw the sandbox's knock only where the policy has the network.
      const knocked = api.requests.some((request) => request.path === '/from-sandbox');
      expect(knocked, output).toBe(networkOn);
      expect(api.requests.some((request) => request.path === '/through-proxy')).toBe(false);
      if (extra.length > 0) {
        expect(output).toContain('proxy 403');
        // The refusal is data: the host and port the command asked for.
        expect(result.stdout).toMatch(
          new RegExp(`"type":"network_denied".*"host":"127\\.0\\.0\\.1","port":${port}`),
        );
      }
    },
  );
});
