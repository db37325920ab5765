import { realpath } from 'node:fs/promises';
import type { NetworkSetting } from '../../shared/policy.js';
import { note } from '../cli/note.js';
import { createConsentStore } from '../consent/consent-store.js';
import { executorPolicy } from '../runtime/start-executor.js';
import type { SandboxMode } from '../sandbox/choose-launcher.js';
import type { Settings } from '../settings/load-settings.js';
import type { McpPool } from './mcp-pool.js';

export interface McpPoolForOptions {
  workspace: string;
  sandbox: SandboxMode;
  trustWorkspace: boolean;
  ask?: ((question: string) => Promise<boolean>) | undefined;
  /** The agent's policy as its flags and settings choose it: each server's is narrowed from it. */
  policy: { policy: string; network?: NetworkSetting | undefined; addDirs?: readonly string[] | undefined };
  /** Start servers whose tools are not remembered, to list them. Default true. */
  discover?: boolean;
}

/**
 * The run's MCP servers from its settings (consent asked or checked here), or undefined when none
 * are configured: a run without servers loads none of this.
 */
export async function mcpPoolFor(
  settings: Settings,
  options: McpPoolForOptions,
): Promise<McpPool | undefined> {
  if (settings.mcpSources.length === 0) return undefined;
  const [{ setupMcp }, { McpPool }] = await Promise.all([import('./setup-mcp.js'), import('./mcp-pool.js')]);
  const setup = await setupMcp({
    sources: settings.mcpSources,
    consent: createConsentStore(),
    trustWorkspace: options.trustWorkspace,
    ask: options.ask,
    note,
  });
  if (setup.servers.length === 0) return undefined;
  const workspace = await realpath(options.workspace);
  let agentPolicy: ReturnType<typeof executorPolicy> | undefined;
  return McpPool.create({
    servers: setup.servers,
    workspace,
    sandbox: options.sandbox,
    agentPolicy: () => {
      agentPolicy ??= executorPolicy(options.policy, workspace);
      return agentPolicy;
    },
    idleStopSeconds: settings.mcp?.idleStopSeconds,
    startTimeoutSeconds: settings.mcp?.startTimeoutSeconds,
    toolSchemaBudget: settings.mcp?.toolSchemaBudget,
    note,
    ...(options.discover === false && { discover: false }),
  });
}
