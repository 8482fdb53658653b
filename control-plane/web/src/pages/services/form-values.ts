// The service form holds text as typed; these turn a service into form values and form
// values into the body of POST or PUT /services, sending only the options the user set.
import { ApiError } from '../../api/http';
import type { Service } from '../../api/types';
import { optionsOf, type OptionSpec } from './check-catalogue';

/** How the API shows a stored password or key; sent back, it keeps the stored value. */
export const SECRET_MASK = '********';

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
  /** Option values as typed, by option key; booleans are '', 'true' or 'false'. */
  options: Record<string, string>;
  /** Secret options the user asked to remove (their stored value is dropped). */
  cleared_secrets: string[];
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
  depends_on: [],
};

export function valuesOf(service: Service): ServiceFormValues {
  const options: Record<string, string> = {};
  for (const spec of optionsOf(service.check_type)) {
    const value = service.options[spec.key];
    if (value === undefined || value === null || spec.kind === 'secret') continue;
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
    depends_on: service.depends_on,
  };
}

function optionText(spec: OptionSpec, value: unknown): string {
  switch (spec.kind) {
    case 'headers':
      return Object.entries(value as Record<string, string>)
        .map(([name, v]) => `${name}: ${v}`)
        .join('\n');
    case 'status-list':
      return Array.isArray(value) ? value.join(', ') : String(value);
    default:
      return String(value);
  }
}

const list = (text: string) =>
  text
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** A number when the text is one, else the text itself so the API names the problem. */
const numberOrText = (text: string): number | string => (/^-?\d+(\.\d+)?$/.test(text.trim()) ? Number(text) : text);

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
  for (const spec of optionsOf(values.check_type)) {
    const text = values.options[spec.key] ?? '';
    if (spec.kind === 'secret') {
      if (text) options[spec.key] = text;
      else if (stored[spec.key] === SECRET_MASK && !values.cleared_secrets.includes(spec.key)) options[spec.key] = SECRET_MASK;
      continue;
    }
    if (!text.trim()) continue;
    options[spec.key] = optionValue(spec, text);
  }
  return options;
}

function optionValue(spec: OptionSpec, text: string): unknown {
  switch (spec.kind) {
    case 'boolean':
      return text === 'true';
    case 'number':
      return numberOrText(text);
    case 'status-list':
      return list(text).map((code) => (/^\d+$/.test(code) ? Number(code) : code));
    case 'headers':
      return headersOf(text, spec.key);
    default:
      return text;
  }
}

function headersOf(text: string, key: string): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const line of text.split('\n').map((l) => l.trim()).filter(Boolean)) {
    const colon = line.indexOf(':');
    // Found before sending, and shown at the field like the API's own details.
    if (colon <= 0) throw new ApiError(400, 'invalid options', [{ path: `options.${key}`, message: `"${line}" is not "Name: value"` }]);
    headers[line.slice(0, colon).trim()] = line.slice(colon + 1).trim();
  }
  return headers;
}
