/**
 * Each path's calls interleaved, one of each per round, so that load from whatever else runs on the
 * machine falls on all alike (a bench's ratios are what it is for). The order rotates each round:
 * a call made right after another path's call was measured slower whatever its path. Milliseconds
 * per call, by path.
 */
export async function timeInTurn<K extends string>(
  paths: Record<K, () => Promise<unknown>>,
  calls: number,
): Promise<Record<K, number[]>> {
  const names = Object.keys(paths) as K[];
  const times = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<K, number[]>;
  for (let i = 0; i < calls; i++) {
    for (let j = 0; j < names.length; j++) {
      const name = names[(i + j) % names.length]!;
      const start = performance.now();
      await paths[name]();
      times[name].push(performance.now() - start);
    }
  }
  return times;
}
