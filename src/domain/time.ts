/** Wire timestamps: ISO 8601 UTC to the second (`YYYY-MM-DDTHH:MM:SSZ`); callbacks keep milliseconds. */
export function isoSeconds(t: Date | number): string {
  const s = (typeof t === 'number' ? new Date(t) : t).toISOString();
  // YYYY-MM-DDTHH:mm:ss.sssZ for the years 0000–9999; the regular expression only for the others.
  return s.length === 24 ? `${s.slice(0, 19)}Z` : s.replace(/\.\d{3}Z$/, 'Z');
}

export function isoMillis(t: Date | number): string {
  return (typeof t === 'number' ? new Date(t) : t).toISOString();
}

export function isoOrNull(t: Date | null | undefined): string | null {
  return t ? isoSeconds(t) : null;
}
