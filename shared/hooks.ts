import * as z from 'zod';

/**
 * Hooks in Claude Code's settings format (https://docs.claude.com/en/docs/claude-code/hooks), so
 * scripts written for it run unchanged: events → matchers → `[{ type: "command", command, timeout }]`.
 * Skate adds `fail` (what a hook that times out or crashes means) and `policy` (the sandbox the
 * command runs in). See README, "Hooks".
 */
export const HOOK_EVENTS = [
  'SessionStart',
  'UserPromptSubmit',
  'PreToolUse',
  'PermissionRequest',
  'PostToolUse',
  'Notification',
  'Stop',
  'SubagentStop',
  'PreCompact',
  'SessionEnd',
] as const;
export const HookEventName = z.enum(HOOK_EVENTS);
export type HookEventName = z.infer<typeof HookEventName>;

/** Events whose matcher is tried against a tool's name; the others ignore it (as Claude Code does). */
export const TOOL_EVENTS: ReadonlySet<HookEventName> = new Set([
  'PreToolUse',
  'PostToolUse',
  'PermissionRequest',
]);

export const HookCommand = z
  .object({
    type: z.literal('command'),
    command: z.string().min(1).describe('A shell command line, run with bash -c in the workspace.'),
    timeout: z
      .number()
      .positive()
      .max(3600)
      .optional()
      .describe('Seconds before the command is killed (default 60).'),
    fail: z
      .enum(['closed', 'open'])
      .optional()
      .describe(
        'Skate: when the command times out, crashes or cannot start. closed: the call (PreToolUse, PermissionRequest) or prompt (UserPromptSubmit) is refused; open: it goes on. Default closed for those events.',
      ),
    policy: z
      .string()
      .min(1)
      .optional()
      .describe(
        'Skate: the sandbox policy the command runs under (a name or a file, as --policy). Default readonly: read all but known secrets, write nothing, no network. In a workspace file only a policy no wider than readonly.',
      ),
  })
  .strict();
export type HookCommand = z.infer<typeof HookCommand>;

export const HookMatcher = z
  .object({
    matcher: z
      .string()
      .optional()
      .describe(
        'Which tools (a regular expression over the whole name, e.g. "Bash|Write"); empty, "*" or absent: all. Claude Code names (Bash, Edit, Write, Read, Grep, Glob, Task) match their Skate tools.',
      ),
    hooks: z.array(HookCommand).min(1),
  })
  .strict();
export type HookMatcher = z.infer<typeof HookMatcher>;

export const HooksSettings = z.partialRecord(HookEventName, z.array(HookMatcher));
export type HooksSettings = z.infer<typeof HooksSettings>;

/**
 * What a hook may print on stdout (exit 0), Claude Code's fields. Unknown fields are ignored, so
 * scripts written for a newer Claude Code still run.
 */
export const HookOutput = z.looseObject({
  continue: z.boolean().optional(),
  stopReason: z.string().optional(),
  suppressOutput: z.boolean().optional(),
  systemMessage: z.string().optional(),
  decision: z.enum(['block', 'approve']).optional(),
  reason: z.string().optional(),
  hookSpecificOutput: z
    .looseObject({
      hookEventName: z.string().optional(),
      permissionDecision: z.enum(['allow', 'deny', 'ask']).optional(),
      permissionDecisionReason: z.string().optional(),
      additionalContext: z.string().optional(),
      decision: z
        .looseObject({ behavior: z.enum(['allow', 'deny']), message: z.string().optional() })
        .optional(),
    })
    .optional(),
});
export type HookOutput = z.infer<typeof HookOutput>;

/** What one hook command came to, as shown to the user (`hook_decision` events). */
export const HookOutcome = z.enum([
  /** It said nothing that changes anything (exit 0, no decision). */
  'none',
  'allow',
  'deny',
  'ask',
  /** `decision: "block"` or exit 2 outside PreToolUse: the prompt, the stop or the result is refused. */
  'block',
  /** It added context for the model. */
  'context',
  /** `continue: false`: the agent stops. */
  'stop',
  /** It timed out, crashed or could not start (`fail` decides what that means). */
  'error',
]);
export type HookOutcome = z.infer<typeof HookOutcome>;
