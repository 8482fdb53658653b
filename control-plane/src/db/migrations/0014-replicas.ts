import { Migration } from '@mikro-orm/migrations';

/**
 * Several control-plane replicas on one database. Each live replica holds a lease it renews
 * every few seconds; each open agent stream is a session owned by a replica, and an agent is
 * online while its session's replica holds its lease, so a dead replica leaves no agent online.
 * Live events for WebSocket clients on other replicas wait in cluster_events for a few minutes
 * (NOTIFY carries only their sequence number; a replica whose bus reconnects reads what it
 * missed); unlogged, since a crash ends those clients' streams anyway.
 */
export class Migration0014Replicas extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table control_plane_replicas (
        id uuid primary key,
        started_at timestamptz not null default now(),
        expires_at timestamptz not null
      );
      create table agent_sessions (
        agent_id uuid primary key,
        session_id uuid not null unique,
        replica_id uuid not null references control_plane_replicas (id) on delete cascade,
        location text not null,
        organization_id uuid,
        connected_at timestamptz not null default now()
      );
      create index agent_sessions_location on agent_sessions (location);
      create index agent_sessions_replica on agent_sessions (replica_id);
      create unlogged table cluster_events (
        seq bigserial primary key,
        origin uuid not null,
        created_at timestamptz not null default now(),
        body json not null
      );
      alter table agents drop column connected;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      alter table agents add column connected boolean not null default false;
      drop table cluster_events;
      drop table agent_sessions;
      drop table control_plane_replicas;
    `);
  }
}
