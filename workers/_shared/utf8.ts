/**
 * UTF-8 sizes of strings without encoding them (the size limits of stored
 * values, queued payloads and path segments).
 *
 * @module
 */

/** How many bytes `text` takes in UTF-8 (a lone surrogate counts 3, as U+FFFD). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i);
    if (unit < 0x80) bytes += 1;
    else if (unit < 0x800) bytes += 2;
    else if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        bytes += 4;
        i++;
      } else bytes += 3;
    } else bytes += 3;
  }
  return bytes;
}

/**
 * The UTF-8 size of `text` when it is over `maxBytes`, else `undefined`.
 * UTF-8 takes 1 to 3 bytes per UTF-16 unit, so most texts are decided by
 * their length alone and are not counted.
 */
export function overBytes(text: string, maxBytes: number): number | undefined {
  if (text.length > maxBytes) return utf8Length(text);
  if (text.length * 3 <= maxBytes) return undefined;
  const size = utf8Length(text);
  return size > maxBytes ? size : undefined;
}
