// Names and ids of the resources a file refers to by name (services, heartbeats' services,
// channels, escalation policies, status pages by slug), kept up to date while apply creates
// resources.
import { CliError } from '../cli-error.js';

export class NameIndex {
  private readonly ids = new Map<string, string[]>();
  private readonly names = new Map<string, string>();

  constructor(
    readonly what: string,
    rows: { id: string; name: string }[] = [],
  ) {
    for (const row of rows) this.add(row.id, row.name);
  }

  add(id: string, name: string): void {
    this.names.set(id, name);
    this.ids.set(name, [...(this.ids.get(name) ?? []), id]);
  }

  remove(id: string): void {
    const name = this.names.get(id);
    if (name === undefined) return;
    this.names.delete(id);
    this.ids.set(name, (this.ids.get(name) ?? []).filter((x) => x !== id));
  }

  has(name: string): boolean {
    return (this.ids.get(name)?.length ?? 0) > 0;
  }

  /** The name, or the id itself when it names nothing this index knows (shown, never lost). */
  nameOf(id: string): string {
    return this.names.get(id) ?? id;
  }

  idOf(name: string): string {
    const ids = this.ids.get(name) ?? [];
    if (ids.length === 1) return ids[0]!;
    throw new CliError(ids.length === 0 ? `no ${this.what} named "${name}"` : `${ids.length} ${this.what}s are named "${name}"; names must be unique`);
  }
}

export interface References {
  services: NameIndex;
  channels: NameIndex;
  policies: NameIndex;
  /** Status pages, named by their slugs. */
  pages: NameIndex;
}
