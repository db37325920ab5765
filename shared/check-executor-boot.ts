import type { ExecutorBoot } from './executor-boot.js';
import { isObject } from './is-object.js';
import type { NetworkPolicy, PolicyLimits, ResolvedPolicy } from './policy.js';

/*
 * `ExecutorBoot.parse` written by hand, so an executor can read its boot frame without loading zod
 * (about 2 MiB of its memory and 10 ms of its start; tools load zod with their first call). It
 * returns what zod returns (unknown keys dropped, defaults filled in) or undefined, and may refuse
 * what zod accepts: callers then ask zod, which also words the refusal.
 * test/unit/rpc/hand-checks.test.ts holds the two together.
 */

/** Like `ExecutorBoot.safeParse(value).data`, without zod; undefined where zod might refuse. */
export function checkExecutorBoot(value: unknown): ExecutorBoot | undefined {
  if (!isObject(value) || value.type !== 'boot' || value.protocol !== 1) return undefined;
  // An MCP server's executor loads zod with the SDK anyway: its boot frame is zod's to read.
  if (value.mcpServer !== undefined) return undefined;
  const policy = checkPolicy(value.policy);
  const enforcement = value.enforcement;
  if (!policy || (enforcement !== 'kernel' && enforcement !== 'best-effort' && enforcement !== 'none')) {
    return undefined;
  }
  // Defaults stand in for a missing key only, as zod's `.default` does; null is refused.
  const resourceLimits = value.resourceLimits === undefined ? 'none' : value.resourceLimits;
  if (resourceLimits !== 'cgroup-v1' && resourceLimits !== 'cgroup-v2' && resourceLimits !== 'none') {
    return undefined;
  }
  const commandWrapper = value.commandWrapper === undefined ? [] : value.commandWrapper;
  const diagnosticTools = value.diagnosticTools === undefined ? false : value.diagnosticTools;
  if (!isStrings(commandWrapper) || typeof diagnosticTools !== 'boolean') return undefined;
  if (!isPositiveInt(value.maxFrameBytes)) return undefined;
  return {
    type: 'boot',
    protocol: 1,
    policy,
    enforcement,
    resourceLimits,
    commandWrapper: [...commandWrapper],
    diagnosticTools,
    maxFrameBytes: value.maxFrameBytes,
  };
}

function checkPolicy(value: unknown): ResolvedPolicy | undefined {
  if (!isObject(value)) return undefined;
  const { name, workspace, read, write, network, environment } = value;
  if (typeof name !== 'string' || typeof workspace !== 'string') return undefined;
  if (!isObject(read) || !isStrings(read.allow) || !isStrings(read.deny)) return undefined;
  if (!isObject(write) || !isStrings(write.allow) || !isStrings(value.protected)) return undefined;
  const checkedNetwork = checkNetwork(network);
  if (!checkedNetwork) return undefined;
  if (!isObject(environment) || !isStrings(environment.allow)) return undefined;
  const set = checkStringRecord(environment.set);
  const limits = checkLimits(value.limits);
  if (!set || !limits) return undefined;
  return {
    name,
    workspace,
    read: { allow: [...read.allow], deny: [...read.deny] },
    write: { allow: [...write.allow] },
    protected: [...value.protected],
    network: checkedNetwork,
    environment: { allow: [...environment.allow], set },
    limits,
  };
}

/** NetworkPolicy is strict: `mode`, and for an allowlist its two lists (zod checks each pattern). */
function checkNetwork(network: unknown): NetworkPolicy | undefined {
  if (!isObject(network)) return undefined;
  const keys = Object.keys(network).length;
  if ((network.mode === 'off' || network.mode === 'on') && keys === 1) return { mode: network.mode };
  // Patterns are checked by zod: leave allowlists to it.
  return undefined;
}

function checkLimits(value: unknown): PolicyLimits | undefined {
  if (!isObject(value)) return undefined;
  const { commandTimeoutSeconds, outputBytes, memoryMiB, processes } = value;
  if (
    typeof commandTimeoutSeconds !== 'number' ||
    !Number.isFinite(commandTimeoutSeconds) ||
    commandTimeoutSeconds <= 0 ||
    commandTimeoutSeconds > 86_400
  ) {
    return undefined;
  }
  if (!isPositiveInt(outputBytes) || !isPositiveInt(memoryMiB) || !isPositiveInt(processes)) return undefined;
  return { commandTimeoutSeconds, outputBytes, memoryMiB, processes };
}

function checkStringRecord(value: unknown): Record<string, string> | undefined {
  if (!isObject(value)) return undefined;
  const prototype: unknown = Object.getPrototypeOf(value);
  if (prototype !== Object.prototype && prototype !== null) return undefined;
  const out: Record<string, string> = {};
  for (const key of Object.keys(value)) {
    // zod decides what a `__proto__` key means.
    if (key === '__proto__' || typeof value[key] !== 'string') return undefined;
    out[key] = value[key];
  }
  return out;
}

function isStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function isPositiveInt(value: unknown): value is number {
  return Number.isSafeInteger(value) && (value as number) > 0;
}
