import type { ExecutorBoot, ExecutorHealth } from '../shared/executor-boot.js';
import {
  createExecutorRouter,
  type ExecutorProcedures,
  type ExecutorRouter,
  type ServedProcedure,
  servedExecutorProcedures,
} from '../shared/executor-router.js';
import { MCP_TOOLS_CHANGED_STREAM } from '../shared/mcp-tools-changed.js';
import type { AnyTool } from './define-tool.js';
import { findRipgrep } from './fs/ripgrep.js';
import type { McpChild } from './mcp/mcp-child.js';
import { OutputHub } from './output-hub.js';
import { PathGuard } from './path-guard.js';
import { type LazyTool, ToolRegistry } from './tool-registry.js';
import { ToolRunner } from './tool-runner.js';
import { toolsFor } from './tools/index.js';

export interface Executor {
  /** For in-process callers (tRPC's `createCaller`). */
  readonly router: ExecutorRouter;
  /** What `RpcServer` serves: the router's procedures, called directly. */
  readonly procedures: Readonly<Record<string, ServedProcedure>>;
  readonly runner: ToolRunner;
  readonly registry: ToolRegistry;
  /**
   * Makes the first call of the tools an agent calls early as cheap as later ones: the shell
   * module and a first spawn. Only shell, as loading every tool costs memory (+2.6 MiB) for little.
   * A tool already called is skipped: its first call paid for it.
   */
  warmUp(): Promise<void>;
  /**
   * Runs `warmUp` once, when the executor has been idle (no call made or running) for
   * `WARM_AFTER_IDLE_MS`: called once `listTools` is answered, while the model thinks.
   */
  warmUpWhenIdle(): void;
}

/** The tools `warmUp` prepares. */
const WARM_TOOLS = ['shell'];

/**
 * How long an executor waits, idle, before warming up. A model's first tool call comes hundreds of
 * ms after the tools are listed, so waiting costs it nothing; but sub-agents started together are
 * all booting in those ms, and a sub-agent done at once (or shut down) never needs the warm-up,
 * whose ~45 ms of CPU per executor would only compete with its siblings' starts.
 */
export const WARM_AFTER_IDLE_MS = 150;

/** Largest tool input accepted, as JSON; a whole-file write of a large source file fits. */
const MAX_INPUT_BYTES = 8 * 1024 * 1024;

/** What tests choose instead of the boot's defaults. */
export interface ExecutorOverrides {
  /** The tools to register instead of the policy's. */
  tools?: readonly (AnyTool | LazyTool)[];
  /** The ripgrep binary grep and glob use; undefined searches in JavaScript. */
  ripgrep?: string | undefined;
}

/**
 * One executor's world: its registry, runner and router, built from its boot
 * configuration. Nothing here is module-level, so several executors with
 * different policies can live in one process (tests do this, and pass the
 * tools to register instead of the policy's).
 */
