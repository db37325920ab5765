import type { Message } from '../../shared/conversation.js';
import type { EngineCommand, EngineEvent, ImageInput } from '../../shared/engine-events.js';
import type { NetworkPolicy, NetworkSetting } from '../../shared/policy.js';
import type { McpPromptCommand } from '../mcp/mcp-prompt-commands.js';
import type { McpServerEntry } from '../mcp/setup-mcp.js';
import type { AcpCommand } from './prompt-command.js';
import type { PromptOutcome } from './stop-reason.js';

/** ACP session modes: the agent investigates and writes only the plan, or carries out work. */
export type AcpMode = 'plan' | 'execute';

/**
 * One Skate agent as `skate acp` drives it: the agent runtime's session seen
 * through the calls ACP makes, so the protocol layer can be tested on its own.
 */
export interface AcpAgentHandle {
  /** The Skate session id the agent records into (the ACP session id is the first one). */
  readonly sessionId: string;
  readonly workspace: string;
  readonly mode: AcpMode;
  /** The model of the next turns. */
  readonly model: string;
  /** The network the tools have now (an allowlist changes as network questions are answered). */
  readonly network: NetworkPolicy;
  /**
   * Sets the tools' network, as `Space n` does: between allowlists the proxy's list changes at
   * once, otherwise the executor is restarted. Resolves to the network now enforced.
   */
  setNetwork(setting: NetworkSetting): Promise<NetworkPolicy>;
  /** The conversation so far, for `session/load`. */
  history(): readonly Message[];
  /** Every engine event of the agent and its sub-agents, in order; returns the unsubscribe. */
  subscribe(listener: (event: EngineEvent) => void): () => void;
  /**
   * Told after each change of `network` (a switch, or a network question's answer that changed
   * the list), whoever made it; returns the unsubscribe.
   */
  onNetworkChange(listener: () => void): () => void;
  /** One prompt, until the run ends. */
  prompt(prompt: { text: string; images: ImageInput[] }): Promise<PromptOutcome>;
  /** The MCP servers' prompts, offered as commands (`/mcp__server__prompt`); none where unsupported. */
  promptCommands?(): McpPromptCommand[];
  /** Interrupts the running prompt: the model stream and every tool call. */
  interrupt(): void;
  /** An answer to the engine's request (approval, ask_user, turn limit). */
  answer(command: Extract<EngineCommand, { requestId: string }>): void;
  /** Whether a call of this tool waits for an approval before it runs. */
  asksApproval(toolName: string): boolean;
  /**
   * Switches between planning (under the plan policy, on its own executor) and
   * executing (carrying the plan, when one was written); the conversation is
   * the new agent's. Resolves to a note for the user, when the switch did not
   * go as asked (no plan to carry out, say).
   */
  setMode(mode: AcpMode): Promise<string | undefined>;
  /**
   * A runtime command between prompts (`/compact`, `/clear`, the model),
   * through the runtime's typed commands; resolves to what to tell the user.
   * Interrupted like a prompt.
   */
  apply(command: AcpCommand): Promise<string | undefined>;
  /** A new agent, on its own executor, in a new session holding this conversation as it is now. */
  fork(): Promise<AcpAgentHandle>;
  /** The plan file, when the agent is planning. */
  planFile(): string | undefined;
  /** Stops the agent and its executors. */
  close(): Promise<void>;
}

/** Starts agents for ACP sessions. */
export interface AcpAgentFactory {
  open(request: {
    workspace: string;
    /**
     * A new session, an earlier Skate session of the workspace continued, or
     * a new session forked from one as it is stored.
     */
    session: { kind: 'new' } | { kind: 'resume'; id: string } | { kind: 'fork'; id: string };
    /** The MCP servers the client sent for this session, beside the run's own. */
    mcpServers?: readonly McpServerEntry[];
  }): Promise<AcpAgentHandle>;
}
