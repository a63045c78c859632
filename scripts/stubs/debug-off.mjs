// https-proxy-agent logs through `debug` (on with DEBUG=https-proxy-agent*), and its first line
// is the proxy's URL, password included: a secret schedctl never prints. --debug has schedctl's
// own lines; this stand-in keeps `debug` (and its `ms`, `supports-color`) out of the bundle.
export default function createDebug() {
  const log = () => undefined;
  log.enabled = false;
  return log;
}
