import { EntitySchema, type Opt } from '@mikro-orm/core';

export interface OrganizationRecord {
  id: string;
  name: string;
  slug: string;
  plan: string;
  createdAt: Opt<Date>;
  updatedAt: Opt<Date>;
}

export const OrganizationEntity = new EntitySchema<OrganizationRecord>({
  name: 'Organization',
  tableName: 'organizations',
  properties: {
    id: { type: 'uuid', primary: true },
    name: { type: 'text' },
    slug: { type: 'text', unique: true },
    plan: { type: 'text' },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
