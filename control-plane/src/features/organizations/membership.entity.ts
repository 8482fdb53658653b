import { EntitySchema, type Opt } from '@mikro-orm/core';

export type Role = 'owner' | 'admin' | 'member' | 'viewer';

export interface MembershipRecord {
  organizationId: string;
  userId: string;
  role: Role;
  createdAt: Opt<Date>;
}

export const MembershipEntity = new EntitySchema<MembershipRecord>({
  name: 'Membership',
  tableName: 'memberships',
  properties: {
    organizationId: { type: 'uuid', primary: true },
    userId: { type: 'uuid', primary: true },
    role: { type: 'text' },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
  },
});
