import { carriesSecret, isKnownSecret, MIN_SECRET_VALUE_CHARS } from '../../shared/known-secrets.js';
import { envAllows } from '../../shared/path-patterns.js';
import type { ResolvedPolicy } from '../../shared/policy.js';
import { scrubOwnEnviron } from './scrub-own-environ.js';

/**
 * Secrets this harness holds beyond what `KNOWN_SECRETS` names: the token a `--token-file` held
 * or a server generated, and the variables the user's settings set. Process-wide, like the
 * environment they complete: every sandbox this process starts withholds them.
 */
const heldValues = new Set<string>();
const heldNames = new Set<string>();

/** A secret the harness holds outside its environment (a server's token): withheld by value. */
export function withholdValue(value: string): void {
  if (value.length >= MIN_SECRET_VALUE_CHARS) heldValues.add(value);
  scrubOwnEnviron(isHarnessSecret, heldValues);
}

/**
 * A variable the user's settings name (a settings file's `env`, and whatever names a provider's
 * key later): withheld by name, and its value under any name.
 */
export function withholdVariable(name: string): void {
  heldNames.add(name);
  scrubOwnEnviron(isHarnessSecret, heldValues);
}

function isHarnessSecret(name: string): boolean {
  return isKnownSecret(name, heldNames);
}

/**
 * The environment an executor, or a command `skate sandbox` runs, starts with: only what the
 * policy allows through, plus the values it sets. The harness's secrets (`KNOWN_SECRETS`, and what
 * was withheld above) never pass, whatever the policy says, and neither does any variable that
 * carries one of their values.
 */
export function executorEnvironment(policy: ResolvedPolicy, from: NodeJS.ProcessEnv): Record<string, string> {
  const secret = isHarnessSecret;
  const secretValues = new Set(heldValues);
  for (const [name, value] of Object.entries(from)) {
    if (value && secret(name)) secretValues.add(value);
  }
  const passes = (name: string, value: string): boolean =>
    !secret(name) && !carriesSecret(value, secretValues);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(from)) {
    if (value === undefined || !passes(name, value)) continue;
    if (policy.environment.allow.some((allowed) => envAllows(allowed, name))) env[name] = value;
  }
  for (const [name, value] of Object.entries(policy.environment.set)) {
    if (passes(name, value)) env[name] = value;
  }
  return env;
}

/**
 * An MCP server's own `env` as it may pass into its sandbox: without the harness's secrets, by
 * name or by value (a settings file naming `ANTHROPIC_API_KEY`, or pasting its value, gets neither through).
 */
export function withoutHarnessSecrets(
  env: Record<string, string>,
  from: NodeJS.ProcessEnv = process.env,
): Record<string, string> {
  const secretValues = new Set(heldValues);
  for (const [name, value] of Object.entries(from)) {
    if (value && isHarnessSecret(name)) secretValues.add(value);
  }
  return Object.fromEntries(
    Object.entries(env).filter(
      ([name, value]) => !isHarnessSecret(name) && !carriesSecret(value, secretValues),
    ),
  );
}

/** Whether a variable holds one of the harness's secrets (a known one, or one the user's settings name). */
export function isWithheldVariable(name: string): boolean {
  return isHarnessSecret(name);
}
