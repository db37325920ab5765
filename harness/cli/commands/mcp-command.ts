import { parseArgs } from 'node:util';
import type { McpServerConfig } from '../../../shared/mcp-servers.js';
import { createConsentStore } from '../../consent/consent-store.js';
import { serverManifest } from '../../mcp/mcp-server-handle.js';
import { describeServer, mcpConsentSubject } from '../../mcp/setup-mcp.js';
import { authStatusLine } from '../../mcp-oauth/auth-status-line.js';
import { resolveWorkspace } from '../../runtime/start-executor.js';
import { loadSettings } from '../../settings/load-settings.js';
import { inertText, jsonFor } from '../../terminal/inert-text.js';
import { type CommandMain, parsed, WORKSPACE_JSON } from '../cli-flags.js';
import { help } from '../usage.js';
import { UsageError } from '../usage-error.js';

/** One configured server as `skate mcp list` shows it. */
interface ListedServer {
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
 * `skate mcp list [--workspace DIR] [--json]`: every MCP server configured (settings files and the
 * project's .mcp.json), from where, its state, and its consent; `skate mcp trust|revoke NAME`:
 * consent to a workspace's server as its file is now, or take it back. Nothing is started.
 */
export const run: CommandMain = async (args) => {
  const [sub, ...rest] = args;
  if (sub === 'login' || sub === 'logout') return (await import('./mcp-login-command.js')).run(args);
  if (sub !== 'list' && sub !== 'trust' && sub !== 'revoke')
    throw new UsageError(
      'the mcp command is `skate mcp list [--workspace DIR] [--json]`, `skate mcp trust|revoke NAME` or `skate mcp login|logout NAME`',
    );
  const { values, positionals } = parsed(() =>
    parseArgs({ args: rest, options: WORKSPACE_JSON, allowPositionals: true }),
  );
  if (values.help) return help();
  const workspace = await resolveWorkspace(values.workspace);
  const settings = await loadSettings({ workspace });
  const consent = createConsentStore();
  if (sub === 'trust' || sub === 'revoke') {
    const [name, extra] = positionals;
    if (!name || extra) throw new UsageError(`skate mcp ${sub} takes one server name`);
    const source = settings.mcpSources.find((s) => s.scope === 'workspace' && name in s.servers);
    if (!source) throw new UsageError(`no workspace file of ${workspace} names the MCP server "${name}"`);
    const subject = mcpConsentSubject(source, name);
    if (sub === 'trust') await consent.grant(subject);
    else await consent.revoke('mcp-servers', subject.file);
    process.stderr.write(
      inertText(
        sub === 'trust'
          ? `skate: the MCP server "${name}" of ${source.file} may run (this version, sha256 ${source.sha256.slice(0, 12)}…)\n`
          : `skate: the MCP server "${name}" of ${source.file} will not run without a new consent\n`,
      ),
    );
    return 0;
  }
  if (positionals.length > 0) throw new UsageError(`unexpected argument: ${positionals[0]}`);
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
  if (values.json) {
    process.stdout.write(`${jsonFor(process.stdout, listed, 2)}\n`);
    return 0;
  }
  if (listed.length === 0) {
    process.stdout.write('no MCP servers configured\n');
    return 0;
  }
  const lines = listed.map(
    (server) =>
      `${server.name}: ${server.state}\n    ${server.server}${server.auth ? ` (login: ${server.auth})` : ''}\n    ${server.source} (${server.file})${server.source === 'workspace' ? `; consent ${server.consent}` : ''}`,
  );
  process.stdout.write(inertText(`${lines.join('\n')}\n`));
  return 0;
};

async function stateOf(name: string, config: McpServerConfig): Promise<string> {
  const tools = await serverManifest(name, config).recall();
  return tools
    ? `manifest known (${tools.length} tools): starts at its first call`
    : 'configured: starts at the next run to list its tools';
}
