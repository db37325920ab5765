import { describe, expect, it } from 'vitest';
import { parseToolRules, refusedByRules, unknownRuleTools } from '../../../harness/engine/tool-rules.js';

const shell = (command: string) => ({ name: 'shell', input: { command } });

describe('tool rules', () => {
  it('parses names and patterns, comma or space separated, parentheses kept whole', () => {
    expect(parseToolRules(['shell(git log *),read_file', 'grep'])).toMatchObject([
      { tool: 'shell', pattern: 'git log *' },
      { tool: 'read_file' },
      { tool: 'grep' },
    ]);
    expect(() => parseToolRules(['shell(git'])).toThrow(/not a tool rule/);
  });

  it("matches Claude Code's prefix form `git log:*` as `git log` and `git log …`, not `git logx`", () => {
    const rules = { allow: parseToolRules(['shell(git log:*)']), deny: [] };
    expect(refusedByRules(rules, shell('git log'))).toBeUndefined();
    expect(refusedByRules(rules, shell('git log --oneline'))).toBeUndefined();
    expect(refusedByRules(rules, shell('git logx'))).toBeDefined();
  });

  it('matches path patterns for file tools, and never refuses the tools that end a run', () => {
    const rules = { allow: parseToolRules(['read_file(src/*)']), deny: [] };
    expect(refusedByRules(rules, { name: 'read_file', input: { path: 'src/a.ts' } })).toBeUndefined();
    expect(refusedByRules(rules, { name: 'read_file', input: { path: '.env' } })).toBeDefined();
    expect(refusedByRules(rules, { name: 'structured_output', input: {} })).toBeUndefined();
  });

  it('deny wins over allow, and names unknown tools', () => {
    const rules = { allow: parseToolRules(['shell']), deny: parseToolRules(['shell(curl *)']) };
    expect(refusedByRules(rules, shell('curl x'))).toContain('--disallowedTools');
    expect(unknownRuleTools(rules, ['shell'])).toBeUndefined();
    expect(unknownRuleTools({ deny: parseToolRules(['Edit']) }, ['edit_file'])).toContain(
      "Skate's is edit_file",
    );
  });
});
