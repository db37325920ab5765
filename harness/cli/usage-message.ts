/**
 * One line for a command line that could not be parsed: what was wrong and how to write it,
 * instead of `util.parseArgs`'s own wording (which talks about positionals and `--`).
 * `known` are the long flag names the command takes, for a "did you mean".
 */
export function usageMessage(error: Error, known: readonly string[] = []): string {
  const { message } = error;
  const unknown = /^Unknown option '([^']+)'/.exec(message);
  if (unknown) {
    const flag = unknown[1] ?? '';
    const near = closest(flag.replace(/^-+/, ''), known);
    return `unknown option ${flag}${near ? ` (did you mean --${near}?)` : ''}`;
  }
  const missing = /^Option '(?:-\w, )?(--[\w-]+)(?: <value>)?' argument missing/.exec(message);
  if (missing) return `${missing[1]} needs a value: ${missing[1]} VALUE`;
  const noValue = /^Option '(?:-\w, )?(--[\w-]+)' does not take an argument/.exec(message);
  if (noValue) return `${noValue[1]} takes no value: write ${noValue[1]} alone`;
  const ambiguous = /^Option '(?:-\w, )?(--[\w-]+)(?: <value>)?' argument is ambiguous/.exec(message);
  if (ambiguous) return `${ambiguous[1]} needs a value, not another flag: ${ambiguous[1]} VALUE`;
  const positional = /^Unexpected argument '([^']+)'/.exec(message);
  if (positional) return `unexpected argument: ${positional[1]}`;
  return message.split('\n')[0] ?? message;
}

/** The known name nearest to `name` by edit distance, when it is near enough to be a typo. */
function closest(name: string, known: readonly string[]): string | undefined {
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(name, candidate);
    if (!best || distance < best.distance) best = { name: candidate, distance };
  }
  return best && best.distance <= Math.max(1, Math.floor(name.length / 3)) ? best.name : undefined;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1),
      );
    }
    previous = current;
  }
  return previous[b.length] ?? 0;
}
