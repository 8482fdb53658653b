// An LDAP check's search filter, checked when the service is saved rather than on its first run.
// ldapts (the agent's LDAP client) parses it, loaded on the first LDAP filter only: it costs
// the control plane 6 MB of memory that services without one never need.
import { createRequire } from 'node:module';

interface FilterParser {
  parseString(filter: string): unknown;
}

const require = createRequire(import.meta.url);
let parser: FilterParser | undefined;

/** Why `filter` is not an RFC 4515 filter, or undefined when it is. */
export function ldapFilterProblem(filter: string): string | undefined {
  parser ??= (require('ldapts') as { FilterParser: FilterParser }).FilterParser;
  try {
    parser.parseString(filter);
    return undefined;
  } catch (err) {
    // ldapts appends the whole filter, which the field already shows.
    return `not an LDAP filter (RFC 4515): ${(err as Error).message.replace(/\.? Full string: .*$/s, '')}`;
  }
}
