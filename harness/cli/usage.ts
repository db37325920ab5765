/** The whole CLI's usage text, printed by `--help` (a usage error is one line). */
export const USAGE = `usage:
  skate [--continue | --resume ID] [agent options] ["task"]   on a terminal: the interactive UI, starting on the task (:help inside)
  skate -p "task" [--output-format text|json|stream-json] [--model M] [--max-turns N] [--max-tokens N]
        [--thinking-budget N] [--approval auto|ask|deny-writes] [--system-prompt S] [--append-system-prompt S]
        [--policy P] [--network on|off|HOSTS] [--add-dir DIR]... [--workspace DIR] [--executor ws://HOST:PORT]
        [--sandbox required|best-effort] [--verbose]
        [--answers FILE] [--no-subagents] [--continue | --resume ID [--fork-at EVENT_ID]] [--no-session]
        [--output-schema FILE] [--input-format text|stream-json] [--allowedTools R...] [--disallowedTools R...]
        [--no-hooks] [--trust-workspace-hooks] [--trust-workspace-agents] [--trust-workspace-mcp]
        [--record FILE]
        (the task may also come on stdin)
  skate plan "task" [agent options]      plan under the plan policy: read-only but .skate/plan.md
  skate plan --edit [--workspace DIR]    open the plan in $EDITOR
  skate execute [--plan FILE] ["extra instructions"] [agent options]   carry out the plan in a fresh agent
  skate tools [--policy P] [--workspace DIR] [--executor ws://HOST:PORT] [--json]
  skate tool NAME --input JSON|- [--policy P] [--workspace DIR] [--executor ws://HOST:PORT] [--stream]
  skate executor serve --listen HOST:PORT [--policy P] [--workspace DIR] [--token-file FILE] [--max-executors N]
        [--max-connections N] [--max-connections-per-address N] [--header-timeout SECONDS] [--allow-host NAME]...
  skate sessions list [--workspace DIR] [--json]
  skate sessions show ID [--workspace DIR] [--json]
  skate policy show [P] [--workspace DIR] [--json]
  skate sandbox [--policy P] [--workspace DIR] [--sandbox best-effort] -- CMD [ARGS...]
  skate hooks list [--workspace DIR] [--json]       the hooks configured, from where, and whether they run
  skate hooks trust|revoke [--workspace DIR]        consent to the workspace's hooks as they are now, or take it back
  skate replay FILE [--execute-tools] [flags]       a --record run again with no model (tools run again, compared)
  skate mcp list [--workspace DIR] [--json]         the MCP servers configured, from where, their state and consent
  skate mcp trust|revoke NAME [--workspace DIR]     consent to a workspace's MCP server as its file is now, or take it back
  skate mcp login NAME [--no-browser] [--timeout S] authorize Skate with a remote MCP server (OAuth); logout NAME forgets it
  skate agents list [--workspace DIR] [--json]      the agent definitions, from where, what each asks, and consent
  skate agents trust|revoke NAME [--workspace DIR]  consent to a workspace's agent definition as its file is now, or take it back
  skate acp [--policy P] [--approval ask|auto|deny-writes] [--model M] [agent options]
                                         an ACP agent on stdin/stdout, for editors (Zed, JetBrains…)
  skate serve --listen HOST:PORT [--policy P] [--workspace DIR] [--approval ask|auto|deny-writes] [--token-file FILE]
        [--max-sessions N] [--max-runs N] [--max-body-bytes N] [--idle-timeout SECONDS] [--replay-buffer N]
        [--approval-timeout SECONDS] [--cors ORIGIN]... [--max-connections N] [--max-connections-per-address N]
        [--header-timeout SECONDS] [--request-timeout SECONDS] [--allow-host NAME]...
                                         an HTTP API with SSE (token in SKATE_SERVE_TOKEN, or printed once)
  skate --version

options:
  -p, --print       run headless: the task is the argument (skate -p "task", skate -c -p "task") or stdin
  --policy P        a built-in policy (execute, readonly, plan, full), one in ~/.skate/policies, or a file; default execute
  --network on|off|HOSTS
                    the policy's network for this run only: on, off, or only HOSTS (comma-separated:
                    api.example.com,*.github.com,localhost:5432; !host denies) through Skate's proxy
  --add-dir DIR     another writable root for this run, protected like the workspace (repeatable)
  --max-tokens N    output tokens per model reply (default 16000); --thinking-budget N turns on extended thinking
  --workspace DIR   the directory the agent works in; default the current directory
  --executor URL    use a remote executor (token in SKATE_EXECUTOR_TOKEN) instead of starting one
  --sandbox MODE    required (default): refuse to run a restricted policy without the kernel sandbox;
                    best-effort: run anyway, with only the tools' own checks
  --verbose         show the executor's own log, sandbox notes, settings files and AGENTS.md files on stderr
  --answers FILE    ask_user answers for a headless run: a JSON array of answer arrays, used in order
  --output-schema FILE  the answer must match this JSON Schema (one repair turn); the result's structured_output
  --input-format stream-json  prompts as JSON lines on stdin ({"type":"user","message":{…}}), one result line each
  --allowedTools R  only these calls run: NAME or NAME(pattern), e.g. shell(git *) read_file; --disallowedTools R refuses them
  --no-subagents    do not offer spawn_agent (sub-agents on their own narrowed executors)
  --continue, -c    continue the workspace's latest session; --resume ID continues that one;
                    --fork-at EVENT_ID branches from an earlier event into a new session
  --no-session      record nothing in .skate/sessions
  --no-hooks        run no hooks (as "disableAllHooks": true in a settings file)
  --trust-workspace-hooks  run the workspace's hooks this once without a recorded consent
  --record FILE     write each model response and tool result to FILE, for skate replay
  --trust-workspace-agents offer the workspace's agent files that write or use the network, this once
  --trust-workspace-mcp    use the workspace's MCP servers (.mcp.json, its settings) this once without a recorded consent
  settings: ~/.skate/settings.json, then <workspace>/.skate/settings.json; flags win (README, "Settings")
`;

/** Prints the usage text; exit status 0. */
export function help(): number {
  process.stdout.write(USAGE);
  return 0;
}
