import { methods, type SessionConfigOption } from '@agentclientprotocol/sdk';
import { describe, expect, it } from 'vitest';
import { probeSandbox } from '../../harness/sandbox/probe-sandbox.js';
import { startAcpEditor } from '../support/acp-editor.js';
import { cliEnv, textReply, toolCall } from '../support/cli-world.js';
import { fakeMessagesApi } from '../support/fake-messages-api.js';
import { hostDir } from '../support/host-dir.js';
import { hitTarget } from '../support/network-upstreams.js';

const support = await probeSandbox();

const networkOf = (options: SessionConfigOption[] | null | undefined): SessionConfigOption | undefined =>
  options?.find((option) => option.id === 'network');

const valuesOf = (option: SessionConfigOption | undefined): string[] =>
  option?.type === 'select' ? option.options.map((each) => ('value' in each ? each.value : '')) : [];

/**
 * The network as an ACP config option (issue #21), set by the official SDK as the editor: off,
 * the allowlist the session started with, or on, mid-session, as `Space n` does. What changed is
 * read on the host: which of the tools' requests reached a server on the host's loopback.
 */
describe.skipIf(!support.available)(
  'the network as an ACP session config option (the SDK as the editor)',
  () => {
    it('switches off, on and back to the allowlist between prompts; the host sees only what each allows', async () => {
      await using home = await hostDir('acp-netopt-home-');
      await using ws = await hostDir('acp-netopt-ws-');
      await using target = await hitTarget();
      const { hits, port } = target;
      // Straight to the host's loopback (no proxy): only `on` shares the host's network.
      const fetchCall = (name: string) => ({
        type: 'message' as const,
        blocks: [
          {
            type: 'tool_use' as const,
            id: `tu_${name}`,
            name: 'shell',
            input: {
              command: `echo "proxy=\${HTTPS_PROXY:-none}"; curl -sS --noproxy '*' --max-time 5 http://127.0.0.1:${port}/${name} || echo UNREACHED`,
            },
          },
        ],
        stopReason: 'tool_use' as const,
      });
      const done = { type: 'message' as const, blocks: [{ type: 'text' as const, text: 'Done.' }] };
      await using api = await fakeMessagesApi([
        fetchCall('allowlist'),
        done,
        fetchCall('on'),
        done,
        fetchCall('off'),
        done,
        fetchCall('allowlist-again'),
        done,
      ]);
      const env = cliEnv({ home: home.path, api: api.url });
      await using editor = startAcpEditor(['--approval', 'auto', '--network', 'example.com'], env);
      const seen = await editor.run(async (ctx) => {
        const created = await ctx.request(methods.agent.session.new, { cwd: ws.path, mcpServers: [] });
        const { sessionId } = created;
        const prompt = async (): Promise<string> =>
          (
            await ctx.request(methods.agent.session.prompt, {
              sessionId,
              prompt: [{ type: 'text', text: 'go' }],
            })
          ).stopReason;
        const set = async (value: string): Promise<SessionConfigOption | undefined> =>
          networkOf(
            (
              await ctx.request(methods.agent.session.setConfigOption, {
                sessionId,
                configId: 'network',
                value,
              })
            ).configOptions,
          );
        const initial = networkOf(created.configOptions);
        const stops = [await prompt()];
        const on = await set('on');
        stops.push(await prompt());
        const off = await set('off');
        stops.push(await prompt());
        const back = await set('allowlist');
        stops.push(await prompt());
        // A value the option does not have is the client's mistake.
        const bad = await ctx
          .request(methods.agent.session.setConfigOption, {
            sessionId,
            configId: 'network',
            value: 'wide-open',
          })
          .then(() => 'accepted')
          .catch((error: Error) => error.message);
        return { initial, on, off, back, stops, bad };
      });
      expect(seen.stops, editor.stderr()).toEqual(['end_turn', 'end_turn', 'end_turn', 'end_turn']);
      expect(seen.initial).toMatchObject({ category: '_network', currentValue: 'allowlist' });
      expect(valuesOf(seen.initial)).toEqual(['off', 'allowlist', 'on']);
      expect(JSON.stringify(seen.initial)).toContain('example.com');
      expect(seen.on?.currentValue).toBe('on');
      expect(seen.off?.currentValue).toBe('off');
      // Off still offers the allowlist the session ran under, and going back restores it.
      expect(valuesOf(seen.off)).toEqual(['off', 'allowlist', 'on']);
      expect(seen.back?.currentValue).toBe('allowlist');
      expect(JSON.stringify(seen.back)).toContain('example.com');
      expect(seen.bad).toMatch(/not a value of network/);
      // On the host: only the request made under `on` arrived.
      expect(hits).toEqual(['/on']);
      // The tools had the proxy under the allowlist (both times), and not under on or off.
      const said = JSON.stringify(editor.updates);
      expect(said.match(/proxy=http:\/\/127\.0\.0\.1:3128/g)?.length).toBeGreaterThanOrEqual(2);
      expect(said).toContain('proxy=none');
    }, 120_000);
    it('after "Allow for this session" the editor gets a config_option_update naming the host, before the prompt ends', async () => {
      await using home = await hostDir('acp-netupd-home-');
      await using ws = await hostDir('acp-netupd-ws-');
      await using target = await hitTarget();
      const { hits, port } = target;
      await using api = await fakeMessagesApi([
        toolCall('tu_fetch', 'shell', {
          command: `${target.curlViaProxy('first')}; ${target.curlViaProxy('second')}`,
        }),
        textReply('Fetched.'),
      ]);
      const env = cliEnv({ home: home.path, api: api.url });
      await using editor = startAcpEditor(['--approval', 'auto', '--network', 'example.com'], env);
      // The question's second option: "Allow for this session".
      editor.choices.push('option-1');
      const networkUpdates = (): SessionConfigOption[] =>
        editor.updates.flatMap((n) =>
          n.update.sessionUpdate === 'config_option_update' ? [networkOf(n.update.configOptions)!] : [],
        );
      const seen = await editor.run(async (ctx) => {
        const created = await ctx.request(methods.agent.session.new, { cwd: ws.path, mcpServers: [] });
        const { stopReason } = await ctx.request(methods.agent.session.prompt, {
          sessionId: created.sessionId,
          prompt: [{ type: 'text', text: 'fetch' }],
        });
        const beforeEnd = networkUpdates();
        // A change the editor asks for comes back in its response; no update is added for it.
        const on = await ctx.request(methods.agent.session.setConfigOption, {
          sessionId: created.sessionId,
          configId: 'network',
          value: 'on',
        });
        return {
          initial: networkOf(created.configOptions),
          stopReason,
          beforeEnd,
          on: networkOf(on.configOptions),
        };
      });
      expect(seen.stopReason, editor.stderr()).toBe('end_turn');
      // One question, answered once: both requests reached the host.
      expect(editor.permissions).toHaveLength(1);
      expect(hits).toEqual(['/first', '/second']);
      expect(JSON.stringify(seen.initial)).not.toContain(`127.0.0.1:${port}`);
      // The update came before the prompt's response, with the host in the allowlist offered.
      expect(seen.beforeEnd).toHaveLength(1);
      expect(seen.beforeEnd[0]).toMatchObject({ id: 'network', currentValue: 'allowlist' });
      expect(JSON.stringify(seen.beforeEnd[0])).toContain(`127.0.0.1:${port}`);
      expect(JSON.stringify(seen.beforeEnd[0])).toContain('example.com');
      expect(seen.on?.currentValue).toBe('on');
      expect(networkUpdates()).toHaveLength(1);
    }, 120_000);
  },
);
