import type { FakeReply } from './fake-messages-api.js';

/**
 * What a planning agent is scripted to do in the plan-mode tests: try a shell
 * write outside the plan (`tu_escape`: `echo x > outside.txt`, which the
 * kernel must refuse), write `plan` to `.skate/plan.md` (`tu_plan`), then say
 * `The plan is written.`
 */
export function planModeReplies(plan: string): FakeReply[] {
  return [
    {
      type: 'message',
      blocks: [
        { type: 'tool_use', id: 'tu_escape', name: 'shell', input: { command: 'echo x > outside.txt' } },
      ],
    },
    {
      type: 'message',
      blocks: [
        {
          type: 'tool_use',
          id: 'tu_plan',
          name: 'write_file',
          input: { path: '.skate/plan.md', content: plan },
        },
      ],
    },
    { type: 'message', blocks: [{ type: 'text', text: 'The plan is written.' }] },
  ];
}
