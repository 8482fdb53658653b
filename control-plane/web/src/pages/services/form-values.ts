// The service form holds text as typed; these turn a service into form values and form
// values into the body of POST or PUT /services (and /services/test), sending only the
// options the user set. Imports name their .js: browser tests import this under Node.
import type { Service } from '../../api/types.js';
import { ASSERTION_SOURCES } from './assertion-catalogue.js';
import { assertionDrafts, assertionsBody, stepDrafts, stepsBody, type AssertionDraft, type StepDraft } from './assertion-values.js';
import { familyOf, optionsOf, type OptionSpec } from './check-catalogue.js';
import { headersOf, headersText, list, numberOrText } from './text-values.js';

/** How the API shows a stored secret; sent back, it keeps the stored value. */
export const SECRET_MASK = '********';

/** A secret option that names an organization secret holds none: the API answers it as written. */
export const isSecretReference = (value: unknown) => typeof value === 'string' && /^\{\{\s*secrets\.[A-Za-z_][A-Za-z0-9_]{0,63}\s*\}\}$/.test(value);

export interface ServiceFormValues {
  name: string;
  description: string;
  environment: string;
  check_type: string;
  endpoint: string;
  check_interval_seconds: string;
  timeout_seconds: string;
  tags: string;
  locations: string[];
  other_locations: string;
  /** Option values as typed, by option key (dotted when nested); booleans are '', 'true' or 'false'. */
  options: Record<string, string>;
  /** Secret options the user asked to remove (their stored value is dropped). */
  cleared_secrets: string[];
  assertions: AssertionDraft[];
  /** A MULTISTEP check's requests, in order. */
  steps: StepDraft[];
  /** Ids of the services it depends on. */
  depends_on: string[];
}

export const EMPTY_FORM: ServiceFormValues = {
  name: '',
  description: '',
  environment: '',
  check_type: 'HTTP',
  endpoint: '',
  check_interval_seconds: '60',
  timeout_seconds: '10',
  tags: '',
  locations: ['local'],
  other_locations: '',
  options: {},
  cleared_secrets: [],
  assertions: [],
  steps: [],
  depends_on: [],
};

/** The value at a dotted path (`oauth2.client_id`). */
export function valueAt(object: Record<string, unknown> | undefined, path: string): unknown {
  return path.split('.').reduce<unknown>((value, key) => (value && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined), object);
}

function setValueAt(object: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  const last = keys.pop()!;
  let target = object;
  for (const key of keys) target = (target[key] ??= {}) as Record<string, unknown>;
  target[last] = value;
}

export function valuesOf(service: Service): ServiceFormValues {
  const options: Record<string, string> = {};
  for (const spec of optionsOf(service.check_type)) {
    const value = valueAt(service.options, spec.key);
    if (value === undefined || value === null || (spec.kind === 'secret' && !isSecretReference(value))) continue;
    options[spec.key] = optionText(spec, value);
  }
  return {
    name: service.name,
    description: service.description ?? '',
    environment: service.environment ?? '',
    check_type: service.check_type,
    endpoint: service.endpoint,
    check_interval_seconds: String(service.check_interval_seconds),
    timeout_seconds: String(service.timeout_seconds),
    tags: service.tags.join(', '),
    locations: service.locations,
    other_locations: '',
    options,
    cleared_secrets: [],
    assertions: assertionDrafts(service.options.assertions),
    steps: stepDrafts(service.options.steps),
    depends_on: service.depends_on,
  };
}

function optionText(spec: OptionSpec, value: unknown): string {
  switch (spec.kind) {
    case 'headers':
      return headersText(value);
    case 'status-list':
    case 'list':
      return Array.isArray(value) ? value.join(', ') : String(value);
    case 'json':
      return typeof value === 'string' ? value : JSON.stringify(value, null, 2);
    default:
      return String(value);
  }
}

/** `stored`: the options of the service being edited, whose masked secrets are kept unless cleared. */
export function bodyOf(values: ServiceFormValues, stored: Record<string, unknown> = {}): Record<string, unknown> {
  const body: Record<string, unknown> = {
    name: values.name.trim(),
    description: values.description.trim() || null,
    environment: values.environment.trim() || null,
    check_type: values.check_type,
    endpoint: values.endpoint.trim(),
    tags: list(values.tags),
    locations: [...new Set([...values.locations, ...list(values.other_locations)])],
    options: optionsBody(values, stored),
    depends_on: values.depends_on,
  };
  if (values.check_interval_seconds.trim()) body.check_interval_seconds = numberOrText(values.check_interval_seconds);
  if (values.timeout_seconds.trim()) body.timeout_seconds = numberOrText(values.timeout_seconds);
  return body;
}

function optionsBody(values: ServiceFormValues, stored: Record<string, unknown>): Record<string, unknown> {
  const options: Record<string, unknown> = {};
  const specs = optionsOf(values.check_type);
  // A nested object (oauth2) is sent when one of its own fields is typed, not for a kept secret alone.
  const typedObjects = new Set(specs.filter((s) => s.kind !== 'secret' && values.options[s.key]?.trim()).map((s) => objectOf(s.key)));
  for (const spec of specs) {
    const object = objectOf(spec.key);
    if (object && !typedObjects.has(object)) continue;
    const text = values.options[spec.key] ?? '';
    if (spec.kind === 'secret') {
      if (text) setValueAt(options, spec.key, text);
      else if (valueAt(stored, spec.key) === SECRET_MASK && !values.cleared_secrets.includes(spec.key)) setValueAt(options, spec.key, SECRET_MASK);
      continue;
    }
    if (!text.trim()) continue;
    setValueAt(options, spec.key, optionValue(spec, text));
  }
  const family = familyOf(values.check_type);
  if (family && values.assertions.length > 0) options.assertions = assertionsBody(values.assertions, ASSERTION_SOURCES[family]);
  if (family === 'MULTISTEP') options.steps = stepsBody(values.steps);
  return options;
}

/** The object a dotted key is in (`oauth2` of `oauth2.client_id`); undefined for a top-level key. */
const objectOf = (key: string) => (key.includes('.') ? key.slice(0, key.indexOf('.')) : undefined);

function optionValue(spec: OptionSpec, text: string): unknown {
  switch (spec.kind) {
    case 'boolean':
      return text === 'true';
    case 'number':
      return numberOrText(text);
    case 'status-list':
      return list(text).map((code) => (/^\d+$/.test(code) ? Number(code) : code));
    case 'list':
      return list(text);
    case 'headers':
      return headersOf(text, `options.${spec.key}`);
    default:
      // A JSON command goes as typed: the API parses it and says where it is wrong.
      return text;
  }
}
