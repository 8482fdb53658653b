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
    configVersion: { type: 'integer' },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
