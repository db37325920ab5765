import * as z from 'zod';

const PathPattern = z
  .string()
  .min(1)
  .describe('An absolute path, `~/…`, or `${workspace}/…`; `*` and `**` match names in deny lists.');

/**
 * Network access. An object rather than a boolean so that a domain allowlist
 * (`{ mode: 'allowlist', domains: [...] }`) can join as another mode without a format change.
 */
export const NetworkPolicy = z.object({ mode: z.enum(['off', 'on']) }).strict();
export type NetworkPolicy = z.infer<typeof NetworkPolicy>;

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
