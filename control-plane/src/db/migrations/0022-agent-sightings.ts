import { Migration } from '@mikro-orm/migrations';

/**
 * When an agent goes silent (issue 39): every agent that ever connected, platform agents
 * (organization null, serving every organization) and an organization's registered agents
 * alike, with where it checks from and when it was last known to be connected. The
 * watchdog compares these with the live sessions: an agent without a session for
 * AGENT_OFFLINE_SECONDS is declared offline once (`offline_at`, claimed by one replica), and
 * its alerts open then. A registered agent's row goes with the agent; a platform agent's is
 * forgotten by the watchdog after a week without it. Stale services (migration 0020) get an
 * index of their own.
 */
export class Migration0022AgentSightings extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table agent_sightings (
        agent_id uuid primary key,
        organization_id uuid references organizations (id) on delete cascade,
        registered_agent_id uuid references agents (id) on delete cascade,
        location text not null,
        hostname text not null default '',
        -- When it first connected (the database's time, as services' created_at), when it last
        -- connected, and the last moment it was known connected.
        first_seen_at timestamptz not null default now(),
        connected_at timestamptz not null,
        last_seen_at timestamptz not null,
        -- When the watchdog found it offline; null while it is online or within its grace.
        offline_at timestamptz
      );
      create index agent_sightings_location_idx on agent_sightings (location);
      -- The few stale services, found without reading the others.
      create index services_stale_idx on services (organization_id) where stale;
    `);
  }

  override async down(): Promise<void> {
    this.addSql('drop index services_stale_idx; drop table agent_sightings;');
  }
}
