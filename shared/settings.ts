import * as z from 'zod';
import { NetworkSetting } from './policy.js';

/**
 * A settings file: `~/.skate/settings.json` (the user's) or `<workspace>/.skate/settings.json`
 * (the project's). Flags win over both, the workspace's over the user's, except that a workspace
 * file may only narrow: a narrower policy, network off, stricter approvals, and no `env`.
 */
export const SettingsFile = z
  .object({
    $schema: z.string().optional(),
    model: z
      .string()
      .min(1)
      .optional()
      .describe('The model id, as --model. SKATE_MODEL and --model win over it.'),
    approval: z
      .enum(['auto', 'ask', 'deny-writes'])
      .optional()
      .describe(
        'When to ask before writes and commands, as --approval. A workspace file may only make it stricter.',
      ),
    policy: z
      .string()
      .min(1)
      .optional()
      .describe(
        'The sandbox policy, as --policy: a name (~/.skate/policies, then built-in) or a file path relative to this file. A workspace file may only choose one no wider than the user’s.',
      ),
    network: NetworkSetting.optional().describe(
      'The network for runs, as --network: "off", "on", or {"allow": [...hosts], "deny": [...]} (only those hosts, through Skate’s proxy). A workspace file may only narrow it.',
    ),
    maxTurns: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Model turns before the run stops, as --max-turns.'),
    maxTokens: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Output tokens per model reply, as --max-tokens.'),
    thinkingBudget: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Extended-thinking budget in tokens, as --thinking-budget.'),
    env: z
      .record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a variable name'), z.string())
      .optional()
      .describe(
        'Environment variables for the harness (ANTHROPIC_BASE_URL, a proxy), set where the environment does not already set them. Only in ~/.skate/settings.json. They are the harness’s: no executor or command gets them, nor their values, whatever its policy passes.',
      ),
  })
  .strict();
export type SettingsFile = z.infer<typeof SettingsFile>;

/** The JSON Schema of settings files, for editors (`sandbox-policies/settings.schema.json`). */
export function settingsJsonSchema(): Record<string, unknown> {
  const { $schema, ...rest } = z.toJSONSchema(SettingsFile, { io: 'input' });
  return {
    $schema,
    title: 'Skate settings',
    description:
      'Skate settings: ~/.skate/settings.json or <workspace>/.skate/settings.json; see README.md, "Settings".',
    ...rest,
  };
}
