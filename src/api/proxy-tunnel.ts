/**
 * The agent for requests that go through a proxy (transport.ts decides which do): a tunnel
 * opened with CONNECT, over which the request goes as it would directly (TLS for an https://
 * API, the plain socket for http://). Loaded only when a proxy variable names a proxy for the
 * API, so no other command pays for it.
 *
 * https-proxy-agent, with one change: when the proxy refuses the tunnel (407, 403, 502, …) it
 * hands the request a fake socket replaying the proxy's answer, so the request would seem to
 * go out and the proxy's 407 page would read as the API's answer. Here the refusal fails the
 * request instead, before it has a socket: the send hook (send-hook.ts) is never called and
 * the failure says, truthfully, that nothing reached the API (failures.ts, ERR_PROXY_TUNNEL).
 */
import type { ClientRequest } from 'node:http';
import type { Socket } from 'node:net';
import { HttpsProxyAgent } from 'https-proxy-agent';

type ConnectOptions = Parameters<HttpsProxyAgent<string>['connect']>[1];

/** The code failures.ts knows a failed tunnel by (Node 24's own proxy support uses it too). */
export const TUNNEL_FAILED = 'ERR_PROXY_TUNNEL';

export class ProxyTunnelAgent extends HttpsProxyAgent<string> {
  constructor(proxy: URL) {
    super(proxy.href, { keepAlive: true });
  }

  override async connect(req: ClientRequest, opts: ConnectOptions): Promise<Socket> {
    // Only the host and port name the proxy in messages: its URL may carry a password.
    const proxy = this.proxy.host;
    let answer: { statusCode: number; statusText: string } | undefined;
    req.once('proxyConnect', (connect: { statusCode: number; statusText: string }) => (answer = connect));
    let socket: Socket;
    try {
      socket = await super.connect(req, opts);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      const why = typeof code === 'string' ? code : (error as Error).message;
      throw tunnelFailed(`could not open a tunnel through the proxy ${proxy} (${why})`, { cause: error });
    }
    if (answer?.statusCode !== 200) {
      socket.destroy();
      const status = answer?.statusCode;
      const text = answer?.statusText ? ` ${answer.statusText}` : '';
      throw tunnelFailed(`the proxy ${proxy} refused the tunnel to the API (HTTP ${status ?? '?'}${text})`, { status });
    }
    return socket;
  }
}

function tunnelFailed(message: string, extra: { status?: number | undefined; cause?: unknown }): Error {
  return Object.assign(new Error(message, { cause: extra.cause }), { code: TUNNEL_FAILED, status: extra.status });
}
