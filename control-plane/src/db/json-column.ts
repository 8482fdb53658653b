// A json/jsonb value read with execute(): the pg driver parses it, the embedded database's
// driver may hand back its text.
export const jsonColumn = <T>(value: unknown): T => (typeof value === 'string' ? JSON.parse(value) : value) as T;
