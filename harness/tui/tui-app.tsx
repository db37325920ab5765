import { useInput, useStdout } from 'ink';
import { type ReactElement, useEffect, useState } from 'react';
import { Screen } from './components/screen.js';
import { keysFromInk } from './key-from-ink.js';
import type { BlockLineCache } from './render/line-cache.js';
import type { TuiController } from './tui-controller.js';

export interface TuiAppProps {
  controller: TuiController;
  cache: BlockLineCache;
  now: () => number;
}

/** The interactive UI: keys and resizes into the controller, its states onto the Screen. */
export function TuiApp({ controller, cache, now }: TuiAppProps): ReactElement {
  const { stdout } = useStdout();
  const [state, setState] = useState(controller.current);

  useEffect(() => {
    const unlisten = controller.listen(setState);
    const onResize = (): void =>
      controller.dispatch({ type: 'resize', columns: stdout.columns, rows: stdout.rows });
    stdout.on('resize', onResize);
    return () => {
      unlisten();
      stdout.off('resize', onResize);
    };
  }, [controller, stdout]);

  useInput((input, key) => {
    for (const each of keysFromInk(input, key)) controller.dispatch({ type: 'key', key: each, now: now() });
  });

  return <Screen state={state} cache={cache} />;
}
