import type { EntityManager } from '@mikro-orm/postgresql';
import type { Tx } from '../../db/tx.js';
import type { Channel } from './channel.js';

export interface ChannelsRepository {
  insert(channel: Omit<Channel, 'createdAt' | 'updatedAt'>): Promise<Channel>;
  find(organizationId: string, channelId: string): Promise<Channel | null>;
  list(organizationId: string): Promise<Channel[]>;
  update(channelId: string, changes: Partial<Pick<Channel, 'name' | 'config' | 'enabled'>>): Promise<Channel>;
  delete(channelId: string): Promise<void>;
  countOwned(organizationId: string, channelIds: string[]): Promise<number>;
  /** The enabled channels of the organizations, read in the caller's transaction. */
  enabledFor(tx: Tx, organizationIds: string[]): Promise<Channel[]>;
  /** For the `organization` of message templates. */
  organizationName(organizationId: string): Promise<string | null>;
}

const COLUMNS = 'id, organization_id, name, channel_type, config, enabled, created_at, updated_at';

export function createChannelsRepository(em: () => EntityManager): ChannelsRepository {
  const run = (sql: string, params: unknown[]) => em().execute<Record<string, unknown>[]>(sql, params);
  return {
    async insert(c) {
      const [row] = await run(
        `insert into notification_channels (id, organization_id, name, channel_type, config, enabled) values (?, ?, ?, ?, ?::jsonb, ?) returning ${COLUMNS}`,
        [c.id, c.organizationId, c.name, c.channelType, JSON.stringify(c.config), c.enabled],
      );
      return fromRow(row!);
    },
    async find(organizationId, channelId) {
      const [row] = await run(`select ${COLUMNS} from notification_channels where id = ? and organization_id = ?`, [channelId, organizationId]);
      return row ? fromRow(row) : null;
    },
    async list(organizationId) {
      return (await run(`select ${COLUMNS} from notification_channels where organization_id = ? order by created_at, id`, [organizationId])).map(fromRow);
    },
    async update(channelId, c) {
      const [row] = await run(
        `update notification_channels set name = coalesce(?, name), config = coalesce(?::jsonb, config), enabled = coalesce(?, enabled), updated_at = now()
          where id = ? returning ${COLUMNS}`,
        [c.name ?? null, c.config ? JSON.stringify(c.config) : null, c.enabled ?? null, channelId],
      );
      return fromRow(row!);
    },
    async delete(channelId) {
      await run('delete from notification_channels where id = ?', [channelId]);
    },
    async countOwned(organizationId, channelIds) {
      const [row] = await run(
        `select count(*) as n from notification_channels where organization_id = ? and id in (${channelIds.map(() => '?').join(',')})`,
        [organizationId, ...channelIds],
      );
      return Number(row?.n ?? 0);
    },
    async enabledFor(tx, organizationIds) {
      const rows = await tx.execute<Record<string, unknown>[]>(`select ${COLUMNS} from notification_channels where organization_id = any(?::uuid[]) and enabled order by created_at, id`, [
        `{${organizationIds.join(',')}}`,
      ]);
      return rows.map(fromRow);
    },
    async organizationName(organizationId) {
      const [row] = await run('select name from organizations where id = ?', [organizationId]);
      return row ? String(row.name) : null;
    },
  };
}

export function fromRow(r: Record<string, unknown>): Channel {
  return {
    id: String(r.id),
    organizationId: String(r.organization_id),
    name: String(r.name),
    channelType: r.channel_type as Channel['channelType'],
    config: (r.config ?? {}) as Record<string, unknown>,
    enabled: Boolean(r.enabled),
    createdAt: new Date(r.created_at as string),
    updatedAt: new Date(r.updated_at as string),
  };
}
