/**
 * Test support: a byte stream (a child's stdout, a process's stdin) read as
 * text lines.
 *
 * @module
 */

/**
 * The lines of `stream`, without their `\n`, as they arrive. A last line
 * with no `\n` after it is not yielded, unless `unterminated` is set (output
 * shown in an error, where every character counts).
 */
export async function* readLines(
  stream: ReadableStream<Uint8Array>,
  { unterminated = false }: { unterminated?: boolean } = {},
): AsyncGenerator<string> {
  let buffer = "";
  for await (const chunk of stream.pipeThrough(new TextDecoderStream())) {
    buffer += chunk;
    let newline: number;
    while ((newline = buffer.indexOf("\n")) >= 0) {
      const line = buffer.slice(0, newline);
      buffer = buffer.slice(newline + 1);
      yield line;
    }
  }
  if (unterminated && buffer !== "") yield buffer;
}
