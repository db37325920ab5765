import type { McpServerRow } from '../mcp/mcp-pool.js';
import type { McpServerState } from '../mcp/mcp-server-handle.js';
import { DEFAULT_LOGIN_TIMEOUT_MS } from '../mcp-oauth/login-mcp-server.js';
import { openBrowser } from '../mcp-oauth/open-browser.js';
import { inertText } from '../terminal/inert-text.js';
import type { AgentBackend } from './agent-backend.js';
import type { Overlay } from './ui-state.js';

/** What `:mcp login|logout` needs of the controller: its agent, and ways to tell the person. */
export interface McpCommandHost {
  backend(): AgentBackend;
  /** A notice in the conversation (made inert where events enter the state). */
  notice(level: 'info' | 'warn' | 'error', text: string): void;
  flash(text: string): void;
  /** The servers' tools or prompts may have changed: completion offers them again. */
  changed(): void;
}

/** How one server stands, in a few words (the server's own text made inert). */
function stateText(state: McpServerState): string {
  switch (state.status) {
    case 'configured':
      return 'configured: starts at its first call, to list its tools';
    case 'known':
      return `${state.tools} tools known, not running (starts at its first call)`;
    case 'starting':
      return 'starting';
    case 'running':
      return `running, ${state.tools} tools`;
    case 'failed':
      return `failed at ${state.at}: ${inertText(state.reason)}`;
  }
}

/** `:mcp`: each server of the session, where it comes from, its state and a remote one's login. */
export async function mcpOverlay(backend: AgentBackend): Promise<Overlay> {
  const rows: McpServerRow[] = backend.mcpServers?.() ?? [];
  if (rows.length === 0)
    return {
      type: 'message',
      title: 'MCP servers (any key closes)',
      lines: ['no MCP servers in this session (skate mcp list shows what is configured, and why not)'],
    };
  const lines: string[] = [];
  for (const row of rows) {
    const login = await backend.mcpLoginStatus?.(row.name).catch(() => undefined);
    lines.push(`${inertText(row.name)}: ${stateText(row.state)}`.split('\n').join('\n    '));
    lines.push(
      `    ${row.scope} (${inertText(row.file)})${login ? ` · login: ${login}${login === 'authenticated' ? '' : ` (:mcp login ${inertText(row.name)})`}` : ''}`,
    );
  }
  return {
    type: 'message',
    title: 'MCP servers (any key closes)',
    lines: lines.flatMap((l) => l.split('\n')),
  };
}

/**
 * The logins waiting for a browser, one per server: `:mcp login` runs beside the conversation
 * (the person may go on meanwhile), and the UI closing ends every wait.
 */
export class McpLogins {
  private readonly waiting = new Map<string, AbortController>();

  constructor(private readonly host: McpCommandHost) {}

  /** `:mcp login NAME`: the URL shown (and opened unless `browser` is false), then the outcome, as notices. */
  async login(server: string, browser: boolean): Promise<void> {
    const { host } = this;
    const backend = host.backend();
    if (!backend.mcpLogin) return host.flash('this agent has no MCP servers');
    if (this.waiting.has(server))
      return host.flash(`a login to ${server} already waits for the browser (:mcp logout ${server} ends it)`);
    const controller = new AbortController();
    this.waiting.set(server, controller);
    host.flash(`logging in to the MCP server ${server}…`);
    try {
      const login = await backend.mcpLogin(server, {
        signal: controller.signal,
        onAuthorizationUrl: (url) => {
          // The server chose this URL (checked: https, or http on loopback); shown inert, opened as one argv element.
          const opened = browser && openBrowser(url.href);
          host.notice(
            'info',
            `MCP server "${server}": open this URL in a browser to authorize Skate${opened ? ' (opened in your browser)' : ''}; waiting up to ${DEFAULT_LOGIN_TIMEOUT_MS / 1000} s:\n${url.href}`,
          );
        },
      });
      const state = login.state;
      if (state?.status === 'failed') {
        host.notice('warn', `MCP server "${server}": logged in, but its start failed: ${state.reason}`);
      } else {
        const names = login.tools.slice(0, 5).join(', ');
        const more = login.tools.length > 5 ? ', …' : '';
        host.notice(
          'info',
          `MCP server "${server}" is authenticated and running again with ${login.tools.length} tools${names ? ` (${names}${more})` : ''}; the next request offers them`,
        );
      }
      host.changed();
    } catch (error) {
      host.notice('error', `login to the MCP server "${server}" failed: ${messageOf(error)}`);
    } finally {
      if (this.waiting.get(server) === controller) this.waiting.delete(server);
    }
  }

  /** `:mcp logout NAME`: a login waiting for the browser ends; a kept one is forgotten. */
  async logout(server: string): Promise<void> {
    const { host } = this;
    this.waiting.get(server)?.abort();
    const backend = host.backend();
    if (!backend.mcpLogout) return host.flash('this agent has no MCP servers');
    try {
      const had = await backend.mcpLogout(server);
      host.notice(
        'info',
        had
          ? `MCP server "${server}": logged out, its tokens are forgotten and its executor stopped`
          : `MCP server "${server}": no login was kept`,
      );
    } catch (error) {
      host.notice('error', `logout of the MCP server "${server}" failed: ${messageOf(error)}`);
    }
  }

  /** The UI closes: no login waits for a browser any more. */
  stop(): void {
    for (const controller of this.waiting.values()) controller.abort();
    this.waiting.clear();
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
