import { EntitySchema, type Opt } from '@mikro-orm/core';

export interface UserRecord {
  id: string;
  email: string;
  fullName: string;
  passwordHash: string;
  createdAt: Opt<Date>;
  updatedAt: Opt<Date>;
}

export const UserEntity = new EntitySchema<UserRecord>({
  name: 'User',
  tableName: 'users',
  properties: {
    id: { type: 'uuid', primary: true },
    email: { type: 'text', unique: true },
    fullName: { type: 'text' },
    passwordHash: { type: 'text', lazy: true },
    createdAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date() },
    updatedAt: { type: 'Date', columnType: 'timestamptz', onCreate: () => new Date(), onUpdate: () => new Date() },
  },
});
