/** A bad invocation: printed without a stack, exit code 2. */
export class UsageError extends Error {}
