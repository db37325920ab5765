import * as z from 'zod';
import { parseHostPattern } from './network-pattern.js';

const PathPattern = z
  .string()
  .min(1)
  .describe('An absolute path, `~/…`, or `${workspace}/…`; `*` and `**` match names in deny lists.');

/** One allowlist pattern as written: see `shared/network-pattern.ts`. */
export const NetworkPatternText = z
  .string()
  .min(1)
  .max(260)
  .refine((text) => typeof parseHostPattern(text) !== 'string', {
    error: (issue) => {
      const parsed = typeof issue.input === 'string' ? parseHostPattern(issue.input) : 'not a string';
      return typeof parsed === 'string' ? parsed : 'not a host pattern';
    },
  })
  .describe(
    '`host`, `*.domain` or an IP literal (`[::1]` for IPv6), optionally `:port`; no port means 80 and 443.',
  );

/** Hosts an executor may reach through the harness's proxy (and nothing else). */
export const NetworkAllowlist = z
  .object({
    allow: z.array(NetworkPatternText).max(1000).describe('Hosts that may be reached.'),
    deny: z
      .array(NetworkPatternText)
      .max(1000)
      .default([])
      .describe('Hosts refused even when an allow pattern matches.'),
  })
  .strict();
export type NetworkAllowlist = z.infer<typeof NetworkAllowlist>;

/**
 * Network access: `off` (no route anywhere), `on` (the host's network), or `allowlist` (no route
 * but the harness's filtering proxy, issue #21).
 */
export const NetworkPolicy = z.discriminatedUnion('mode', [
  z.object({ mode: z.literal('off') }).strict(),
  z.object({ mode: z.literal('on') }).strict(),
  z.object({ mode: z.literal('allowlist'), ...NetworkAllowlist.shape }).strict(),
]);
export type NetworkPolicy = z.infer<typeof NetworkPolicy>;

/** How a person sets the network (settings, `--network`, serve, ACP): `off`, `on` or `{allow, deny}`. */
export const NetworkSetting = z.union([z.enum(['off', 'on']), NetworkAllowlist]);
export type NetworkSetting = z.infer<typeof NetworkSetting>;

/** The policy form of a setting. */
export function networkFromSetting(setting: NetworkSetting): NetworkPolicy {
  return typeof setting === 'string'
    ? { mode: setting }
    : { mode: 'allowlist', allow: [...setting.allow], deny: [...(setting.deny ?? [])] };
}

/** The setting form of a policy's network. */
export function settingFromNetwork(network: NetworkPolicy): NetworkSetting {
  return network.mode === 'allowlist' ? { allow: [...network.allow], deny: [...network.deny] } : network.mode;
}

/** What the status bar and notes say: `off`, `on`, `3 hosts`. */
export function networkLabel(network: NetworkPolicy): string {
  if (network.mode !== 'allowlist') return network.mode;
  return `${network.allow.length} host${network.allow.length === 1 ? '' : 's'}`;
}

export const PolicyLimits = z.object({
  commandTimeoutSeconds: z.number().positive().max(86_400).describe('Wall-clock limit of one command.'),
  outputBytes: z
    .number()
    .int()
    .positive()
    .describe('Output a tool returns before it truncates with a notice.'),
  memoryMiB: z.number().int().positive().describe('Memory of the whole sandbox (executor and its commands).'),
  processes: z.number().int().positive().describe('Processes and threads in the whole sandbox.'),
});
export type PolicyLimits = z.infer<typeof PolicyLimits>;

/** A sandbox policy as written in `sandbox-policies/*.json`. */
export const PolicyFile = z
  .object({
    $schema: z.string().optional(),
    name: z
      .string()
      .regex(/^[a-z][a-z0-9-]{0,63}$/, 'lowercase letters, digits and dashes, starting with a letter'),
    description: z.string().optional(),
    filesystem: z.object({
      read: z.object({
        allow: z.array(PathPattern).describe('Roots that may be read.'),
        deny: z.array(PathPattern).default([]).describe('Paths hidden even inside readable roots.'),
      }),
      write: z.object({
        allow: z.array(PathPattern).describe('Roots that may be written; each must also be readable.'),
      }),
      protected: z
        .array(PathPattern)
        .default([])
        .describe('Paths kept read-only inside writable roots, whether or not they exist yet.'),
    }),
    network: NetworkPolicy,
    environment: z.object({
      allow: z
        .array(
          z
            .string()
            .regex(/^(\*|[A-Za-z_][A-Za-z0-9_]*\*?)$/, 'a variable name, optionally ending in *, or * alone'),
        )
        .describe('Variables passed through from the harness environment; `LC_*` prefixes and `*` allowed.'),
      set: z.record(z.string(), z.string()).default({}).describe('Variables set to fixed values.'),
    }),
    limits: PolicyLimits,
  })
  .strict();
export type PolicyFile = z.infer<typeof PolicyFile>;

/** Where the kernel layer stands for a running executor. */
export const EnforcementLevel = z.enum(['kernel', 'best-effort', 'none']);
export type EnforcementLevel = z.infer<typeof EnforcementLevel>;

/**
 * A policy with every path expanded to an absolute, normalised path for one
 * workspace and home. This is what executors receive and enforce.
 */
export const ResolvedPolicy = z.object({
  name: z.string(),
  workspace: z.string(),
  read: z.object({ allow: z.array(z.string()), deny: z.array(z.string()) }),
  write: z.object({ allow: z.array(z.string()) }),
  protected: z.array(z.string()),
  network: NetworkPolicy,
  environment: z.object({ allow: z.array(z.string()), set: z.record(z.string(), z.string()) }),
  limits: PolicyLimits,
});
export type ResolvedPolicy = z.infer<typeof ResolvedPolicy>;

/**
 * The JSON Schema of policy files, for editors (`sandbox-policies/policy.schema.json`). It
 * describes files as written, so fields with defaults are optional.
 */
export function policyJsonSchema(): Record<string, unknown> {
  const { $schema, ...rest } = z.toJSONSchema(PolicyFile, { io: 'input' });
  return {
    $schema,
    title: 'Skate sandbox policy',
    description: 'A sandbox policy for Skate executors; see README.md, "Security model".',
    ...rest,
  };
}
