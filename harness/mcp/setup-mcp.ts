import { isHttpServer, type McpServerConfig } from '../../shared/mcp-servers.js';
import type { ConsentStore } from '../consent/consent-store.js';
import { isWithheldVariable } from '../sandbox/executor-env.js';
import type { McpSource } from '../settings/load-settings.js';
import { expandServerConfig } from './expand-server-config.js';

/** A server the run may use: where it was named (a settings file, or an ACP client's session), and what it is. */
export interface McpServerEntry {
  name: string;
  config: McpServerConfig;
  scope: McpSource['scope'] | 'client';
  file: string;
}

/** A server left out, and why (for `skate mcp list` and the run's notes). */
export interface McpServerLeftOut {
  name: string;
  scope: McpSource['scope'];
  file: string;
  reason: 'no-consent' | 'shadowed' | 'expansion';
}

export interface SetupMcpOptions {
  sources: readonly McpSource[];
  consent: ConsentStore;
  /** `--trust-workspace-mcp`, or the user's `mcp.workspaceServersHeadless` where nobody can answer. */
  trustWorkspace: boolean;
  /** Asks the person at hand (a terminal); undefined where nobody can answer (headless). */
  ask?: ((question: string) => Promise<boolean>) | undefined;
  note(line: string): void;
  /** Where `${VAR}` in a server's configuration is read from (default: the harness's environment). */
  env?: NodeJS.ProcessEnv | undefined;
}

export interface McpSetup {
  servers: McpServerEntry[];
  leftOut: McpServerLeftOut[];
}

/**
 * The servers a run may use: the user's, and a workspace file's only with consent to that server
 * in that version of the file (given before, given now at a terminal, or trusted by a flag or the
 * user's setting). A name already taken (the user's come first) is not redefined by a later file.
 */
export async function setupMcp(options: SetupMcpOptions): Promise<McpSetup> {
  const servers: McpServerEntry[] = [];
  const leftOut: McpServerLeftOut[] = [];
  for (const source of options.sources) {
    for (const [name, config] of Object.entries(source.servers)) {
      const entry = { name, config, scope: source.scope, file: source.file };
      if (servers.some((taken) => taken.name === name)) {
        leftOut.push({ name, scope: source.scope, file: source.file, reason: 'shadowed' });
        options.note(
          `MCP server "${name}" of ${source.file} is not used: ${name} is already defined before it`,
        );
        continue;
      }
      if (source.scope === 'workspace' && !(await consented(source, entry, options))) {
        leftOut.push({ name, scope: source.scope, file: source.file, reason: 'no-consent' });
        continue;
      }
      // A workspace's file names what runs and where it connects: it must not be able to read a credential into it.
      const expanded = expandServerConfig(config, {
        env: options.env ?? process.env,
        forbidden: source.scope === 'workspace' ? isWithheldVariable : undefined,
      });
      if (!expanded.ok) {
        leftOut.push({ name, scope: source.scope, file: source.file, reason: 'expansion' });
        options.note(`MCP server "${name}" of ${source.file} is not used: ${expanded.reason}`);
        continue;
      }
      servers.push({ ...entry, config: expanded.config });
    }
  }
  return { servers, leftOut };
}

/** What consent to one server of one file version is recorded under. */
export function mcpConsentSubject(source: Pick<McpSource, 'file' | 'sha256'>, name: string) {
  return { kind: 'mcp-servers' as const, file: `${source.file}#${name}`, sha256: source.sha256 };
}

/** How a server is described to the person asked about it: what would run, under what. */
export function describeServer(config: McpServerConfig): string {
  if (isHttpServer(config)) return `${config.type} ${config.url}`;
  const argv = [config.command, ...(config.args ?? [])].map((part) => JSON.stringify(part)).join(' ');
  const write = config.policy?.write?.length ? `writes ${config.policy.write.join(', ')}` : 'writes nothing';
  const network = config.policy?.network;
  const net =
    !network || network === 'off'
      ? 'no network'
      : network === 'on'
        ? 'network on'
        : `network ${network.allow.join(', ')}`;
  return `${argv} (sandboxed: ${write}, ${net})`;
}

async function consented(
  source: McpSource,
  entry: McpServerEntry,
  options: SetupMcpOptions,
): Promise<boolean> {
  const subject = mcpConsentSubject(source, entry.name);
  if (await options.consent.has(subject)) return true;
  if (options.trustWorkspace) return true;
  if (options.ask) {
    const yes = await options.ask(
      `${source.file} names the MCP server "${entry.name}": ${describeServer(entry.config)}\nRun it when the model calls its tools, now and until the file changes? [y/N] `,
    );
    if (yes) {
      await options.consent.grant(subject);
      return true;
    }
    options.note(`the MCP server "${entry.name}" of ${source.file} will not run: you did not consent`);
    return false;
  }
  options.note(
    `the MCP server "${entry.name}" of ${source.file} is not used: a workspace's servers need your consent to this version of the file (skate mcp trust, an answer at a terminal, or --trust-workspace-mcp)`,
  );
  return false;
}
