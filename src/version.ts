// Replaced at build time by esbuild's `define` with package.json's version.
declare const __SCHEDCTL_VERSION__: string | undefined;
export const VERSION: string = typeof __SCHEDCTL_VERSION__ === 'string' ? __SCHEDCTL_VERSION__ : '0.0.0-dev';

/**
 * What `--version` names: the version, the Node it runs on and the platform (what a bug report
 * needs). bin/schedctl.js prints the same line itself when `--version` is alone (its fast path).
 */
export function versionLine(): string {
  return `schedctl ${VERSION} (Node.js ${process.version}, ${process.platform}-${process.arch})`;
}

/** `--version --json`. */
export function versionDocument(): { version: string; node: string; platform: string; arch: string } {
  return { version: VERSION, node: process.version, platform: process.platform, arch: process.arch };
}
