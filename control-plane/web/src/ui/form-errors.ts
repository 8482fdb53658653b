// Places the API's 400 details next to the fields they name; what names no shown field is
// listed in the form's summary so that nothing the server said is hidden.
import { ApiError } from '../api/http';

export interface FormErrors {
  /** The message for a field (its API path, e.g. "timeout_seconds" or "options.method"). */
  field(path: string): string | undefined;
  /** The summary above the form: the details no field claimed, or the message when none came. */
  summary(shownPaths: readonly string[]): string[];
}

export function formErrors(error: unknown): FormErrors {
  if (!error) return { field: () => undefined, summary: () => [] };
  const details = error instanceof ApiError ? error.details : [];
  const message = error instanceof Error ? error.message : String(error);
  return {
    field: (path) => details.find((d) => d.path === path || d.path.startsWith(`${path}.`) || d.path.startsWith(`${path}[`))?.message,
    summary: (shownPaths) => {
      if (details.length === 0) return [message];
      // The API's message repeats its details; those a field shows are not said twice.
      const unclaimed = details.filter((d) => !shownPaths.some((p) => d.path === p || d.path.startsWith(`${p}.`) || d.path.startsWith(`${p}[`)));
      if (unclaimed.length === 0) return ['Please correct the fields marked below.'];
      return unclaimed.map((d) => (d.path ? `${d.path}: ${d.message}` : d.message));
    },
  };
}
