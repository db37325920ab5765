import { type AgentRunFlags, type OutputFormat, runAgent } from '../run-agent.js';

export type { OutputFormat };

export type AgentCommandOptions = AgentRunFlags;

/**
 * `skate -p "task"`: one agent run, headless, with spawn_agent unless
 * `--no-subagents`. Without ANTHROPIC_API_KEY it runs the first-run demo.
 */
export function agentCommand(options: AgentCommandOptions): Promise<number> {
  return runAgent({ ...options, demo: true });
}
