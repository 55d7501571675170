/** A URL for logs and the ready line: credentials removed (redis://:secret@host → redis://***@host). */
export function displayUrl(url: string): string {
  return url
    .split(",")
    .map((one) => one.trim().replace(/^([a-z][a-z0-9+.-]*:\/\/)[^@/]*@/i, "$1***@"))
    .join(",");
}
