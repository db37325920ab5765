/** The kernel sandbox cannot be built here, so a restricted executor will not start (fail closed). */
export class SandboxUnavailableError extends Error {
  readonly code = 'sandbox_unavailable' as const;

  constructor(
    readonly policyName: string,
    readonly problem: string,
    readonly fix: string,
  ) {
    super(
      `refusing to start an executor under policy "${policyName}" without its kernel sandbox: ${problem}.\n` +
        `  fix: ${fix}\n  or accept tool-level checks only with --sandbox best-effort`,
    );
    this.name = 'SandboxUnavailableError';
  }
}

/** The policy cannot be enforced for this workspace as it stands, so the sandbox is not built (fail closed). */
export class SandboxPlanError extends Error {
  readonly code = 'sandbox_plan' as const;

  constructor(
    readonly policyName: string,
    readonly problem: string,
    readonly fix: string,
  ) {
    super(`refusing to build the sandbox for policy "${policyName}": ${problem}.\n  fix: ${fix}`);
    this.name = 'SandboxPlanError';
  }
}
