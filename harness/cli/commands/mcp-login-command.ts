import { parseArgs } from 'node:util';
import { isHttpServer, type McpHttpServer } from '../../../shared/mcp-servers.js';
import { createConsentStore } from '../../consent/consent-store.js';
import { expandServerConfig } from '../../mcp/expand-server-config.js';
import { mcpConsentSubject } from '../../mcp/setup-mcp.js';
import { DEFAULT_LOGIN_TIMEOUT_MS, loginMcpServer } from '../../mcp-oauth/login-mcp-server.js';
import { McpAuthError } from '../../mcp-oauth/mcp-auth-error.js';
import { createOAuthStore } from '../../mcp-oauth/oauth-store.js';
import { openBrowser } from '../../mcp-oauth/open-browser.js';
import { resolveWorkspace } from '../../runtime/start-executor.js';
import { isWithheldVariable } from '../../sandbox/executor-env.js';
import { loadSettings } from '../../settings/load-settings.js';
import { inertText } from '../../terminal/inert-text.js';
import { COMMON, type CommandMain, parsed, positiveInt } from '../cli-flags.js';
import { help } from '../usage.js';
import { UsageError } from '../usage-error.js';

const OPTIONS = {
  workspace: COMMON.workspace,
  'no-browser': { type: 'boolean', default: false },
  timeout: { type: 'string' },
  help: COMMON.help,
} as const;

/**
 * `skate mcp login NAME [--workspace DIR] [--no-browser] [--timeout SECONDS]`: authorizes Skate with
 * a remote MCP server that asks for OAuth (the MCP authorization spec, through the SDK's auth
 * client), and keeps the tokens in `~/.skate/mcp-auth/` (0600, hidden from every sandbox).
 * `skate mcp logout NAME`: forgets them. Only ever started by a person: a run never logs in.
 */
export const run: CommandMain = async (args) => {
  const [sub, ...rest] = args;
  const { values, positionals } = parsed(() =>
    parseArgs({ args: rest, options: OPTIONS, allowPositionals: true }),
  );
  if (values.help) return help();
  const [name, extra] = positionals;
  if (!name || extra) throw new UsageError(`skate mcp ${sub} takes one server name`);
  const workspace = await resolveWorkspace(values.workspace);
  const settings = await loadSettings({ workspace });
  const source = settings.mcpSources.find((s) => name in s.servers);
  const config = source?.servers[name];
  if (!source || !config)
    throw new UsageError(`no settings file of ${workspace} names the MCP server "${name}"`);
  if (!isHttpServer(config))
    throw new UsageError(`the MCP server "${name}" runs locally (stdio): only remote servers log in`);
  // The URL as a run would use it (`${VAR}` expanded the same way): the key of its login.
  const expanded = expandServerConfig(config, {
    env: process.env,
    forbidden: source.scope === 'workspace' ? isWithheldVariable : undefined,
  });
  if (!expanded.ok) throw new UsageError(`the MCP server "${name}" of ${source.file}: ${expanded.reason}`);
  const server = expanded.config as McpHttpServer;
  const store = createOAuthStore();
  if (sub === 'logout') {
    const had = await store.remove(server.url);
    process.stderr.write(
      inertText(
        had
          ? `skate: logged out of the MCP server "${name}" (${server.url}); its tokens are forgotten\n`
          : `skate: no login is kept for the MCP server "${name}" (${server.url})\n`,
      ),
    );
    return 0;
  }
  if (source.scope === 'workspace' && !(await createConsentStore().has(mcpConsentSubject(source, name))))
    throw new UsageError(
      `the MCP server "${name}" comes from ${source.file}: consent to it first (skate mcp trust ${name})`,
    );
  const timeoutMs = values.timeout
    ? positiveInt('--timeout', values.timeout) * 1000
    : DEFAULT_LOGIN_TIMEOUT_MS;
  process.stderr.write(inertText(`skate: logging in to the MCP server "${name}" (${server.url})\n`));
  try {
    const entry = await loginMcpServer({
      name,
      url: server.url,
      store,
      timeoutMs,
      onAuthorizationUrl: (url) => {
        // The server chose this URL: printed inert, opened only in a browser, never through a shell.
        process.stderr.write(
          `skate: open this URL in a browser to authorize Skate:\n\n  ${inertText(url.href)}\n\nskate: waiting for the browser (up to ${timeoutMs / 1000} s)…\n`,
        );
        if (!values['no-browser']) openBrowser(url.href);
      },
    });
    const expiry = entry.expiresAt ? `, expires ${new Date(entry.expiresAt).toISOString()}` : '';
    const refresh = entry.tokens?.refresh_token ? ', refreshed when it does' : '';
    process.stderr.write(inertText(`skate: the MCP server "${name}" is authenticated${expiry}${refresh}\n`));
    return 0;
  } catch (error) {
    const failure = McpAuthError.fromUnknown(error);
    process.stderr.write(inertText(`skate: login to the MCP server "${name}" failed: ${failure.message}\n`));
    return 1;
  }
};
