/**
 * V8 flags that make an executor's per-call code (the channel, the RPC server, the runner, an MCP
 * server's SDK client) optimised after tens of calls rather than thousands: an eighth of V8 11's
 * interrupt budget (default 67,584; Node 20). They are set once the executor has answered its first
 * listing, not on the command line: from the start they optimised the boot's run-once code too (cold
 * start 1.3× → 1.5–1.8× of `node -e 0`). V8 12 and later (Node 22, 24) have no interrupt budget (they
 * count invocations, with Maglev at 400) and print "unrecognized flag" on stderr for it; an eighth of
 * their counts gave no gain on Node 24 (`mcp` ratio 1.82–2.07× without, 1.87–2.16× with, cold calls
 * slower), so there none is set.
 */
export function tierUpFlags(v8Version: string = process.versions.v8): string[] {
  const major = Number(v8Version.split('.')[0]);
  return major < 12 ? ['--interrupt-budget=8192'] : [];
}
