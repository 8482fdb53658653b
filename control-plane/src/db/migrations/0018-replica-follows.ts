import { Migration } from '@mikro-orm/migrations';

/**
 * The organizations each replica's WebSocket clients follow (followed-organizations.ts), so
 * that a replica relays live events only when another replica has a client to give them to.
 * Rows go with their replica's lease; unlogged, like the relayed events themselves.
 */
export class Migration0018ReplicaFollows extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create unlogged table replica_follows (
        replica_id uuid not null references control_plane_replicas (id) on delete cascade,
        organization_id uuid not null,
        primary key (replica_id, organization_id)
      );
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table replica_follows;');
  }
}
