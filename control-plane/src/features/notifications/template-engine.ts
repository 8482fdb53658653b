// Message templates (a channel's config.template) in Liquid, through LiquidJS: templates read
// the variables they are given and run no code. Hardened for text written by any member:
// - no file access: include, render and layout are refused when the template is parsed, and
//   the engine reads partials from an empty in-memory map, never the disk;
// - only own properties are read (no __proto__, constructor…), and an unknown filter is a
//   parse error, so that a typo is a 400 when saved rather than a silent gap in a message;
// - parse, time, memory and node-count limits, so that a hostile template costs the
//   dispatcher at most RENDER_LIMIT_MS, and a template that hit a limit is not rendered again
//   for BENCH_MS (its deliveries go out with the default words at once).
// Parsed templates are cached by their source.
import { Liquid, Tag, type Template } from 'liquidjs';
import { MAX_TEMPLATE_LENGTH } from '../../../../shared/src/channel-templates.js';
import { truncate } from './senders/truncate.js';

/** A rendered message is cut to this many characters. */
export const MAX_RENDERED_LENGTH = 10_000;
const RENDER_LIMIT_MS = 100;
/** Allocations (string and array growth) one render may make. */
const MEMORY_LIMIT = 1_000_000;
/** Tags and outputs one render may evaluate (loops count each turn). */
const NODE_LIMIT = 10_000;
const BENCH_MS = 10 * 60_000;
const CACHE_SIZE = 500;
const REFUSED_TAGS = ['include', 'render', 'layout', 'block'];

/** A template that does not parse or failed to render; the message is the engine's. */
export class TemplateError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TemplateError';
  }
}

export interface TemplateEngine {
  /** The engine's message for a template that does not parse; null when it parses. */
  check(source: string): string | null;
  /** Renders the template with these variables, trimmed and cut; throws TemplateError. */
  render(source: string, variables: Record<string, unknown>): Promise<string>;
}

class RefusedTag extends Tag {
  constructor(...args: ConstructorParameters<typeof Tag>) {
    super(...args);
    throw new Error(`tag "${args[0].name}" is not available in message templates`);
  }

  render(): void {}
}

export function createTemplateEngine(now: () => number = Date.now): TemplateEngine {
  const liquid = new Liquid({
    strictFilters: true,
    strictVariables: false,
    ownPropertyOnly: true,
    templates: {},
    dynamicPartials: false,
    parseLimit: MAX_TEMPLATE_LENGTH,
    renderLimit: RENDER_LIMIT_MS,
    memoryLimit: MEMORY_LIMIT,
    // Dates read as UTC on every control plane, whatever its TZ.
    timezoneOffset: 0,
  });
  for (const name of REFUSED_TAGS) liquid.registerTag(name, RefusedTag);

  const parsed = new Map<string, Template[]>();
  /** Sources that hit a limit, and until when they are not rendered again. */
  const benched = new Map<string, number>();

  function parse(source: string): Template[] {
    const cached = parsed.get(source);
    if (cached) {
      // Most recently used last: the oldest entry is the first one dropped.
      parsed.delete(source);
      parsed.set(source, cached);
      return cached;
    }
    let templates: Template[];
    try {
      templates = liquid.parse(source);
    } catch (err) {
      throw new TemplateError(engineMessage(err));
    }
    parsed.set(source, templates);
    if (parsed.size > CACHE_SIZE) parsed.delete(parsed.keys().next().value!);
    return templates;
  }

  return {
    check(source) {
      try {
        parse(source);
        return null;
      } catch (err) {
        return (err as TemplateError).message;
      }
    },
    async render(source, variables) {
      const until = benched.get(source);
      if (until !== undefined && until > now()) throw new TemplateError('the template exceeded a render limit recently; not rendered again yet');
      benched.delete(source);
      const templates = parse(source);
      try {
        const out = String(await liquid.render(templates, variables, { templateLimit: NODE_LIMIT })).trim();
        return out.length <= MAX_RENDERED_LENGTH ? out : truncate(out.slice(0, 2 * MAX_RENDERED_LENGTH), MAX_RENDERED_LENGTH);
      } catch (err) {
        const message = engineMessage(err);
        if (/limit exceeded/.test(message)) {
          benched.set(source, now() + BENCH_MS);
          if (benched.size > CACHE_SIZE) benched.delete(benched.keys().next().value!);
        }
        throw new TemplateError(message);
      }
    },
  };
}

/** The engine's own sentence, e.g. `undefined filter: shout, line:1, col:12`. */
function engineMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
