// A store URL as a message or a log line may show it: never its password, even when it is no
// valid URL (a typo in the scheme, a missing host).

// A `password=` parameter of a connection string (libpq reads it from the query).
const PASSWORD_PARAM = /([?&]password=)[^&#]*/gi;

// The value with the password of its user part (`user:password@`) and of a `password=` parameter
// replaced by ***; text that holds neither is returned as it is.
export function maskUrl(value: string): string {
  const start = value.includes('://') ? value.indexOf('://') + 3 : 0;
  // The last @: a password may hold an unescaped @ or /, so everything before it is user part.
  const at = value.lastIndexOf('@');
  const colon = value.indexOf(':', start);
  const masked = at > start && colon !== -1 && colon < at ? `${value.slice(0, colon + 1)}***${value.slice(at)}` : value;
  return masked.replace(PASSWORD_PARAM, '$1***');
}

// `text` (a driver's error message) with every copy of the password `url` carries replaced by ***.
export function withoutPassword(text: string, url: string): string {
  const passwords = new Set<string>();
  try {
    const parsed = new URL(url);
    for (const p of [parsed.password, parsed.searchParams.get('password') ?? '']) if (p) passwords.add(p).add(safeDecode(p));
  } catch {
    // An unparsable URL is masked as a whole where it is quoted (maskUrl).
  }
  let out = text;
  for (const p of [...passwords].sort((a, b) => b.length - a.length)) out = out.split(p).join('***');
  return out;
}

function safeDecode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
