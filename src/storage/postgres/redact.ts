// A connection URL fit for messages and logs: without its password. Kept apart from the PostgreSQL modules so that
// naming the store does not load the driver.

export function redact(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'the database';
  }
}
