// The proxy an HTTP or WebSocket check goes through: its `proxy` option, a URL, or "env" for
// the agent's HTTP_PROXY, HTTPS_PROXY and NO_PROXY. The tunnel through one is
// control/proxy-tunnel.ts's, as for the agent's own stream.
import { withoutBrackets } from '../../../shared/src/endpoints.js';
import { proxyFor } from '../control/proxy-tunnel.js';

export type ProxyResolver = (url: URL) => URL | undefined;

/**
 * Where the checks of a target go through. "env" is read here, once per target: the probers are
 * built without the agent's run configuration, which is where config.ts reads the rest of it.
 */
export function proxyResolver(option: string | undefined, env: Record<string, string | undefined> = process.env): ProxyResolver {
  if (option === undefined) return () => undefined;
  if (option !== 'env') {
    const proxy = httpProxyUrl(option, 'proxy');
    return () => proxy;
  }
  // As curl reads them; the lower-case name first.
  const httpProxy = env.http_proxy || env.HTTP_PROXY;
  const httpsProxy = env.https_proxy || env.HTTPS_PROXY;
  const noProxy = env.no_proxy || env.NO_PROXY;
  return (url) => {
    const secure = url.protocol === 'https:' || url.protocol === 'wss:';
    const value = secure ? httpsProxy : httpProxy;
    if (!value) return undefined;
    // curl takes a proxy without a scheme as http://.
    const proxy = httpProxyUrl(value.includes('://') ? value : `http://${value}`, secure ? 'HTTPS_PROXY' : 'HTTP_PROXY');
    return proxyFor(withoutBrackets(url.hostname), { url: proxy.href, noProxy });
  };
}

/** The proxy is spoken to in plain HTTP: a TLS connection to the proxy itself is not supported. */
function httpProxyUrl(value: string, name: string): URL {
  const proxy = URL.canParse(value) ? new URL(value) : undefined;
  if (proxy?.protocol !== 'http:') throw new Error(`${name} is not an http:// proxy URL`);
  return proxy;
}
