import {
  type ClientContext,
  type CreateElicitationRequest,
  type CreateElicitationResponse,
  client,
  methods,
  PROTOCOL_VERSION,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from '@agentclientprotocol/sdk';
import { expect } from 'vitest';
import { createAcpAgent } from '../../../harness/acp/acp-agent.js';
import type { AcpAgentFactory, AcpAgentHandle, AcpMode } from '../../../harness/acp/acp-agent-port.js';
import type { AcpCommand } from '../../../harness/acp/prompt-command.js';
import type { PromptOutcome } from '../../../harness/acp/stop-reason.js';
import { createCommandInbox } from '../../../harness/engine/command-inbox.js';
import type { CommandInbox } from '../../../harness/engine/engine-types.js';
import type { Message } from '../../../shared/conversation.js';
import type { EngineEvent } from '../../../shared/engine-events.js';
import type { NetworkPolicy } from '../../../shared/policy.js';

/** What a scripted prompt can do: emit events and wait for the answers, as the engine would. */
export interface Run {
  emit(event: EngineEvent): void;
  inbox: CommandInbox;
  signal: AbortSignal;
  text: string;
}

export type ScriptedAgent = AcpAgentHandle & {
  modes: AcpMode[];
  closed: boolean;
  /** The runtime commands applied, in order. */
  commands: AcpCommand[];
  /** Prompts that reached the model, in order. */
  prompts: string[];
};

export interface ScriptedOptions {
  history?: Message[];
  id?: string;
  workspace?: string;
  model?: string;
  /** The tools' network at the start (default off). */
  network?: NetworkPolicy;
  /** What `fork` returns. */
  forked?: () => AcpAgentHandle;
  /** What a command does besides being recorded (a compaction that waits, say). */
  onCommand?: (command: AcpCommand, signal: AbortSignal) => Promise<string | undefined>;
}

/**
 * An agent whose prompts are scripts: the protocol layer is what is under test
 * here (the real runtime runs under the e2e tests that spawn `skate acp`).
 */
export function scriptedAgent(
  script: (run: Run) => Promise<PromptOutcome>,
  options: ScriptedOptions = {},
): ScriptedAgent {
  const listeners = new Set<(event: EngineEvent) => void>();
  const networkListeners = new Set<() => void>();
  const { inbox, send } = createCommandInbox();
  let controller = new AbortController();
  const handle: ScriptedAgent = {
    sessionId: options.id ?? 'session-1',
    workspace: options.workspace ?? process.cwd(),
    mode: 'execute' as AcpMode,
    model: options.model ?? 'claude-test',
    network: options.network ?? { mode: 'off' },
    async setNetwork(setting) {
      const network: NetworkPolicy =
        typeof setting === 'string'
          ? { mode: setting }
          : { mode: 'allowlist', allow: setting.allow, deny: setting.deny ?? [] };
      (handle as { network: NetworkPolicy }).network = network;
      for (const listener of networkListeners) listener();
      return network;
    },
    onNetworkChange(listener: () => void) {
      networkListeners.add(listener);
      return () => networkListeners.delete(listener);
    },
    modes: [] as AcpMode[],
    commands: [],
    prompts: [],
    closed: false,
    history: () => options.history ?? [],
    subscribe(listener: (event: EngineEvent) => void) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    async prompt(prompt: { text: string }) {
      controller = new AbortController();
      handle.prompts.push(prompt.text);
      const emit = (event: EngineEvent): void => {
        for (const listener of listeners) listener(event);
      };
      return script({ emit, inbox, signal: controller.signal, text: prompt.text });
    },
    interrupt: () => controller.abort(),
    answer: (command: Parameters<AcpAgentHandle['answer']>[0]) => void send(command),
    asksApproval: (name: string) => name === 'shell',
    async apply(command: AcpCommand) {
      controller = new AbortController();
      handle.commands.push(command);
      if (command.type === 'set_model') (handle as { model: string }).model = command.model;
      return options.onCommand?.(command, controller.signal) ?? `did ${command.type}`;
    },
    async fork() {
      if (!options.forked) throw Object.assign(new Error('nothing to fork'), { code: 'session' });
      return options.forked();
    },
    async setMode(mode: AcpMode) {
      (handle as { mode: AcpMode }).mode = mode;
      handle.modes.push(mode);
      return undefined;
    },
    planFile: () => undefined,
    async close() {
      handle.closed = true;
    },
  };
  return handle;
}

const live: { close(): Promise<void> }[] = [];

/** Closes the ACP agents the tests started (an afterEach). */
export async function closeLive(): Promise<void> {
  await Promise.all(live.splice(0).map((agent) => agent.close()));
}

export interface Editor {
  /** Every `session/update` but the command lists. */
  updates: SessionNotification[];
  /** The `available_commands_update`s. */
  commands: SessionNotification[];
  permissions: RequestPermissionRequest[];
  /** What the agent factory was asked to open, in order. */
  opened: Parameters<AcpAgentFactory['open']>[0][];
}

export interface EditorOptions {
  form?: (request: CreateElicitationRequest) => CreateElicitationResponse;
  defaultCwd?: string;
}

/** Runs `op` as an editor would, connected in-process to a Skate ACP agent whose sessions are `agents`. */
export async function asEditor<T>(
  agents: (AcpAgentHandle | Error)[],
  choose: (request: RequestPermissionRequest) => RequestPermissionResponse,
  op: (ctx: ClientContext, editor: Editor) => Promise<T>,
  options: EditorOptions = {},
): Promise<T> {
  const queue = [...agents];
  const editor: Editor = { updates: [], commands: [], permissions: [], opened: [] };
  const acp = createAcpAgent({
    agents: {
      open: async (request) => {
        editor.opened.push(request);
        const next = queue.shift();
        if (!next) throw new Error('no more scripted agents');
        if (next instanceof Error) throw next;
        return next;
      },
    },
    version: 'test',
    log: () => {},
    ...(options.defaultCwd && { defaultCwd: options.defaultCwd }),
  });
  live.push(acp);
  const { form } = options;
  let app = client({ name: 'test-editor' });
  if (form) app = app.onRequest(methods.client.elicitation.create, ({ params }) => form(params));
  return app
    .onNotification(methods.client.session.update, ({ params }) => {
      if (params.update.sessionUpdate === 'available_commands_update') editor.commands.push(params);
      else editor.updates.push(params);
    })
    .onRequest(methods.client.session.requestPermission, ({ params }) => {
      editor.permissions.push(params);
      return choose(params);
    })
    .connectWith(acp.app, async (ctx) => {
      const init = await ctx.request(methods.agent.initialize, {
        protocolVersion: PROTOCOL_VERSION,
        clientCapabilities: form ? { elicitation: { form: {} } } : {},
      });
      expect(init.agentCapabilities?.loadSession).toBe(true);
      return op(ctx, editor);
    });
}

export const select = (optionId: string) => (): RequestPermissionResponse => ({
  outcome: { outcome: 'selected', optionId },
});
