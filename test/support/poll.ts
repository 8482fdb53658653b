/** Calls fn until it returns a truthy value, or throws after `timeoutMs` (no fixed sleeps). */
export async function poll<T>(fn: () => Promise<T | undefined | null | false> | T | undefined | null | false, { timeoutMs = 10_000, intervalMs = 50, what = 'a condition' } = {}): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await fn();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${lastError ? ` (last error: ${String(lastError)})` : ''}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}
