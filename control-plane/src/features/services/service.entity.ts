import { EntitySchema, type Opt } from '@mikro-orm/core';
import type { CheckType } from '../../../../shared/src/check-types.js';
import type { ServiceStatus } from '../../../../shared/src/status.js';

export interface ServiceRecord {
  id: string;
  organizationId: string;
  name: string;
  description: string | null;
  environment: string | null;
  endpoint: string;
  checkType: CheckType;
  checkIntervalSeconds: number;
  timeoutSeconds: number;
  tags: string[];
  locations: string[];
  options: Record<string, unknown>;
  status: ServiceStatus | null;
  lastCheckedAt: Date | null;
  lastResponseTimeMs: number | null;
  /** No agent checks a paused service; its status stays as it was until it is resumed. */
  paused: boolean;
  /** No result for three intervals (or every location dark) while it should be checked; set by the watchdog, cleared by a result. */
  stale: boolean;
  /** Its status changes too often to be told of each change (FLAP_CHANGES within FLAP_WINDOW_MINUTES). */
  flapping: boolean;
  /** Grows with every change agents must hear about; makes assignment replays idempotent. */
  configVersion: number;
  createdAt: Opt<Date>;
  updatedAt: Opt<Date>;
}

export const ServiceEntity = new EntitySchema<ServiceRecord>({
  name: 'Service',
  tableName: 'services',
  properties: {
    id: { type: 'uuid', primary: true },
    organizationId: { type: 'uuid' },
    name: { type: 'text' },
    description: { type: 'text', nullable: true },
    environment: { type: 'text', nullable: true },
    endpoint: { type: 'text' },
    checkType: { type: 'text' },
    checkIntervalSeconds: { type: 'integer' },
    timeoutSeconds: { type: 'integer' },
    tags: { type: 'json' },
    locations: { type: 'json' },
    options: { type: 'json' },
    status: { type: 'text', nullable: true },
    lastCheckedAt: { type: 'Date', columnType: 'timestamptz', nullable: true },
    lastResponseTimeMs: { type: 'double', nullable: true },
    paused: { type: 'boolean' },
    stale: { type: 'boolean' },
    flapping: { type: 'boolean' },
    configVersion: { type: 'integer' },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
