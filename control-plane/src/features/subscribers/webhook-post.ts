// Posts one JSON body to a subscriber's webhook over node:http(s), connecting only to addresses
// the guard vetted at this very moment (its lookup), never following redirects. Anything but a
// 2xx answer within the timeout is a failure; a refused address is a permanent one.
import http from 'node:http';
import https from 'node:https';
import { SendError } from '../notifications/senders/sender.js';
import { RefusedAddressError, type WebhookAddressGuard } from './webhook-addresses.js';

const TIMEOUT_MS = 10_000;

export async function postWebhook(target: string, body: string, guard: WebhookAddressGuard): Promise<{ statusCode: number }> {
  const url = new URL(target);
  try {
    guard.vetLiteral(url.hostname.replace(/^\[|\]$/g, ''));
    const statusCode = await new Promise<number>((resolve, reject) => {
      const request = (url.protocol === 'https:' ? https : http).request(
        url,
        {
          method: 'POST',
          agent: false,
          lookup: guard.lookup,
          signal: AbortSignal.timeout(TIMEOUT_MS),
          headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'user-agent': 'outpost-status-page-subscriptions' },
        },
        (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
          res.on('error', reject);
        },
      );
      request.on('error', reject);
      request.end(body);
    });
    if (statusCode < 200 || statusCode > 299) throw new SendError(`HTTP ${statusCode}`, statusCode);
    return { statusCode };
  } catch (err) {
    if (err instanceof SendError) throw err;
    if (err instanceof RefusedAddressError) throw new SendError(err.message, null, true);
    if ((err as Error).name === 'AbortError' || (err as Error).name === 'TimeoutError') throw new SendError(`no answer within ${TIMEOUT_MS} ms`);
    throw new SendError((err as NodeJS.ErrnoException).code ?? (err as Error).message);
  }
}
