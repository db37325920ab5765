import * as z from 'zod';
import { McpBootServer } from './mcp-servers.js';
import { EnforcementLevel, NetworkPolicy, ResolvedPolicy } from './policy.js';

/** How memory and process limits are enforced around an executor. */
export const ResourceLimits = z.enum(['cgroup-v1', 'cgroup-v2', 'none']);
export type ResourceLimits = z.infer<typeof ResourceLimits>;

/**
 * The first line the harness writes to a new executor. Configuration travels
 * over the private channel rather than argv or the environment, which other
 * processes can read.
 */
export const ExecutorBoot = z.object({
  type: z.literal('boot'),
  protocol: z.literal(1),
  policy: ResolvedPolicy,
  enforcement: EnforcementLevel,
  resourceLimits: ResourceLimits.default('none'),
  /**
   * Argv prefix every command the executor starts runs under (skate-confine:
   * Landlock isolation from the executor, a subreaper that kills all the command
   * started). Empty where the helper is not available.
   */
  commandWrapper: z.array(z.string()).default([]),
  /** Registers the `noop` and `emit_lines` tools that tests and benchmarks use. */
  diagnosticTools: z.boolean().default(false),
  /** Largest frame accepted on the channel, in bytes. */
  maxFrameBytes: z.number().int().positive(),
  /**
   * Set for an MCP server's executor: it offers that server's tools (started as its child on the
   * first listing or call) instead of its own.
   */
  mcpServer: McpBootServer.optional(),
});
export type ExecutorBoot = z.infer<typeof ExecutorBoot>;

/** What `health` reports about a running executor. */
export const ExecutorHealth = z.object({
  pid: z.number().int(),
  policy: z.string(),
  /** The network the executor's policy allows (its sandbox has no network namespace of the host's when off). */
  network: NetworkPolicy,
  enforcement: EnforcementLevel,
  resourceLimits: ResourceLimits,
  commandIsolation: z.boolean(),
  /** What grep and glob search with: the `rg` binary found in the sandbox, or the JavaScript fallback. */
  search: z.enum(['ripgrep', 'javascript']),
  workspace: z.string(),
  uptimeMs: z.number(),
  toolCount: z.number().int(),
  runningCalls: z.number().int(),
  nodeVersion: z.string(),
});
export type ExecutorHealth = z.infer<typeof ExecutorHealth>;
