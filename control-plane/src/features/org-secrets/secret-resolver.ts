// Turns {{secrets.NAME}} in services' options into the organization's secret values. Saved
// options keep the reference; only what is handed to an agent (or run once, unsaved) carries
// the value, so a secret reaches exactly the agents that run a check using it.
import type { SecretBox } from '../../crypto/secret-box.js';
import { validationFailed } from '../../errors.js';
import type { Logger } from '../../logger.js';
import type { OrgSecretsRepository } from './org-secrets.repository.js';
import { findReferences, replaceReferences, SECRET_NAME, type SecretReference } from './secret-references.js';

type Options = Record<string, unknown>;

export interface SecretResolver {
  /** VALIDATION_FAILED naming the path of each reference to a secret the organization does not have. */
  assertDefined(organizationId: string, options: Options): Promise<void>;
  /**
   * For a check run once from an unsaved service body (POST /services/test): its options with
   * every reference replaced by the secret's value; VALIDATION_FAILED as assertDefined.
   */
  resolveSecretReferences(organizationId: string, options: Options): Promise<Options>;
  /** For agents' assignments, in bulk: each service's options with its references replaced; one statement for all. */
  resolveForAgents(services: { organizationId: string; options: Options }[]): Promise<Options[]>;
}

export function createSecretResolver(secrets: OrgSecretsRepository, box: SecretBox, logger: Logger): SecretResolver {
  /** The references of `options`, checked against the organization's secrets: their sealed values by name. */
  async function definedValues(organizationId: string, options: Options): Promise<Map<string, string>> {
    const references = findReferences(options);
    assertWellFormed(references);
    const names = [...new Set(references.map((r) => r.name))];
    const sealed = (await secrets.sealedValues([organizationId], names)).get(organizationId) ?? new Map<string, string>();
    const missing = references.filter((r) => !sealed.has(r.name));
    if (missing.length > 0) {
      const details = missing.map((r) => ({ path: r.path, message: `secret "${r.name}" does not exist` }));
      throw validationFailed(`${details[0]!.path}: ${details[0]!.message}`, details);
    }
    return sealed;
  }

  /** A secret's value; one no key opens becomes empty, so its check fails visibly instead of every assignment. */
  const open = (sealed: string | undefined, name: string, organizationId: string): string => {
    try {
      if (sealed !== undefined) return box.open(sealed);
      logger.warn({ organizationId, secret: name }, 'a service refers to a secret that no longer exists');
    } catch {
      logger.warn({ organizationId, secret: name }, 'a secret cannot be opened with the data keys');
    }
    return '';
  };

  return {
    async assertDefined(organizationId, options) {
      await definedValues(organizationId, options);
    },
    async resolveSecretReferences(organizationId, options) {
      const sealed = await definedValues(organizationId, options);
      return replaceReferences(options, (name) => open(sealed.get(name), name, organizationId));
    },
    async resolveForAgents(services) {
      const wanted = services.map((s) => findReferences(s.options));
      if (wanted.every((w) => w.length === 0)) return services.map((s) => s.options);
      // A malformed name (saved before references were checked) resolves to nothing, unqueried.
      const names = [...new Set(wanted.flat().map((r) => r.name))].filter((name) => SECRET_NAME.test(name));
      const organizations = [...new Set(services.filter((_, i) => wanted[i]!.length > 0).map((s) => s.organizationId))];
      const sealed = await secrets.sealedValues(organizations, names);
      const opened = new Map<string, string>();
      return services.map(({ organizationId, options }, i) => {
        if (wanted[i]!.length === 0) return options;
        return replaceReferences(options, (name) => {
          const key = `${organizationId}/${name}`;
          if (!opened.has(key)) opened.set(key, open(sealed.get(organizationId)?.get(name), name, organizationId));
          return opened.get(key)!;
        });
      });
    },
  };
}

function assertWellFormed(references: SecretReference[]): void {
  const bad = references.filter((r) => !SECRET_NAME.test(r.name));
  if (bad.length === 0) return;
  const details = bad.map((r) => ({ path: r.path, message: `"${r.name}" is not a secret name (letters, digits and _, not starting with a digit, at most 64)` }));
  throw validationFailed(`${details[0]!.path}: ${details[0]!.message}`, details);
}
