// What an importer tells the user beside the file it writes: every setting it could not map
// and why, and the environment variables the file's ${ENV} references need. Shared by the
// importers, so that each reports in the same words.

export interface ReportLine {
  /** Where in the source: "endpoint api-health", "alerting.twilio". */
  where: string;
  /** What was not mapped (or mapped only in part) and why. */
  why: string;
}

export interface Variable {
  name: string;
  /** What to set it to, without the value: "the webhook-url of alerting.slack". */
  holds: string;
}

/** A whole `${NAME}` or `$NAME`, as Go's os.ExpandEnv (Gatus) and outpost.yaml read them. */
const WHOLE_REFERENCE = /^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))$/;
const ANY_REFERENCE = /\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))/g;

export class ImportReport {
  readonly lines: ReportLine[] = [];
  private readonly variables = new Map<string, Variable>();

  unmapped(where: string, why: string): void {
    this.lines.push({ where, why });
  }

  /**
   * A secret as a `${NAME}` reference: an existing whole reference stays itself, anything
   * else gets a variable named after `base` (made unique), so that the value is never written.
   */
  secret(base: string, value: string, holds: string): string {
    const whole = WHOLE_REFERENCE.exec(value.trim());
    if (whole) return this.reference(whole[1] ?? whole[2]!, 'referenced by the imported configuration');
    return this.reference(this.uniqueName(base), holds);
  }

  /** A non-secret text whose `$NAME` references become `${NAME}` (what outpost.yaml reads), each listed. */
  text(value: string): string {
    return value.replace(ANY_REFERENCE, (_, braced: string | undefined, bare: string | undefined) => this.reference(braced ?? bare!, 'referenced by the imported configuration'));
  }

  listVariables(): Variable[] {
    return [...this.variables.values()];
  }

  /** The report as printed on standard error. */
  format(source: string): string[] {
    const out: string[] = [];
    if (this.lines.length === 0) out.push(`Everything in ${source} was mapped.`);
    else {
      out.push(`Not mapped from ${source} (${this.lines.length}):`);
      for (const l of this.lines) out.push(`  - ${l.where}: ${l.why}`);
    }
    const variables = this.listVariables();
    if (variables.length > 0) {
      out.push('Set these environment variables before outpost apply:');
      const width = Math.max(...variables.map((v) => v.name.length));
      for (const v of variables) out.push(`  ${v.name.padEnd(width)}  ${v.holds}`);
    }
    return out;
  }

  private reference(name: string, holds: string): string {
    if (!this.variables.has(name)) this.variables.set(name, { name, holds });
    return `\${${name}}`;
  }

  private uniqueName(base: string): string {
    const name = variableName(base);
    let unique = name;
    for (let n = 2; this.variables.has(unique); n++) unique = `${name}_${n}`;
    return unique;
  }
}

/** "api health", "webhook-url" -> "API_HEALTH_WEBHOOK_URL": letters, digits and _, not starting with a digit. */
export function variableName(...parts: string[]): string {
  const name = parts
    .join('_')
    .toUpperCase()
    .replace(/[^A-Z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '');
  return /^[A-Z_]/.test(name) ? name : `V_${name}`;
}
