/** Wire timestamps: ISO 8601 UTC to the second (`YYYY-MM-DDTHH:MM:SSZ`); callbacks keep milliseconds. */
export function isoSeconds(t: Date | number): string {
  const d = typeof t === 'number' ? new Date(t) : t;
  return d.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

export function isoMillis(t: Date | number): string {
  return (typeof t === 'number' ? new Date(t) : t).toISOString();
}

export function isoOrNull(t: Date | null | undefined): string | null {
  return t ? isoSeconds(t) : null;
}
