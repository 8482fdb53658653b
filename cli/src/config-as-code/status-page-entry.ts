// A status page in outpost.yaml: who may see it (its password only as the name of an
// environment variable), its custom domain, its services and groups of services (components).
import { z } from 'zod';
import { normalRange, notARange, PAGE_ACCESS, PAGE_DOMAIN, PAGE_DOMAIN_MAX_LENGTH, PAGE_SLUG } from '../../../shared/src/status-page-fields.js';

const name = z.string().trim().min(1, 'name must not be empty').max(200);
const names = (what: string) => z.array(z.string().min(1)).describe(`${what}, by name`);

const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** An address or CIDR range in the normal form the API keeps, so that the plan compares like with like. */
const cidr = z.string().transform((value, ctx) => {
  const range = normalRange(value);
  if (range === null) ctx.addIssue({ code: 'custom', message: notARange(value) });
  return range ?? z.NEVER;
});

export const StatusPageGroupEntry = z
  .strictObject({ name, services: names('the services of the component, in this order').default([]) })
  .describe('a component: services shown together under a name, with the worst status of its services');

export const StatusPageEntry = z
  .strictObject({
    slug: z.string().regex(PAGE_SLUG),
    title: z.string().min(1),
    description: z.string().nullable().default(null),
    access: z
      .enum(PAGE_ACCESS)
      .optional()
      .describe('who may see the page: anyone (public, the default); anyone with its password (password, with password_env); signed-in members of the organization (members); clients from ip_allowlist (ip_allowlist)'),
    public: z.boolean().optional().describe('the older shorthand of access: true is public, false is members'),
    password_env: z
      .string()
      .regex(ENV_NAME, 'password_env is the name of an environment variable, e.g. STATUS_PASSWORD')
      .optional()
      .describe('for access password: the environment variable holding the password (8 to 200 characters), read when applied and never exported; left out, or unset, the stored password is kept'),
    ip_allowlist: z.array(cidr).default([]).describe('IPv4 and IPv6 addresses or CIDR ranges whose clients see the page when access is ip_allowlist'),
    custom_domain: z
      .string()
      .trim()
      .toLowerCase()
      .max(PAGE_DOMAIN_MAX_LENGTH)
      .regex(PAGE_DOMAIN, 'custom_domain must be a host name such as status.example.com')
      .nullable()
      .default(null)
      .describe('a request whose Host is this name gets the page at / (point the name, and a certificate, at Outpost)'),
    auto_incidents: z.boolean().default(true).describe('show the open alerts of its services as incidents (default true)'),
    services: names('the services shown outside any group, in this order').default([]),
    groups: z.array(StatusPageGroupEntry).default([]).describe('components, in this order; a service belongs to one group at most'),
  })
  .superRefine((p, ctx) => {
    const issue = (path: (string | number)[], message: string) => ctx.addIssue({ code: 'custom', path, message });
    if (p.public === true && p.access !== undefined && p.access !== 'public') issue(['public'], `public: true contradicts access: ${p.access}; give access only`);
    if (p.public === false && p.access === 'public') issue(['public'], 'public: false contradicts access: public; give access only');
    if (p.password_env !== undefined && p.access !== 'password') issue(['password_env'], 'password_env is for a page whose access is password');
    if (p.access === 'ip_allowlist' && p.ip_allowlist.length === 0) issue(['ip_allowlist'], 'a page whose access is ip_allowlist needs at least one range');
    const grouped = new Set<string>();
    p.groups.forEach((g, i) =>
      g.services.forEach((service, j) => {
        if (grouped.has(service)) issue(['groups', i, 'services', j], `"${service}" is in another group already; a service belongs to one group at most`);
        grouped.add(service);
      }),
    );
  })
  // As the server reads it: one access, and the services outside groups (the API lists grouped
  // ones too; naming one under services as well changes nothing).
  .transform(({ public: isPublic, ...p }) => {
    const grouped = new Set(p.groups.flatMap((g) => g.services));
    return { ...p, access: p.access ?? (isPublic === false ? 'members' : 'public'), services: p.services.filter((s) => !grouped.has(s)) };
  })
  .describe('a status page, keyed by its slug');
export type StatusPageEntry = z.infer<typeof StatusPageEntry>;
