// Stand-in for when-exit, which atomically (conf's writer) loads to delete its temp files at
// exit: it listens to SIGINT, SIGTERM and a dozen more signals from the moment it loads, then
// re-sends the signal, which changes how schedctl answers Ctrl-C (src/cli.ts, bulk runs).
// schedctl's writes of config.json are synchronous, so no signal handler can run during one;
// a write that fails removes its temp file itself (atomically's `finally`).
export default function whenExit() {
  return () => undefined;
}
