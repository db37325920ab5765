import { planFilePath } from '../planning/plan-file.js';
import { readPlan } from '../planning/read-plan.js';
import { AgentRuntimeError } from './agent-runtime-error.js';
import type { AgentSettings, SessionSettings } from './agent-settings.js';
import type { HarnessToolsInput } from './harness-tools.js';
import type { SessionConversation } from './session-conversation.js';
import { readPolicyFor } from './start-executor.js';

type StartAgent = HarnessToolsInput['startChild'];
type LinkedAgent = Awaited<ReturnType<StartAgent>>;

/** What starting an agent from another needs of it. */
export interface LinkedAgentsHost {
  settings: AgentSettings;
  workspace: string;
  session: SessionConversation;
  /** The model switched to (`setModel`), which an agent started from this one keeps. */
  model(): string;
  /** Throws when the agent was closed or a run is in progress. */
  assertIdle(): void;
  /** `createAgentSession`, passed in so this module does not import the session. */
  start: StartAgent;
}

/**
 * The agents started from an agent, each on its own executor with its settings (approval and
 * model as they are now): a fork of its session, and a planning or execute agent whose session
 * is linked in its log. Apart from `AgentSession`, which only hands the new agent to its caller.
 */
export class LinkedAgents {
  constructor(private readonly host: LinkedAgentsHost) {}

  /** See `AgentSession.fork`. */
  async fork(atEventId: string): Promise<LinkedAgent> {
    const { host } = this;
    host.assertIdle();
    const { sessionId: id, writer } = host.session.log;
    if (!id || !writer) throw new AgentRuntimeError('settings', 'there is no session log to fork');
    await writer.flush();
    return host.start({
      ...host.settings,
      model: this.modelSettings(),
      session: { kind: 'resume', id, forkAt: atEventId },
    });
  }

  /** See `AgentSession.startPlanning`. */
  async plan(task?: string): Promise<LinkedAgent> {
    const planner = await this.startLinked({ kind: 'plan' }, task ?? 'planning');
    if (task) void planner.prompt(task).catch(() => undefined);
    return planner;
  }

  /** See `AgentSession.execute`. */
  async execute(plan?: string): Promise<LinkedAgent> {
    const { settings, workspace } = this.host;
    const planFile = planFilePath(workspace);
    let text = plan;
    if (text === undefined) {
      // Read as the agent that will carry it out may read (a plan.md planted as a link is refused).
      const read = await readPlan(planFile, {
        policy: await readPolicyFor(settings.executor, workspace),
        within: workspace,
      });
      if (!read.ok) throw new AgentRuntimeError('plan', read.message);
      text = read.plan;
    }
    return this.startLinked({ kind: 'execute', plan: text, planFile }, 'execute the plan');
  }

  private modelSettings(): AgentSettings['model'] {
    return { ...this.host.settings.model, name: this.host.model() };
  }

  private async startLinked(
    activity: NonNullable<AgentSettings['activity']>,
    task: string,
  ): Promise<LinkedAgent> {
    const { host } = this;
    host.assertIdle();
    const session: SessionSettings =
      host.settings.session.kind === 'none' ? { kind: 'none' } : { kind: 'new' };
    const next = await host.start({ ...host.settings, model: this.modelSettings(), activity, session });
    // The link lands in this session's log, as a sub-agent's does: its totals count the new agent's.
    if (next.sessionId) {
      host.session.log.writer?.append({
        type: 'subagent_link',
        childSessionId: next.sessionId,
        callId: activity.kind,
        task,
      });
    }
    return next;
  }
}
