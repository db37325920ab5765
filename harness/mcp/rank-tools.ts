import type { ToolDefinition } from '../../shared/tool.js';

/** The words of a name or text: lowercase, split at anything not a letter or digit and at camelCase. */
export function termsOf(text: string): string[] {
  return text
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((term) => term.length > 1);
}

/**
 * Tools ranked by simple term matching: a query word that is a word of the tool's name counts most,
 * one found in the name less, one in the description least; the whole name given matches first.
 * Ties keep the tools' order. Tools matching nothing are left out.
 */
export function rankTools<T extends Pick<ToolDefinition, 'name' | 'description'>>(
  query: string,
  tools: readonly T[],
): T[] {
  const wanted = query.trim().toLowerCase();
  const terms = [...new Set(termsOf(query))];
  const scored = tools.map((tool, index) => {
    const name = tool.name.toLowerCase();
    const nameTerms = new Set(termsOf(tool.name));
    const description = tool.description.toLowerCase();
    let score = name === wanted || name.endsWith(`__${wanted}`) ? 100 : 0;
    for (const term of terms) {
      if (nameTerms.has(term)) score += 6;
      else if (name.includes(term)) score += 3;
      if (description.includes(term)) score += 1;
    }
    return { tool, index, score };
  });
  return scored
    .filter((entry) => entry.score > 0)
    .sort((a, b) => b.score - a.score || a.index - b.index)
    .map((entry) => entry.tool);
}
