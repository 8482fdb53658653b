// Every migration, in order. Listed explicitly (no directory scan) so the compiled build
// and the TypeScript sources run the same list.
import type { MigrationObject } from '@mikro-orm/core';
import { Migration0001Initial } from './0001-initial.js';

export const MIGRATIONS: MigrationObject[] = [{ name: '0001-initial', class: Migration0001Initial }];
