/** Formats a settled completion value, or the reason its promise rejected. */
export type SettleFunction = (value: unknown, maxChars: number) => Promise<{ ok: boolean; text: string }>;

/**
 * Runs INSIDE the isolate, never in Node: the worker sends its source with
 * `toString()`, so it must not refer to anything outside its own body (no
 * imports, no module constants, nothing tsc or esbuild would add a helper for).
 *
 * Installs a `console` whose methods format their arguments here and hand
 * plain strings to `log`, and returns the function that awaits and formats a
 * completion value. Formatting happens in the isolate so that no object of
 * the user's ever crosses into the host.
 */
export function isolatePrelude(log: (level: string, text: string) => void): SettleFunction {
  const MAX_DEPTH = 4;
  const MAX_ITEMS = 100;
  const LINE_WIDTH = 72;
  const LOG_CHARS = 16 * 1024;
  const identifier = /^[A-Za-z_$][\w$]*$/;
  type Budget = { left: number };

  const typeName = (value: object): string => {
    const proto = Object.getPrototypeOf(value) as { constructor?: { name?: string } } | null;
    if (proto === null) return '[Object: null prototype] ';
    if (proto === Object.prototype) return '';
    const name = proto.constructor?.name;
    return typeof name === 'string' && name.length > 0 ? `${name} ` : '';
  };

  const errorText = (error: Error, nested: boolean): string =>
    nested ? `[${error.name}: ${error.message}]` : (error.stack ?? `${error.name}: ${error.message}`);

  const format = (
    value: unknown,
    budget: Budget,
    depth: number,
    seen: Set<object>,
    indent: string,
  ): string => {
    if (budget.left <= 0) return '…';
    const take = (text: string): string => {
      budget.left -= text.length;
      return text;
    };
    switch (typeof value) {
      case 'string':
        return take(JSON.stringify(value.length > budget.left ? `${value.slice(0, budget.left)}…` : value));
      case 'number':
        return take(Object.is(value, -0) ? '-0' : String(value));
      case 'bigint':
        return take(`${value}n`);
      case 'boolean':
      case 'undefined':
        return take(String(value));
      case 'symbol':
        return take(value.toString());
      case 'function': {
        const name = value.name || '(anonymous)';
        const isClass = /^class\b/.test(Function.prototype.toString.call(value));
        return take(isClass ? `[class ${name}]` : `[Function: ${name}]`);
      }
    }
    if (value === null) return take('null');
    const object = value as object;
    if (seen.has(object)) return take('[Circular]');
    if (object instanceof Error) return take(errorText(object, depth > 0));
    if (object instanceof Date)
      return take(Number.isNaN(object.getTime()) ? 'Invalid Date' : object.toISOString());
    if (object instanceof RegExp) return take(String(object));
    if (object instanceof Promise) return take('Promise {}');
    if (object instanceof WeakMap || object instanceof WeakSet) return take(`${typeName(object)}{}`);
    if (depth >= MAX_DEPTH) return take(Array.isArray(object) ? '[Array]' : '[Object]');

    seen.add(object);
    try {
      const inner = `${indent}  `;
      const child = (item: unknown) => format(item, budget, depth + 1, seen, inner);
      const entries: string[] = [];
      let prefix = '';
      let brackets: [string, string] = ['{', '}'];
      const more = (total: number, word: string) => {
        if (total > entries.length) entries.push(`… ${total - entries.length} more ${word}`);
      };
      if (Array.isArray(object) || (ArrayBuffer.isView(object) && !(object instanceof DataView))) {
        const list = object as ArrayLike<unknown>;
        if (!Array.isArray(object)) prefix = `${typeName(object).trim()}(${list.length}) `;
        brackets = ['[', ']'];
        for (let i = 0; i < list.length && i < MAX_ITEMS && budget.left > 0; i++)
          entries.push(child(list[i]));
        more(list.length, 'items');
      } else if (object instanceof Map) {
        prefix = `Map(${object.size}) `;
        for (const [key, item] of object) {
          if (entries.length >= MAX_ITEMS || budget.left <= 0) break;
          entries.push(`${child(key)} => ${child(item)}`);
        }
        more(object.size, 'entries');
      } else if (object instanceof Set) {
        prefix = `Set(${object.size}) `;
        for (const item of object) {
          if (entries.length >= MAX_ITEMS || budget.left <= 0) break;
          entries.push(child(item));
        }
        more(object.size, 'items');
      } else {
        prefix = typeName(object);
        const keys = Object.keys(object);
        for (const key of keys) {
          if (entries.length >= MAX_ITEMS || budget.left <= 0) break;
          let item: unknown;
          try {
            item = (object as Record<string, unknown>)[key];
          } catch (error) {
            item = `[getter threw: ${error instanceof Error ? error.message : String(error)}]`;
          }
          const name = identifier.test(key) ? key : JSON.stringify(key);
          entries.push(`${take(name)}: ${child(item)}`);
        }
        more(keys.length, 'keys');
      }
      const [open, close] = brackets;
      if (entries.length === 0) return take(`${prefix}${open}${close}`);
      const pad = open === '{' ? ' ' : '';
      const single = `${prefix}${open}${pad}${entries.join(', ')}${pad}${close}`;
      if (single.length <= LINE_WIDTH && !single.includes('\n')) return single;
      if (open === '[' && entries.every((entry) => entry.length <= 16 || entry.startsWith('… '))) {
        // Short items several to a line, as Node's inspect does for arrays of numbers.
        const rows: string[] = [];
        for (const entry of entries) {
          const last = rows.length - 1;
          if (last >= 0 && inner.length + rows[last]!.length + entry.length + 2 <= LINE_WIDTH) {
            rows[last] = `${rows[last]}, ${entry}`;
          } else rows.push(entry);
        }
        return `${prefix}[\n${rows.map((row) => inner + row).join(',\n')}\n${indent}]`;
      }
      return `${prefix}${open}\n${entries.map((entry) => inner + entry).join(',\n')}\n${indent}${close}`;
    } catch (error) {
      return take(`[unformattable: ${error instanceof Error ? error.message : String(error)}]`);
    } finally {
      seen.delete(object);
    }
  };

  const clip = (text: string, maxChars: number): string =>
    text.length <= maxChars
      ? text
      : `${text.slice(0, maxChars)}… [${text.length - maxChars} more characters]`;

  /** Strings as they are, everything else JSON-like. */
  const show = (value: unknown, maxChars: number): string =>
    clip(typeof value === 'string' ? value : format(value, { left: maxChars }, 0, new Set(), ''), maxChars);

  const describeThrown = (error: unknown, maxChars: number): string =>
    error instanceof Error ? clip(errorText(error, false), maxChars) : `Uncaught ${show(error, maxChars)}`;

  const consoleObject: Record<string, (...args: unknown[]) => void> = {};
  const levels: [string, string][] = [
    ['log', 'log'],
    ['info', 'info'],
    ['debug', 'debug'],
    ['warn', 'warn'],
    ['error', 'error'],
    ['dir', 'log'],
    ['trace', 'log'],
  ];
  for (const [method, level] of levels) {
    consoleObject[method] = (...args: unknown[]) => {
      log(level, args.map((arg) => show(arg, LOG_CHARS)).join(' '));
    };
  }
  Object.defineProperty(globalThis, 'console', { value: consoleObject, writable: true, configurable: true });

  return async (value, maxChars) => {
    let settled = value;
    try {
      const then =
        value !== null && typeof value === 'object' ? (value as { then?: unknown }).then : undefined;
      if (typeof then === 'function') settled = await value;
    } catch (error) {
      return { ok: false, text: describeThrown(error, maxChars) };
    }
    return { ok: true, text: show(settled, maxChars) };
  };
}
