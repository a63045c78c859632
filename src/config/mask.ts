/** `sk_live_abcdef123456` -> `sk_…3456`: enough to tell keys apart, never enough to use one. */
export function maskKey(key: string): string {
  const prefix = /^[a-z]{2,4}_/i.exec(key)?.[0] ?? '';
  const tail = key.length >= 12 ? key.slice(-4) : '';
  return `${prefix}…${tail}`;
}

/** Replace every occurrence of each secret in text (for --debug logs and error messages). */
export function redact(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const secret of secrets) {
    if (secret.length >= 4) out = out.split(secret).join(maskKey(secret));
  }
  return out;
}

/**
 * Masks anything shaped like an API key (`sk_…`) in text we did not write ourselves:
 * commander's own errors echo the offending argument (`unknown option '--token=sk_live_…'`),
 * and a key typed as an argument must never be printed back.
 */
export function redactKeyLike(text: string): string {
  return text.replace(/\bsk_[A-Za-z0-9_]+/g, (key) => maskKey(key));
}
