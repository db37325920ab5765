import type { PlanEntry } from '@agentclientprotocol/sdk';

const ITEM = /^(\s*)(?:[-*+]|\d+[.)])\s+(?:\[([ xX])\]\s+)?(.*\S)\s*$/;
const HEADING = /^#{2,6}\s+(.*\S)\s*$/;

/**
 * A plan file (Markdown) as ACP plan entries: its top-level list items, with
 * `[x]` ones completed; a plan without a list gives its section headings.
 * Entries are the plan's steps, so an editor can show them as a checklist.
 */
export function planEntries(markdown: string): PlanEntry[] {
  const items: { indent: number; text: string; done: boolean }[] = [];
  const headings: string[] = [];
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    if (fenced) continue;
    const item = ITEM.exec(line);
    if (item) {
      items.push({ indent: item[1]?.length ?? 0, text: item[3] ?? '', done: /x/i.test(item[2] ?? '') });
      continue;
    }
    const heading = HEADING.exec(line);
    if (heading?.[1]) headings.push(heading[1]);
  }
  if (items.length > 0) {
    const top = Math.min(...items.map((item) => item.indent));
    return items
      .filter((item) => item.indent === top)
      .map((item) => ({
        content: item.text,
        priority: 'medium',
        status: item.done ? 'completed' : 'pending',
      }));
  }
  return headings.map((content) => ({ content, priority: 'medium', status: 'pending' }));
}
