/**
 * V8 flags that make an executor's per-call code (the channel, the RPC server, the runner, an MCP
 * server's SDK client) optimised after tens of calls rather than thousands: an eighth of V8's
 * thresholds. They are set once the executor has answered its first listing, not on the command
 * line: from the start they optimised the boot's run-once code too (cold start 1.3× → 1.5–1.8× of
 * `node -e 0`). V8 11 (Node 20) counts an interrupt budget (default 67,584); V8 12 and later (Node 22,
 * 24) count invocations (Maglev at 400, TurboFan at 3,000) and print "unrecognized flag" on stderr
 * for the old one, so the flags follow the running V8.
 */
export function tierUpFlags(v8Version: string = process.versions.v8): string[] {
  const major = Number(v8Version.split('.')[0]);
  return major < 12
    ? ['--interrupt-budget=8192']
    : ['--invocation-count-for-maglev=50', '--invocation-count-for-turbofan=375'];
}
