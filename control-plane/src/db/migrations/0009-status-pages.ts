import { Migration } from '@mikro-orm/migrations';

export class Migration0009StatusPages extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      -- The slug is the page's public address, so it is unique across organizations.
      create table status_pages (
        id uuid primary key,
        organization_id uuid not null references organizations (id) on delete cascade,
        slug text not null unique,
        title text not null,
        description text,
        public boolean not null default true,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index status_pages_organization_idx on status_pages (organization_id, created_at);
      -- A deleted service leaves the pages it was on.
      create table status_page_services (
        status_page_id uuid not null references status_pages (id) on delete cascade,
        service_id uuid not null references services (id) on delete cascade,
        position integer not null,
        primary key (status_page_id, service_id)
      );
      create index status_page_services_service_idx on status_page_services (service_id);
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop table status_page_services; drop table status_pages;');
  }
}
