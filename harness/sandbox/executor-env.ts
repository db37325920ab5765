import { envAllows } from '../../shared/path-patterns.js';
import type { ResolvedPolicy } from '../../shared/policy.js';

/** Never passed to an executor, whatever a policy allows: the harness's own credentials. */
const ALWAYS_WITHHELD = [/^ANTHROPIC_/, /^SKATE_EXECUTOR_TOKEN$/, /^CLAUDE_/];

/**
 * The environment an executor starts with: only what the policy allows through,
 * plus the values it sets. Secrets of the harness are withheld even when a
 * policy names them, including any variable that merely carries the API key's value.
 */
export function executorEnvironment(policy: ResolvedPolicy, from: NodeJS.ProcessEnv): Record<string, string> {
  const secretValues = new Set(
    Object.entries(from)
      .filter(([name, value]) => value && ALWAYS_WITHHELD.some((pattern) => pattern.test(name)))
      .map(([, value]) => value as string),
  );
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(from)) {
    if (value === undefined || ALWAYS_WITHHELD.some((pattern) => pattern.test(name))) continue;
    if (secretValues.has(value)) continue;
    if (policy.environment.allow.some((allowed) => envAllows(allowed, name))) env[name] = value;
  }
  for (const [name, value] of Object.entries(policy.environment.set)) {
    if (!ALWAYS_WITHHELD.some((pattern) => pattern.test(name))) env[name] = value;
  }
  return env;
}
