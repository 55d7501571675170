/**
 * One spelling of a distinguished name for comparing: OpenSSL's `-nameopt RFC2253` escapes every
 * byte of a non-ASCII character (`CN=r\C3\B6bot`), Node's `subject` keeps the character
 * (`CN=röbot`); the documented recipe copies the first, the certificate gives the second. Runs of
 * such escapes (bytes 0x80 and above, always non-ASCII) are decoded as UTF-8; escapes of ASCII
 * characters (`\,`, `\2C`) stay as they are, so no separator can appear. A run that is no valid
 * UTF-8 is left alone.
 */
export function canonicalDistinguishedName(dn: string): string {
  return dn.replace(/(?:\\[89A-Fa-f][0-9A-Fa-f])+/g, (run) => {
    const bytes = Buffer.from(
      run
        .split("\\")
        .slice(1)
        .map((hex) => Number.parseInt(hex, 16)),
    );
    const text = new TextDecoder("utf-8", { fatal: false }).decode(bytes);
    return text.includes("\uFFFD") ? run : text;
  });
}
