import * as z from 'zod';
import { HooksSettings } from './hooks.js';
import { McpServers, McpSettings } from './mcp-servers.js';

/** USD per million tokens, as the provider's price list gives them. */
export const ModelPrices = z
  .object({
    input: z.number().nonnegative(),
    output: z.number().nonnegative(),
    cacheRead: z
      .number()
      .nonnegative()
      .optional()
      .describe('Cached input tokens read; the input price when absent (an upper bound).'),
    cacheWrite: z
      .number()
      .nonnegative()
      .optional()
      .describe('Input tokens written to the cache; the input price when absent.'),
  })
  .strict();
export type ModelPrices = z.infer<typeof ModelPrices>;

export const ProviderModel = z
  .object({
    contextWindow: z
      .number()
      .int()
      .positive()
      .optional()
      .describe(
        'Input context window in tokens. Without it Skate asks an Ollama server (/api/show) and otherwise says what it assumed.',
      ),
    maxOutput: z
      .number()
      .int()
      .positive()
      .optional()
      .describe('Output tokens the model can give per reply; --max-tokens is capped to it.'),
    prices: ModelPrices.optional(),
  })
  .strict();
export type ProviderModel = z.infer<typeof ProviderModel>;

const VARIABLE_NAME = z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'a variable name');

/** A model server other than the Anthropic API, named in `--model NAME/MODEL`. */
export const ProviderSettings = z
  .object({
    type: z
      .enum(['openai-chat', 'openai-responses', 'anthropic', 'bedrock', 'vertex'])
      .describe(
        'The API it speaks: OpenAI Chat Completions (OpenAI, OpenRouter, LiteLLM, vLLM, llama.cpp, Ollama, LM Studio), OpenAI Responses, the Anthropic Messages API (a proxy), Claude on Amazon Bedrock, Claude on Google Vertex AI.',
      ),
    baseURL: z
      .url()
      .optional()
      .describe(
        "The server's URL (for OpenAI formats the /v1 one). Required for openai-chat and openai-responses; Bedrock and Vertex default to the region's endpoint.",
      ),
    apiKeyEnv: VARIABLE_NAME.optional().describe(
      'The environment variable that holds the key. It is withheld from every sandbox, whatever its name. Bedrock signs with the AWS credential chain and Vertex with Google credentials instead.',
    ),
    headers: z
      .record(z.string(), z.string())
      .optional()
      .describe('Headers sent with every request (OpenRouter attribution, a gateway header).'),
    region: z
      .string()
      .min(1)
      .optional()
      .describe('Bedrock: the AWS region. Vertex: the Google Cloud region.'),
    projectId: z.string().min(1).optional().describe('Vertex: the Google Cloud project.'),
    models: z
      .record(z.string().min(1), ProviderModel)
      .optional()
      .describe('The models Skate lists for it (:model, ACP, serve), with context windows and prices.'),
  })
  .strict();
export type ProviderSettings = z.infer<typeof ProviderSettings>;

/** A provider's name: what comes before the first `/` of `--model`. */
export const PROVIDER_NAME = /^[a-z0-9][a-z0-9_-]*$/;

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
    providers: z
      .record(z.string().regex(PROVIDER_NAME, 'lower-case letters, digits, - and _'), ProviderSettings)
      .optional()
      .describe(
        'Model servers besides the Anthropic API, by name: --model NAME/MODEL uses one. Only in ~/.skate/settings.json.',
      ),
    env: z
      .record(VARIABLE_NAME, z.string())
      .optional()
      .describe(
        'Environment variables for the harness (ANTHROPIC_BASE_URL, a proxy), set where the environment does not already set them. Only in ~/.skate/settings.json. They are the harness’s: no executor or command gets them, nor their values, whatever its policy passes.',
      ),
    hooks: HooksSettings.optional().describe(
      'Commands run at points of every agent’s run (Claude Code’s format: events → matchers → commands), sandboxed. A workspace file’s hooks run only after you consent to that version of the file.',
    ),
    disableAllHooks: z
      .boolean()
      .optional()
      .describe('Run no hooks at all (as --no-hooks), for reproducible runs. A workspace file may set it.'),
    mcpServers: McpServers.optional().describe(
      'MCP servers, in the shape of Claude Code’s .mcp.json: {"name": {"command", "args", "env", "policy"}}. Each runs confined in an executor of its own, started at its first call. A workspace file’s (and a project’s .mcp.json) run only after you consent to that version of the file.',
    ),
    backgroundAgents: z
      .number()
      .int()
      .min(0)
      .max(16)
      .optional()
      .describe(
        'Background sub-agents (spawn_agent with background: true) running at once, at most; default 4, 0 for none. A workspace file may only lower it.',
      ),
    mcp: McpSettings.optional().describe(
      'How MCP servers are run: idle stop, start timeout, headless use of a workspace’s servers.',
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
