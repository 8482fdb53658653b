// Who the passkeys belong to (the WebAuthn relying party): the host of PUBLIC_URL when it is
// set, else the origin the browser called from, so that a control plane reached as
// http://localhost:8080 works without configuration. Taking the origin from the request is
// safe because the browser signs the origin and RP ID it really used: an assertion is accepted
// only for the RP ID its passkey was made for, whatever a request claims.
import { AppError } from '../../errors.js';

export interface RelyingParty {
  /** The host name (WebAuthn refuses IP addresses). */
  id: string;
  /** The exact origin the browser must report, e.g. https://outpost.example.com. */
  origin: string;
}

/** `publicUrl`: PUBLIC_URL when set; `requestOrigin`: the request's Origin, or its scheme and Host. */
export function relyingPartyFor(publicUrl: string | undefined, requestOrigin: string): RelyingParty {
  let url: URL;
  try {
    url = new URL(publicUrl ?? requestOrigin);
  } catch {
    throw new AppError('VALIDATION_FAILED', 'passkeys need the request to come from a web origin');
  }
  return { id: url.hostname, origin: url.origin };
}
