import * as z from 'zod';
import { NetworkSetting } from './policy.js';

/**
 * Commands that change an agent's state between runs, the same from every
 * frontend (terminal UI, ACP, HTTP): `AgentSession.apply` takes them. Answers
 * to a running engine's requests and interrupts stay `EngineCommand`s.
 */
export const RuntimeCommand = z.discriminatedUnion('type', [
  /** The model of the next turns; logged as a `model_change`. */
  z.object({ type: z.literal('set_model'), model: z.string().min(1) }),
  /** Summarise the older conversation now rather than when the context fills up. */
  z.object({ type: z.literal('compact') }),
  /** A new, empty conversation (and session log) on the same executor. */
  z.object({ type: z.literal('clear') }),
  /** Continue another session of the workspace (an id or a unique prefix). */
  z.object({ type: z.literal('resume'), sessionId: z.string().min(1) }),
  /** A new agent on a new session holding the conversation up to `atEventId`. */
  z.object({ type: z.literal('fork'), atEventId: z.string().min(1) }),
  /**
   * When to ask before tools that write or run commands, from the next tool
   * calls on (a run in progress included): `auto`, `ask`, or `deny-writes`.
   */
  z.object({ type: z.literal('set_approval'), approval: z.enum(['auto', 'ask', 'deny-writes']) }),
  /**
   * The network: `off`, `on` or `{allow, deny}`. Between on and off (or in or out of an
   * allowlist) the executor is replaced under the same policy; from one allowlist to another the
   * proxy's list changes at once and the executor stays. The conversation stays either way.
   */
  z.object({ type: z.literal('set_network'), network: NetworkSetting }),
  /**
   * Switches to a planning agent (under the `plan` policy), or to an agent
   * carrying out a plan (the plan file's text when `plan` is left out); each on
   * its own executor, its session linked to this one.
   */
  z.object({
    type: z.literal('set_activity'),
    activity: z.enum(['plan', 'execute']),
    /** With `plan`: the task to plan, sent as the first prompt. */
    task: z.string().min(1).optional(),
    /** With `execute`: the plan's text. */
    plan: z.string().min(1).optional(),
  }),
]);
export type RuntimeCommand = z.infer<typeof RuntimeCommand>;
