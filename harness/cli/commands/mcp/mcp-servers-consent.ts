import type { McpServerConfig } from '../../../../shared/mcp-servers.js';
import { serverManifest } from '../../../mcp/mcp-server-handle.js';
import { describeServer, mcpConsentSubject } from '../../../mcp/setup-mcp.js';
import { authStatusLine } from '../../../mcp-oauth/auth-status-line.js';
import { loadSettings } from '../../../settings/load-settings.js';
import type { ConsentCommand } from '../../consent-command.js';
import { UsageError } from '../../usage-error.js';

/** One configured server as `skate mcp list` shows it. */
export interface ListedServer {
  name: string;
  source: 'user' | 'workspace';
  file: string;
  server: string;
  /** configured (tools unknown until it starts), manifest known (N tools, no start needed), or why it does not run. */
  state: string;
  /** For a workspace's servers: whether you consented to this version of the file. */
  consent: 'not needed' | 'given' | 'not given';
  /** A remote server's login (`skate mcp login`): authenticated, expired or needs login; absent when none is kept. */
  auth?: string;
}

/**
 * The MCP servers a workspace's runs would use (settings files and the workspace's .mcp.json),
 * from where, their state and consent: what `skate mcp list|trust|revoke` share. Nothing is started.
 */
export const MCP_SERVERS_CONSENT: ConsentCommand<ListedServer> = {
  command: 'mcp',
  item: 'server',
  async load({ workspace, consent }) {
    const settings = await loadSettings({ workspace });
    const listed: ListedServer[] = [];
    const taken = new Set<string>();
    for (const source of settings.mcpSources) {
      for (const [name, config] of Object.entries(source.servers)) {
        const given =
          source.scope === 'user'
            ? 'not needed'
            : (await consent.has(mcpConsentSubject(source, name)))
              ? 'given'
              : 'not given';
        const state = taken.has(name)
          ? `not used: "${name}" is defined before`
          : given === 'not given'
            ? 'not used without consent'
            : await stateOf(name, config);
        taken.add(name);
        const auth = await authStatusLine(name, config, source.scope);
        listed.push({
          name,
          source: source.scope,
          file: source.file,
          server: describeServer(config),
          state,
          consent: given,
          ...(auth && { auth }),
        });
      }
    }
    return {
      listed,
      text: () =>
        listed.length === 0
          ? 'no MCP servers configured\n'
          : `${listed
              .map(
                (server) =>
                  `${server.name}: ${server.state}\n    ${server.server}${server.auth ? ` (login: ${server.auth})` : ''}\n    ${server.source} (${server.file})${server.source === 'workspace' ? `; consent ${server.consent}` : ''}`,
              )
              .join('\n')}\n`,
      target(name) {
        const source = settings.mcpSources.find((s) => s.scope === 'workspace' && name && name in s.servers);
        if (!source || !name)
          throw new UsageError(`no workspace file of ${workspace} names the MCP server "${name}"`);
        return {
          subject: mcpConsentSubject(source, name),
          what: `the MCP server "${name}" of ${source.file}`,
          granted: 'may run',
          revoked: 'will not run without a new consent',
        };
      },
    };
  },
};

/**
 * What a run would do with the server. A remembered failed start is shown (why and when) and
 * forgotten: having looked, the user gets a next run that waits for the server's start again.
 */
async function stateOf(name: string, config: McpServerConfig): Promise<string> {
  const memory = serverManifest(name, config);
  const failure = await memory.recallFailure();
  if (failure) {
    await memory.forgetFailure();
    return `failed to start at ${failure.at}: ${failure.reason} (forgotten now: the next run waits for its start again)`;
  }
  const tools = await memory.recall();
  return tools
    ? `manifest known (${tools.length} tools): starts at its first call`
    : 'configured: starts at the next run to list its tools';
}
