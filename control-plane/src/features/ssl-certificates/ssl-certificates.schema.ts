// Request and response shapes of /ssl-certificates (API.md "Other resource groups").
import { X509Certificate } from 'node:crypto';
import { z } from 'zod';
import { DEFAULT_CERTIFICATE_WARN_DAYS } from '../../../../shared/src/days-remaining.js';
import { isHost, withoutBrackets } from '../../../../shared/src/endpoints.js';
import type { SslCertificateView } from './ssl-certificates.service.js';

const LOCATION = /^[a-z0-9][a-z0-9_.-]{0,62}$/i;
const PEM_BLOCK = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** Every certificate of a PEM bundle parses, and there is at least one. */
function isPemBundle(value: string): boolean {
  const blocks = value.match(PEM_BLOCK) ?? [];
  if (blocks.length === 0 || blocks.length > 50) return false;
  try {
    for (const block of blocks) new X509Certificate(block);
    return true;
  } catch {
    return false;
  }
}

const fields = {
  name: z.string({ message: 'name must be a string' }).trim().min(1, 'name must not be empty').max(200, 'name must be at most 200 characters'),
  // A bare host: "example.com", "10.0.0.5", "::1" or "[::1]"; no scheme, no port.
  hostname: z
    .string({ message: 'hostname must be a string' })
    .trim()
    .toLowerCase()
    .transform(withoutBrackets)
    .refine(isHost, 'hostname must be a host name or an IP address, without scheme, port or path'),
  port: z.number({ message: 'port must be an integer' }).int('port must be an integer').min(1, 'port must be from 1 to 65535').max(65535, 'port must be from 1 to 65535'),
  warn_days: z.number({ message: 'warn_days must be an integer' }).int('warn_days must be an integer').min(1, 'warn_days must be from 1 to 365').max(365, 'warn_days must be from 1 to 365'),
  location: z.string({ message: 'location must be a string' }).regex(LOCATION, 'a location is 1-63 letters, digits, dots, dashes or underscores'),
  // When set, the only trust roots of the check (an internal CA); else the agent's system store.
  ca_certificate: z
    .string({ message: 'ca_certificate must be a PEM string' })
    .max(65_536, 'ca_certificate must be at most 64 KiB')
    .refine(isPemBundle, 'ca_certificate must be one or more PEM certificates (-----BEGIN CERTIFICATE-----)')
    .nullable(),
};

export const CreateSslCertificateInput = z.strictObject({
  name: fields.name.optional(),
  hostname: fields.hostname,
  port: fields.port.default(443),
  warn_days: fields.warn_days.default(DEFAULT_CERTIFICATE_WARN_DAYS),
  location: fields.location.default('local'),
  ca_certificate: fields.ca_certificate.default(null),
});
export type CreateSslCertificateInput = z.infer<typeof CreateSslCertificateInput>;

// Read-only fields a client may echo back from a GET; they are accepted and ignored.
const echoed = z.unknown().optional().meta({ readOnly: true });
const readOnly = {
  id: echoed, organization_id: echoed, service_id: echoed, status: echoed, subject: echoed, issuer: echoed, valid_from: echoed,
  valid_to: echoed, days_remaining: echoed, last_checked_at: echoed, message: echoed, created_at: echoed, updated_at: echoed,
};

export const UpdateSslCertificateInput = z.strictObject({
  ...readOnly,
  name: fields.name.optional(),
  hostname: fields.hostname.optional(),
  port: fields.port.optional(),
  warn_days: fields.warn_days.optional(),
  location: fields.location.optional(),
  ca_certificate: fields.ca_certificate.optional(),
});
export type UpdateSslCertificateInput = z.infer<typeof UpdateSslCertificateInput>;

export function toSslCertificateJson(c: SslCertificateView) {
  return {
    id: c.id,
    organization_id: c.organizationId,
    service_id: c.serviceId,
    name: c.name,
    hostname: c.hostname,
    port: c.port,
    warn_days: c.warnDays,
    location: c.location,
    ca_certificate: c.caCertificate,
    status: c.status,
    subject: c.latest?.subject ?? null,
    issuer: c.latest?.issuer ?? null,
    valid_from: c.latest?.validFrom?.toISOString() ?? null,
    valid_to: c.latest?.validTo?.toISOString() ?? null,
    days_remaining: c.daysRemaining,
    last_checked_at: c.lastCheckedAt?.toISOString() ?? null,
    message: c.latest?.message ?? null,
    created_at: c.createdAt.toISOString(),
    updated_at: c.updatedAt.toISOString(),
  };
}

export const SslCertificateJson = z
  .object({
    id: z.uuid(),
    organization_id: z.uuid(),
    service_id: z.uuid(),
    name: z.string(),
    hostname: z.string(),
    port: z.int(),
    warn_days: z.int(),
    location: z.string(),
    ca_certificate: z.string().nullable(),
    status: z.enum(['GREEN', 'YELLOW', 'RED']).nullable().meta({ description: 'null until the first check' }),
    subject: z.string().nullable(),
    issuer: z.string().nullable(),
    valid_from: z.iso.datetime().nullable(),
    valid_to: z.iso.datetime().nullable(),
    days_remaining: z.int().nullable(),
    last_checked_at: z.iso.datetime().nullable(),
    message: z.string().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'SslCertificate' });