export function createExecutor(
  boot: ExecutorBoot,
  onShutdown: () => void,
  overrides: ExecutorOverrides = {},
): Executor {
  const startedAt = performance.now();
  // An MCP server's executor offers that server's tools, registered once it has listed them.
  const mcp = boot.mcpServer;
  const registry = new ToolRegistry(
    overrides.tools ?? (mcp ? [] : toolsFor(boot.policy, boot.diagnosticTools)),
  );
  // An explicit `ripgrep: undefined` means "search in JavaScript", so test for the key, not the value.
  const ripgrep = 'ripgrep' in overrides ? overrides.ripgrep : findRipgrep();
  const outputs = new OutputHub();
  const runner = new ToolRunner({
    registry,
    policy: boot.policy,
    paths: new PathGuard(boot.policy),
    outputs,
    maxInputBytes: Math.min(MAX_INPUT_BYTES, boot.maxFrameBytes),
    commandWrapper: boot.commandWrapper,
    ripgrep,
  });
  /** When a call last started or ended: the warm-up waits for a quiet spell after it. */
  let lastActivity = performance.now();
  const called = new Set<string>();
  const mcpReady = mcp ? mcpRegistration(mcp, boot, registry, outputs) : undefined;
  const impl: ExecutorProcedures = {
    listTools: () =>
      mcpReady ? mcpReady.registered().then(() => registry.definitions()) : registry.definitions(),
    callTool: async (request, signal) => {
      lastActivity = performance.now();
      called.add(request.name);
      if (mcpReady) {
        // A call may come before any listing (the harness remembered the tools): start the server first.
        const failed = await mcpReady.registered().then(
          () => undefined,
          (error: Error) => ({ output: error.message, isError: true, code: 'unavailable' as const }),
        );
        if (failed) return failed;
      }
      return runner.call(request, signal).finally(() => (lastActivity = performance.now()));
    },
    toolOutput: (callId, signal) => outputs.subscribe(callId, signal),
    health: (): ExecutorHealth => ({
      pid: process.pid,
      policy: boot.policy.name,
      network: boot.policy.network,
      enforcement: boot.enforcement,
      resourceLimits: boot.resourceLimits,
      commandIsolation: boot.commandWrapper.length > 0,
      search: ripgrep ? 'ripgrep' : 'javascript',
      workspace: boot.policy.workspace,
      uptimeMs: Math.round(performance.now() - startedAt),
      toolCount: registry.size,
      runningCalls: runner.runningCount,
      nodeVersion: process.version,
    }),
    shutdown: () => {
      runner.cancelAll('executor shutting down');
      void mcpReady?.close();
      setImmediate(onShutdown);
      return { ok: true };
    },
  };
  const warmUp = async (): Promise<void> => {
    const names = registry.names();
    const cold = WARM_TOOLS.filter((name) => names.includes(name) && !called.has(name));
    await Promise.all(cold.map((name) => runner.warm(name)));
  };
  let warmScheduled = false;
  const warmWhenQuiet = (): void => {
    const quietFor = performance.now() - lastActivity;
    if (runner.runningCount === 0 && quietFor >= WARM_AFTER_IDLE_MS) {
      void warmUp();
      return;
    }
    const wait = runner.runningCount > 0 ? WARM_AFTER_IDLE_MS : WARM_AFTER_IDLE_MS - quietFor;
    // Unref'd: a pending warm-up never keeps a stopping executor alive (and a stopped runner skips it).
    setTimeout(warmWhenQuiet, Math.max(1, wait)).unref();
  };
  const warmUpWhenIdle = (): void => {
    if (warmScheduled) return;
    warmScheduled = true;
    setTimeout(warmWhenQuiet, WARM_AFTER_IDLE_MS).unref();
  };
  let router: ExecutorRouter | undefined;
  return {
    // Made on first use: an executor process serves `procedures` and never needs it.
    get router() {
      router ??= createExecutorRouter(impl);
      return router;
    },
    procedures: servedExecutorProcedures(impl),
    runner,
    registry,
    warmUp,
    warmUpWhenIdle,
  };
}

/**
 * Starts the MCP server (once, and again after a failed start) and registers its tools; `close`
 * stops it. The registry is filled once, then replaced only when the running server announces
 * that its list changed (said on `MCP_TOOLS_CHANGED_STREAM`, so the harness lists them again).
 */
function mcpRegistration(
  server: NonNullable<ExecutorBoot['mcpServer']>,
  boot: ExecutorBoot,
  registry: ToolRegistry,
  outputs: OutputHub,
): { registered(): Promise<void>; close(): Promise<void> } {
  let child: Promise<McpChild> | undefined;
  let registered: Promise<void> | undefined;
  const childOf = (): Promise<McpChild> => {
    child ??= import('./mcp/mcp-child.js').then(({ createMcpChild }) =>
      createMcpChild(server, {
        wrapper: boot.commandWrapper,
        cwd: boot.policy.workspace,
        // Only inside the kernel sandbox is the proxy's socket bound in (and the only way out).
        viaProxy: boot.enforcement === 'kernel' && boot.policy.network.mode === 'allowlist',
      }),
    );
    return child;
  };
  return {
    registered() {
      registered ??= (async () => {
        const mcp = await childOf();
        const listed = await mcp.tools();
        const { mcpResourceTools, mcpTools } = await import('./mcp/mcp-tools.js');
        const timeoutMs = boot.policy.limits.commandTimeoutSeconds * 1000;
        // Resources and prompts first: their reserved names win over a server's tool named alike.
        const resources = (await mcp.hasResources()) ? mcpResourceTools(mcp, timeoutMs) : [];
        /** The server's own tools as registered: what a `tools/list_changed` replaces (reserved ones stay). */
        const serverTools = new Set<string>();
        const registerAll = (tools: LazyTool[], track?: Set<string>): void => {
          for (const tool of tools) {
            if (registry.names().includes(tool.definition.name)) continue;
            registry.register(tool);
            track?.add(tool.definition.name);
          }
        };
        const { mcpPromptTools } = await import('./mcp/mcp-prompt-tools.js');
        const prompts = mcpPromptTools(mcp, await mcp.prompts(), timeoutMs, boot.policy.limits.outputBytes);
        registerAll([...resources, ...prompts]);
        registerAll(mcpTools(mcp, listed, timeoutMs), serverTools);
        const announce = outputs.open(MCP_TOOLS_CHANGED_STREAM);
        mcp.onToolsChanged((tools) => {
          for (const name of serverTools) registry.unregister(name);
          serverTools.clear();
          registerAll(mcpTools(mcp, tools, timeoutMs), serverTools);
          announce('progress', `${tools.length} tools`);
        });
      })().catch((error: unknown) => {
        registered = undefined;
        throw error;
      });
      return registered;
    },
    async close() {
      await (await child)?.close();
    },
  };
}
