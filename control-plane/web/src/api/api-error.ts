// What a failed API call throws: the status, the API's message and its field details. Apart
// from the client (http.ts) so that code building request bodies needs no browser session.
export interface FieldProblem {
  path: string;
  message: string;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly details: FieldProblem[] = [],
    /** The API's machine-readable reason, when it gives one (e.g. PASSWORD_REQUIRED). */
    readonly code?: string,
  ) {
    super(message);
  }
}
