/** multipart/form-data as the fake platform APIs read it (the uploads of grammY, discord.js, Slack's client). */

/** A file uploaded with a call, as a fake received it. */
export interface UploadedFile {
  name: string;
  type: string;
  data: Buffer;
}

/**
 * A multipart/form-data body as the Bot API reads it: fields (JSON-encoded objects decoded), and files, each under the
 * parameter that names it (a field "attach://<part>" points at the part holding the file). Parsed leniently, as
 * Telegram does: grammY writes "content-disposition:form-data;name=..." without spaces and an unquoted filename.
 */
export async function multipart(
  raw: Buffer,
  type: string,
): Promise<{ body: Record<string, any>; files: Record<string, UploadedFile> }> {
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  if (!boundary) throw new Error('no boundary');
  const delimiter = Buffer.from(`--${boundary}`);
  const body: Record<string, any> = {};
  const parts = new Map<string, UploadedFile>();
  let at = raw.indexOf(delimiter);
  while (at >= 0) {
    const start = at + delimiter.length;
    if (raw.subarray(start, start + 2).toString() === '--') break;
    const next = raw.indexOf(delimiter, start);
    if (next < 0) break;
    const part = raw.subarray(start + 2, next - 2); // after the CRLF, before the CRLF that ends it
    const split = part.indexOf('\r\n\r\n');
    const head = part.subarray(0, split).toString('utf8');
    const data = part.subarray(split + 4);
    const name = /name="?([^";\r\n]+)"?/i.exec(head)?.[1] ?? '';
    const filename = /filename="?([^";\r\n]+)"?/i.exec(head)?.[1];
    if (filename !== undefined) {
      const ctype = /content-type:\s*([^\r\n]+)/i.exec(head)?.[1] ?? '';
      parts.set(name, { name: filename, type: ctype.trim(), data: Buffer.from(data) });
    } else {
      const v = data.toString('utf8');
      try {
        body[name] = /^[[{]/.test(v) ? JSON.parse(v) : v;
      } catch {
        body[name] = v;
      }
    }
    at = next;
  }
  const files: Record<string, UploadedFile> = {};
  for (const [k, v] of Object.entries(body)) {
    const m = typeof v === 'string' ? /^attach:\/\/(.+)$/.exec(v) : null;
    if (m && parts.has(m[1]!)) files[k] = parts.get(m[1]!)!;
  }
  for (const [k, f] of parts) if (!Object.values(files).includes(f)) files[k] = f;
  return { body, files };
}
