import * as z from 'zod';
import { isGlob } from './path-patterns.js';
import { isWithin } from './path-within.js';
import type { ResolvedPolicy } from './policy.js';
import { PolicyFile } from './policy.js';
import { expandPath, type PolicyPlaces, resolvePolicy } from './resolve-policy.js';

/** Why a policy could not be used, as data: which file, which field, what is wrong, what to do. */
export const PolicyProblem = z.object({
  errorType: z.enum(['not_found', 'invalid_json', 'invalid_policy', 'writable_location']),
  source: z.string(),
  field: z.string().optional(),
  message: z.string(),
  suggestion: z.string(),
});
export type PolicyProblem = z.infer<typeof PolicyProblem>;

export type PolicyCheck =
  | { ok: true; file: PolicyFile; policy: ResolvedPolicy }
  | { ok: false; problem: PolicyProblem };

function fieldOf(pathParts: readonly PropertyKey[]): string {
  return pathParts
    .map((part) => (typeof part === 'number' ? `[${part}]` : `.${String(part)}`))
    .join('')
    .slice(1);
}

function suggestionFor(issue: z.core.$ZodIssue): string {
  switch (issue.code) {
    case 'unrecognized_keys':
      return `remove ${issue.keys.map((k) => `"${k}"`).join(', ')} or check the spelling against policy.schema.json`;
    case 'invalid_value':
      return `use one of: ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'invalid_union':
      // A discriminated union (network's `mode`) names its accepted values, as an enum does.
      if ('options' in issue && Array.isArray(issue.options)) {
        return `use one of: ${issue.options.map((v) => JSON.stringify(v)).join(', ')}`;
      }
      return 'see sandbox-policies/policy.schema.json for the accepted forms';
    case 'invalid_type':
      return `give a value of type ${issue.expected}`;
    case 'invalid_format':
      return 'see sandbox-policies/policy.schema.json for the accepted forms';
    case 'too_small':
    case 'too_big':
      return 'pick a value inside the allowed range';
    default:
      return 'compare with the shipped policies in sandbox-policies/';
  }
}

/**
 * Checks a parsed policy file and resolves it for a workspace. Problems come
 * back as data naming the field, never as a thrown error, so a CLI can print
 * them and a caller can decide.
 */
export function checkPolicy(raw: unknown, source: string, places: PolicyPlaces): PolicyCheck {
  const invalid = (field: string | undefined, message: string, suggestion: string): PolicyCheck => ({
    ok: false,
    problem: { errorType: 'invalid_policy', source, ...(field && { field }), message, suggestion },
  });
  const parsed = PolicyFile.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    return invalid(fieldOf(issue.path), issue.message, suggestionFor(issue));
  }
  const file = parsed.data;
  const lists: [string, readonly string[]][] = [
    ['filesystem.read.allow', file.filesystem.read.allow],
    ['filesystem.read.deny', file.filesystem.read.deny],
    ['filesystem.write.allow', file.filesystem.write.allow],
    ['filesystem.protected', file.filesystem.protected],
  ];
  for (const [field, patterns] of lists) {
    for (const [index, pattern] of patterns.entries()) {
      try {
        expandPath(pattern, places);
      } catch (error) {
        return invalid(
          `${field}[${index}]`,
          (error as Error).message,
          'write absolute paths, or start them with ~/ or ${workspace}/',
        );
      }
    }
  }
  const policy = resolvePolicy(file, places);
  for (const [index, root] of policy.write.allow.entries()) {
    if (isGlob(root)) {
      return invalid(
        `filesystem.write.allow[${index}]`,
        `write roots cannot be globs: ${root}`,
        'name directories or files; globs are for deny lists',
      );
    }
    const readable = policy.read.allow.some((r) => isWithin(r, root));
    if (!readable) {
      return invalid(
        `filesystem.write.allow[${index}]`,
        `${root} is writable but not readable`,
        'add it (or a parent) to filesystem.read.allow',
      );
    }
  }
  return { ok: true, file, policy };
}
