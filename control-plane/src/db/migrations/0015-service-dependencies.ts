import { Migration } from '@mikro-orm/migrations';

/**
 * Service dependencies: while a service's dependency is RED, the service's failures
 * open no alert. One row per edge; deleting either service drops the edge. The index on
 * depends_on_id finds a recovered parent's dependents in the ingest transaction.
 */
export class Migration0015ServiceDependencies extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table service_dependencies (
        service_id uuid not null references services (id) on delete cascade,
        depends_on_id uuid not null references services (id) on delete cascade,
        -- The order the client gave, kept so a GET answers the list as it was written.
        position smallint not null,
        primary key (service_id, depends_on_id),
        constraint service_dependencies_not_self check (service_id <> depends_on_id)
      );
      create index service_dependencies_depends_on on service_dependencies (depends_on_id);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table service_dependencies;');
  }
}
