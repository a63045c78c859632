// Replaced at build time by esbuild's `define` with package.json's version.
declare const __SCHEDCTL_VERSION__: string | undefined;
export const VERSION: string = typeof __SCHEDCTL_VERSION__ === 'string' ? __SCHEDCTL_VERSION__ : '0.0.0-dev';
