// One outbound HTTP request of a notification, with a timeout; anything but 2xx is a failure.
import { SendError, type SendOutcome } from './sender.js';

const TIMEOUT_MS = 10_000;

export async function httpSend(url: string, init: { method?: string; headers?: Record<string, string>; body: string }): Promise<SendOutcome> {
  let res: Response;
  try {
    res = await fetch(url, { method: init.method ?? 'POST', headers: init.headers, body: init.body, redirect: 'manual', signal: AbortSignal.timeout(TIMEOUT_MS) });
  } catch (err) {
    const cause = (err as { cause?: { code?: string; message?: string } }).cause;
    if ((err as Error).name === 'TimeoutError') throw new SendError(`no answer within ${TIMEOUT_MS} ms`);
    throw new SendError(cause?.code ?? cause?.message ?? (err as Error).message);
  }
  await res.arrayBuffer().catch(() => undefined);
  if (res.status < 200 || res.status > 299) throw new SendError(`HTTP ${res.status}`, res.status);
  return { statusCode: res.status };
}

export function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<SendOutcome> {
  return httpSend(url, { headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
}
