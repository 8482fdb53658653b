// Where each service's runs fall within its interval. A service's offset comes from a hash
// of its id, so services with the same interval are spread out instead of firing together.
import { createHash } from 'node:crypto';

export function offsetMs(serviceId: string, intervalMs: number): number {
  return createHash('sha1').update(serviceId).digest().readUInt32BE(0) % intervalMs;
}

/** The first slot (offset + k * interval) at or after `notBefore`. */
export function nextSlot(notBefore: number, intervalMs: number, offset: number): number {
  const k = Math.ceil((notBefore - offset) / intervalMs);
  return k * intervalMs + offset;
}
