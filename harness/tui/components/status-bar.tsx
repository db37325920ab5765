import { Box, Text } from 'ink';
import type { ReactElement } from 'react';
import { inertText } from '../../terminal/inert-text.js';
import { statusSegments } from '../render/status-line.js';
import type { UiState } from '../ui-state.js';

/** Cuts `text` to `width` columns with an ellipsis (status text is single-width characters). */
function clip(text: string, width: number): string {
  if (width <= 0) return '';
  return text.length <= width ? text : `${text.slice(0, Math.max(0, width - 1))}…`;
}

/**
 * `[ MODE ] [ ACTIVITY ] [ i:1234(c:800) o:567 | total i:9999 o:2345 · $0.42 · ctx 38% ] [ NET: off ] model`
 * with what is happening inside the activity's brackets, on one row; NET is
 * green when on, red when off. On a narrow terminal the token figures and the
 * model are cut first: mode, activity and NET always show. Siblings, not nested
 * Text: Ink carries a nested inverse on past its end.
 */
export function StatusBar({ state }: { state: UiState }): ReactElement {
  const s = statusSegments(state);
  // Plain text only (Ink colours it): a model name or a message from elsewhere is shown, never obeyed.
  const doingText = inertText(s.doing);
  const modelText = inertText(s.model);
  const mode = ` ${s.mode} `;
  const activity = ` [ ${s.activity}`;
  const net = ` [ NET: ${s.network} ]`;
  // A long message is cut, never the badges: Ink would shrink every part of the row to fit it.
  const doing = clip(
    doingText !== '' ? ` · ${doingText}` : '',
    state.size.columns - mode.length - activity.length - ' ] '.length - net.length,
  );
  const fixed = mode.length + activity.length + doing.length + ' ] '.length + net.length;
  const room = Math.max(0, state.size.columns - fixed);
  const usageText = `[ ${[`${s.turn} | ${s.total}`, s.cost, s.context].filter((part) => part !== '').join(' · ')} ]`;
  const usage = clip(usageText, room);
  const model = clip(` ${modelText}`, room - usage.length);
  const activityColor = s.activity === 'PLAN' ? 'magenta' : 'blue';
  return (
    <Box width={state.size.columns} height={1} overflow="hidden">
      <Text inverse bold>
        {mode}
      </Text>
      <Text color={activityColor} bold>
        {activity}
      </Text>
      {doing !== '' && <Text color="yellow">{doing}</Text>}
      <Text color={activityColor} bold>
        {' ] '}
      </Text>
      <Text>{usage}</Text>
      <Text
        color={
          s.network === 'on'
            ? 'green'
            : s.network === 'off'
              ? 'red'
              : s.network === 'unknown'
                ? 'gray'
                : 'yellow'
        }
        bold
      >
        {net}
      </Text>
      <Text dimColor>{model}</Text>
    </Box>
  );
}
