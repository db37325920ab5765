/**
 * A cache of at most `2 × generation` entries: when the current generation is
 * full it becomes the old one (the one before is dropped), and a hit in the old
 * generation moves forward. What a frame draws again stays; what scrolled away
 * or streamed past (every partial row of a reply) goes, so a long session's
 * memory stops growing with the rows it ever drew.
 */
export class BoundedCache<V> {
  private current = new Map<string, V>();
  private previous = new Map<string, V>();

  constructor(private readonly generation: number) {}

  get(key: string): V | undefined {
    const found = this.current.get(key);
    if (found !== undefined) return found;
    const old = this.previous.get(key);
    if (old !== undefined) this.set(key, old);
    return old;
  }

  set(key: string, value: V): void {
    if (this.current.size >= this.generation) {
      this.previous = this.current;
      this.current = new Map();
    }
    this.current.set(key, value);
  }

  get size(): number {
    return this.current.size + this.previous.size;
  }
}

/** Entries per generation of each of Ink's text caches: a few screens' worth of rows. */
export const INK_TEXT_CACHE_GENERATION = 2_000;
