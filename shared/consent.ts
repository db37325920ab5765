import * as z from 'zod';

/** What a consent is for: code a workspace names, which runs only once the user said yes. */
export const ConsentKind = z.enum(['hooks', 'mcp-servers', 'agents']);
export type ConsentKind = z.infer<typeof ConsentKind>;

/** One yes: to one version (its SHA-256) of one file, for one kind of code it names. */
export const ConsentGrant = z.object({
  kind: ConsentKind,
  /** The file's real path. */
  file: z.string(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
  grantedAt: z.string(),
});
export type ConsentGrant = z.infer<typeof ConsentGrant>;

/** `~/.skate/consent.json`. */
export const ConsentFile = z.object({ version: z.literal(1), grants: z.array(ConsentGrant) });
export type ConsentFile = z.infer<typeof ConsentFile>;
