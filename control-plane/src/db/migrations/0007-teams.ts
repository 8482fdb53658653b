import { Migration } from '@mikro-orm/migrations';

export class Migration0007Teams extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table teams (
        id uuid primary key,
        organization_id uuid not null references organizations (id) on delete cascade,
        name text not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create unique index teams_organization_name_key on teams (organization_id, lower(name));
      create table team_members (
        team_id uuid not null references teams (id) on delete cascade,
        user_id uuid not null references users (id) on delete cascade,
        primary key (team_id, user_id)
      );
      create index team_members_user_idx on team_members (user_id);

      -- Whoever leaves an organization leaves its teams, whichever path removed them.
      create function outpost_leave_teams() returns trigger
        language plpgsql as $$
          begin
            delete from team_members tm using teams t
             where tm.team_id = t.id and t.organization_id = old.organization_id and tm.user_id = old.user_id;
            return old;
          end
        $$;
      create trigger memberships_leave_teams after delete on memberships
        for each row execute function outpost_leave_teams();

      -- Deliveries to people of a team: an e-mail address instead of a channel.
      alter table deliveries alter column channel_id drop not null;
      alter table deliveries add column recipient text;
      alter table deliveries add constraint deliveries_target_check check ((channel_id is null) <> (recipient is null));
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      alter table deliveries drop constraint deliveries_target_check;
      alter table deliveries drop column recipient;
      drop trigger memberships_leave_teams on memberships; drop function outpost_leave_teams();
      drop table team_members; drop table teams;
    `);
  }
}
