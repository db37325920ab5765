import { Box, Text } from 'ink';
import type { ReactElement } from 'react';
import { inertText } from '../../terminal/inert-text.js';
import { type StatusPart, statusLayout, statusSegments } from '../render/status-line.js';
import type { UiState } from '../ui-state.js';

/**
 * `MODE [ ACTIVITY · what is happening ] [ i:1234(c:800) o:567 | total i:9999 o:2345 · $0.42 · ctx 38% ] [ NET: off ] model`
 * on one row, laid out by order of importance (`statusLayout`): a narrow
 * terminal loses the token figures first and shortens the message and the
 * model's name before dropping them. NET is green when on, red when off, yellow for an allowlist.
 * Siblings, not nested Text: Ink carries a nested inverse on past its end.
 */
export function StatusBar({ state }: { state: UiState }): ReactElement {
  const segments = statusSegments(state);
  // Plain text only (Ink colours it): a model name or a message from elsewhere is shown, never obeyed.
  const s = { ...segments, doing: inertText(segments.doing), model: inertText(segments.model) };
  const activityColor = s.activity === 'PLAN' ? 'magenta' : 'blue';
  // An allowlist (`3 hosts`) is the middle setting: yellow.
  const netColor =
    s.network === 'on' ? 'green' : s.network === 'off' ? 'red' : s.network === 'unknown' ? 'gray' : 'yellow';
  const paint = (part: StatusPart, i: number): ReactElement => {
    switch (part.role) {
      case 'mode':
        return (
          <Text key={i} inverse bold>
            {part.text}
          </Text>
        );
      case 'activity':
        return (
          <Text key={i} color={activityColor} bold>
            {part.text}
          </Text>
        );
      case 'doing':
        return (
          <Text key={i} color="yellow">
            {part.text}
          </Text>
        );
      case 'usage':
        return <Text key={i}>{part.text}</Text>;
      case 'net':
        return (
          <Text key={i} color={netColor} bold>
            {part.text}
          </Text>
        );
      case 'model':
        return (
          <Text key={i} dimColor>
            {part.text}
          </Text>
        );
    }
  };
  return (
    <Box width={state.size.columns} height={1} overflow="hidden">
      {statusLayout(s, state.size.columns).map(paint)}
    </Box>
  );
}
