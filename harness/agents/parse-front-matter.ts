/** A value of the front matter: the few YAML shapes agent files use. */
export type FrontMatterValue =
  | string
  | number
  | boolean
  | string[]
  | Record<string, string | number | boolean>;

export type FrontMatter =
  | { ok: true; fields: Record<string, FrontMatterValue>; body: string }
  | { ok: false; key: string | undefined; message: string };

const KEY = /^([A-Za-z_][A-Za-z0-9_-]*):(?:\s+(.*))?$/;

/**
 * A small, strict reader of the front matter agent files use (no YAML dependency): `---` lines
 * around `key: value` pairs, where a value is a plain or quoted string, a whole number, `true` or
 * `false`, an inline list `[a, b]`, or, on the lines below its key, indented `- item`s or
 * `sub: value` pairs. Anything else (anchors, block scalars, deeper nesting, a key twice) is an
 * error naming the key, so a file never means something other than what it seems to say.
 */
export function parseFrontMatter(text: string): FrontMatter {
  const lines = text.replace(/^\uFEFF/, '').split(/\r?\n/);
  if (lines[0]?.trim() !== '---') return fail(undefined, 'does not start with a `---` front matter line');
  const end = lines.findIndex((line, index) => index > 0 && line.trim() === '---');
  if (end < 0) return fail(undefined, 'has no closing `---` line after its front matter');
  const fields: Record<string, FrontMatterValue> = {};
  let index = 1;
  while (index < end) {
    const line = lines[index] as string;
    index++;
    if (line.trim() === '' || line.trimStart().startsWith('#')) continue;
    if (/^\s/.test(line)) return fail(undefined, `line ${index}: indented, but under no key`);
    const match = KEY.exec(line.trimEnd());
    if (!match) return fail(undefined, `line ${index}: not a \`key: value\` line`);
    const key = match[1] as string;
    if (key in fields) return fail(key, 'is given twice');
    const inline = match[2]?.trim();
    if (inline !== undefined && inline !== '') {
      const value = scalarOrList(inline);
      if (isError(value)) return fail(key, value.error);
      fields[key] = value;
      continue;
    }
    // A key alone on its line: a block list or a one-level map follows, indented.
    const items: string[] = [];
    const map: Record<string, string | number | boolean> = {};
    while (index < end && (/^\s/.test(lines[index] as string) || (lines[index] as string).trim() === '')) {
      const inner = (lines[index] as string).trim();
      index++;
      if (inner === '' || inner.startsWith('#')) continue;
      if (inner.startsWith('- ') || inner === '-') {
        const value = scalar(inner.slice(1).trim());
        if (typeof value === 'object') return fail(key, value.error);
        items.push(String(value));
        continue;
      }
      const sub = KEY.exec(inner);
      if (!sub?.[2]) return fail(key, `line ${index}: expected \`- item\` or \`name: value\``);
      const value = scalar(sub[2].trim());
      if (typeof value === 'object') return fail(`${key}.${sub[1]}`, value.error);
      if ((sub[1] as string) in map) return fail(`${key}.${sub[1]}`, 'is given twice');
      map[sub[1] as string] = value;
    }
    if (items.length > 0 && Object.keys(map).length > 0)
      return fail(key, 'mixes list items and `name: value` pairs');
    fields[key] = Object.keys(map).length > 0 ? map : items;
  }
  return {
    ok: true,
    fields,
    body: lines
      .slice(end + 1)
      .join('\n')
      .trim(),
  };
}

function scalarOrList(text: string): FrontMatterValue | { error: string } {
  if (text.startsWith('[')) {
    if (!text.endsWith(']')) return { error: 'an inline list must end with `]` on the same line' };
    const inner = text.slice(1, -1).trim();
    if (inner === '') return [];
    const items: string[] = [];
    for (const part of inner.split(',')) {
      const value = scalar(part.trim());
      if (typeof value === 'object') return value;
      items.push(String(value));
    }
    return items;
  }
  if (text.startsWith('{'))
    return { error: 'inline maps are not read here; put each `name: value` on its own indented line' };
  return scalar(text);
}

function scalar(text: string): string | number | boolean | { error: string } {
  if (text === '') return { error: 'has an empty value' };
  const quote = text[0];
  if (quote === '"' || quote === "'") {
    if (text.length < 2 || text[text.length - 1] !== quote) return { error: 'has an unclosed quote' };
    const inner = text.slice(1, -1);
    if (quote === "'") return inner.replaceAll("''", "'");
    try {
      return JSON.parse(text) as string;
    } catch {
      return { error: 'has a double-quoted string that is not valid' };
    }
  }
  if (/^[|>][+-]?$/.test(text))
    return { error: 'block scalars (`|`, `>`) are not read here; write the value on one line' };
  if (/^[&*!]/.test(text)) return { error: 'YAML anchors, aliases and tags are not read here' };
  if (/^-?\d+$/.test(text)) return Number(text);
  if (text === 'true') return true;
  if (text === 'false') return false;
  // A comment after a plain value, as YAML reads it.
  return text.replace(/\s+#.*$/, '');
}

function isError(value: FrontMatterValue | { error: string }): value is { error: string } {
  return (
    typeof value === 'object' &&
    !Array.isArray(value) &&
    typeof value.error === 'string' &&
    Object.keys(value).length === 1
  );
}

function fail(key: string | undefined, message: string): FrontMatter {
  return { ok: false, key, message };
}
