import { spawn } from 'node:child_process';

/**
 * Opens `url` in the desktop's browser when there is one (a display on Linux, or macOS), as an
 * argument of `xdg-open`/`open` (no shell); elsewhere the shown URL is the way. The URL is one a
 * server chose, already checked (`checkAuthUrl`: https, or http on loopback): it is one argv
 * element and never reaches a shell. Whether one was started.
 */
export function openBrowser(url: string): boolean {
  const opener =
    process.platform === 'darwin'
      ? 'open'
      : process.platform === 'linux' && (process.env.DISPLAY || process.env.WAYLAND_DISPLAY)
        ? 'xdg-open'
        : undefined;
  if (!opener) return false;
  try {
    const child = spawn(opener, [url], { stdio: 'ignore', detached: true, shell: false });
    child.on('error', () => undefined);
    child.unref();
    return true;
  } catch {
    // No opener installed: the shown URL is enough.
    return false;
  }
}
