import { realpath } from 'node:fs/promises';
import type { ExecutorSettings } from '../runtime/agent-settings.js';
import { readPolicyFor } from '../runtime/start-executor.js';
import { McpPool } from './mcp-pool.js';
import type { McpServerEntry } from './setup-mcp.js';

export interface ClientMcpPoolOptions {
  /** The servers a client (an ACP editor) sent for one session. */
  servers: readonly McpServerEntry[];
  /** The run's own pool (its settings' servers), offered alongside; a name it has is kept. */
  base: McpPool | undefined;
  workspace: string;
  /** The session's executor: each server's policy is narrowed from its policy. */
  executor: ExecutorSettings;
  note(line: string): void;
}

/**
 * One session's MCP servers: the client's, each in an executor of its own as a user's server is
 * (no consent asked: the client is the user's own editor), plus the run's. Held by the session's
 * agents; the client's servers stop when the last of them closes.
 */
export async function clientMcpPool(options: ClientMcpPoolOptions): Promise<McpPool> {
  const workspace = await realpath(options.workspace);
  let policy: ReturnType<typeof readPolicyFor> | undefined;
  return McpPool.create({
    servers: options.servers,
    base: options.base,
    workspace,
    sandbox: options.executor.kind === 'local' ? options.executor.sandbox : 'required',
    agentPolicy: () => {
      policy ??= readPolicyFor(options.executor, workspace);
      return policy;
    },
    note: options.note,
    // The budget of your settings (`mcp.toolSchemaBudget`), which the run's pool carries.
    ...(options.base && { toolSchemaBudget: options.base.toolSchemaBudget }),
  });
}
