// The gRPC endpoint's TLS files: a control plane whose certificate expired, or whose key does
// not match it, refuses every agent's handshake.
import { createPrivateKey, X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fail, ok, warn, type CheckResult } from './check.js';

export const EXPIRY_WARNING_DAYS = 14;
const DAY_MS = 86_400_000;
const NAME = 'grpc tls';

export interface TlsFiles {
  certFile: string;
  keyFile: string;
  clientCaFile?: string;
}

/** A problem that ends the check, with the line it becomes. */
class Finding extends Error {
  constructor(readonly result: CheckResult) {
    super(result.message);
  }
}

function read(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Finding(fail(NAME, `cannot read the ${what} ${file}: ${(err as Error).message}`, `Make ${file} readable by the control plane's user.`));
  }
}

function certificate(file: string, what: string): X509Certificate {
  try {
    return new X509Certificate(read(file, what));
  } catch (err) {
    if (err instanceof Finding) throw err;
    throw new Finding(fail(NAME, `the ${what} ${file} is not a PEM certificate: ${(err as Error).message}`, `Put the PEM certificate in ${file}.`));
  }
}

/** Fails an expired or not yet valid certificate; answers the days it has left. */
function daysLeft(cert: X509Certificate, file: string, what: string, now: Date): number {
  const notBefore = new Date(cert.validFrom);
  const notAfter = new Date(cert.validTo);
  const renew = `Renew the ${what} ${file} and restart the control plane.`;
  if (notAfter <= now) throw new Finding(fail(NAME, `the ${what} ${file} expired on ${notAfter.toISOString()}`, renew));
  if (notBefore > now) throw new Finding(fail(NAME, `the ${what} ${file} is valid only from ${notBefore.toISOString()}`, `Check this host's clock, or issue ${file} again.`));
  return (notAfter.getTime() - now.getTime()) / DAY_MS;
}

function matchKey(cert: X509Certificate, files: TlsFiles): void {
  let matches: boolean;
  try {
    matches = cert.checkPrivateKey(createPrivateKey(read(files.keyFile, 'key')));
  } catch (err) {
    if (err instanceof Finding) throw err;
    throw new Finding(fail(NAME, `the key ${files.keyFile} is not a PEM private key (or needs a passphrase): ${(err as Error).message}`, `Put the unencrypted PEM private key in ${files.keyFile}.`));
  }
  if (!matches) throw new Finding(fail(NAME, `the key ${files.keyFile} does not belong to the certificate ${files.certFile}`, `Set GRPC_TLS_KEY to the key the certificate was issued for.`));
}

export function checkTlsFiles(files: TlsFiles | undefined, now: Date): CheckResult {
  if (!files) return ok(NAME, 'not configured: agents connect in plaintext (loopback and trusted networks only)');
  try {
    const cert = certificate(files.certFile, 'certificate');
    const days = daysLeft(cert, files.certFile, 'certificate', now);
    matchKey(cert, files);
    const caDays = files.clientCaFile ? daysLeft(certificate(files.clientCaFile, 'client CA'), files.clientCaFile, 'client CA', now) : Infinity;
    const soonest = Math.min(days, caDays);
    const message = `certificate ${files.certFile} (${cert.subject.replace(/\n/g, ', ')}) valid until ${new Date(cert.validTo).toISOString()}, key matches${files.clientCaFile ? ', client CA readable' : ''}`;
    if (soonest < EXPIRY_WARNING_DAYS) {
      const file = soonest === days ? files.certFile : files.clientCaFile;
      return warn(NAME, `${message}; ${file} expires in ${Math.floor(soonest)} day(s)`, `Renew ${file} and restart the control plane before it expires.`);
    }
    return ok(NAME, message);
  } catch (err) {
    if (err instanceof Finding) return err.result;
    throw err;
  }
}
