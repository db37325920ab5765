/**
 * The entry of dist/cli/tui-vendor.js: the terminal UI's packages as one ES module. Ink (through
 * yoga-layout and its own reconciler) uses top-level await, which a CommonJS bundle cannot hold;
 * the rest of the CLI, the terminal UI's own code included, reaches these through the `import()`
 * the bin hands in (see esm-host.ts), so that both sides share one React. The Markdown renderer (marked,
 * marked-terminal with highlight.js: 2.2 MB) is here too: only the terminal UI uses it, and it
 * would otherwise be read on every start of every command.
 */
import * as ink from 'ink';
import * as marked from 'marked';
import * as markedTerminal from 'marked-terminal';
import * as react from 'react';
import * as jsxRuntime from 'react/jsx-runtime';

export { ink, jsxRuntime, marked, markedTerminal, react };
